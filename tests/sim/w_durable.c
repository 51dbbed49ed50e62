/* The durable truth of a node's log: what its disk would keep across a power
 * loss right now (the durable images of the segments the durable namespace
 * names), parsed batch by batch. The invariant flushed-is-durable compares
 * it with what storage calls flushed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log.h"
#include "kq/record.h"
#include "w_check_internal.h"

#define W_SEGMENTS_MAX 4096

typedef struct seg_list {
    int64_t base[W_SEGMENTS_MAX];
    int n;
} seg_list;

static int collect(void *arg, const sim_fs_file_info *info)
{
    seg_list *l = arg;
    const char *name = strrchr(info->path, '/');
    name = name ? name + 1 : info->path;
    size_t len = strlen(name);
    if (len != 24 || strcmp(name + 20, ".log") != 0 || l->n == W_SEGMENTS_MAX)
        return 0;
    l->base[l->n++] = strtoll(name, NULL, 10);
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whole, CRC-valid, contiguous batches of one durable segment image. */
static int64_t parse_segment(const uint8_t *d, size_t len, int64_t next)
{
    size_t pos = 0;
    while (pos < len) {
        record_batch_header h;
        if (record_batch_check(d + pos, len - pos, &h) != RECORD_OK || h.base_offset != next)
            break;
        next = record_batch_last_offset(&h) + 1;
        pos += record_batch_size(&h);
    }
    return next;
}

int64_t w_durable_end(w_world *w, int idx)
{
    sim_fs *fs = w->nodes[idx].fs;
    seg_list *l = calloc(1, sizeof(*l));
    if (!l)
        return -1;
    sim_fs_list(fs, collect, l);
    qsort(l->base, (size_t)l->n, sizeof(l->base[0]), cmp_i64);
    int64_t next = l->n ? l->base[0] : 0;
    for (int i = 0; i < l->n; i++) {
        if (l->base[i] != next)
            break; /* a gap: nothing after it is reachable */
        char path[256];
        snprintf(path, sizeof(path), "%s/%s/%020lld.log", SIM_LOG_DIR, KQ_LOG_PARTITION_DIR,
                 (long long)l->base[i]);
        uint8_t *buf = NULL;
        size_t len = 0;
        if (sim_fs_read_durable_file(fs, path, &buf, &len) != 0)
            break; /* its name is not durable yet */
        int64_t end = parse_segment(buf, len, next);
        free(buf);
        bool whole = end > next || len == 0;
        next = end;
        if (!whole)
            break;
    }
    free(l);
    return next;
}

void w_check_flushed_durable(w_world *w)
{
    for (int i = 0; i < w->n && !w->failed; i++) {
        w_node *n = &w->nodes[i];
        if (!w_node_alive(w, i))
            continue;
        int64_t flushed = kq_log_flushed_offset(exec_log(n->x));
        if (n->checked_inc == n->inc && flushed <= n->checked_flushed) {
            n->checked_flushed = flushed; /* a truncation lowered it */
            continue;
        }
        n->checked_flushed = flushed;
        n->checked_inc = n->inc;
        if (!w_check_on(w, W_INV_FLUSHED_DURABLE))
            continue;
        int64_t durable = w_durable_end(w, i);
        if (durable < flushed)
            w_inv_fail(w, W_INV_FLUSHED_DURABLE,
                       "node %d's storage calls %lld flushed; its disk holds %lld durably",
                       i + 1, (long long)flushed, (long long)durable);
    }
}
