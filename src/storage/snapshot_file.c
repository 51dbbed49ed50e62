/* KIP-630 snapshot files: their names, the listing (with the removal of
 * interrupted writes) and deletion. Reading and writing them is
 * snapshot_io.c. See FORMAT.md, "Snapshots". */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log.h"
#include "kq/snapshot_file.h"
#include "storage_internal.h"

int kq_snapshot_path(char *buf, size_t len, const char *log_dir, raft_snapshot_id id, bool part)
{
    if (id.end_offset < 0 || id.epoch < 0)
        return -EINVAL;
    int n = snprintf(buf, len, "%s/%s/%020" PRId64 "-%010" PRId32 "%s", log_dir,
                     KQ_LOG_PARTITION_DIR, id.end_offset, id.epoch,
                     part ? KQ_SNAPSHOT_PART_SUFFIX : KQ_SNAPSHOT_SUFFIX);
    return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

/* n decimal digits at s, no overflow past max. */
static bool parse_digits(const char *s, int n, int64_t max, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (max - (s[i] - '0')) / 10)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* "<20 digits>-<10 digits><suffix>" exactly. */
static bool parse_snapshot_name(const char *name, const char *suffix, raft_snapshot_id *id)
{
    int64_t off, epoch;
    if (strlen(name) != 31 + strlen(suffix) || name[20] != '-' || strcmp(name + 31, suffix) != 0)
        return false;
    if (!parse_digits(name, 20, INT64_MAX, &off) || !parse_digits(name + 21, 10, INT32_MAX, &epoch))
        return false;
    *id = (raft_snapshot_id){.end_offset = off, .epoch = (int32_t)epoch};
    return true;
}

static int cmp_id(const void *a, const void *b)
{
    const raft_snapshot_id *x = a, *y = b;
    if (x->end_offset != y->end_offset)
        return x->end_offset < y->end_offset ? -1 : 1;
    return (x->epoch > y->epoch) - (x->epoch < y->epoch);
}

typedef struct snap_listing {
    raft_snapshot_id *ids; /* every final name, unsorted */
    size_t n, cap;
    char (*junk)[64];      /* leftover names to unlink */
    size_t junk_n, junk_cap;
} snap_listing;

static bool grow(void **v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *nv = realloc(*v, ncap * elem);
    if (!nv)
        return false;
    *v = nv;
    *cap = ncap;
    return true;
}

static int on_entry(void *arg, const char *name)
{
    snap_listing *l = arg;
    raft_snapshot_id id;
    if (parse_snapshot_name(name, KQ_SNAPSHOT_SUFFIX, &id)) {
        if (!grow((void **)&l->ids, &l->cap, l->n, sizeof *l->ids))
            return -ENOMEM;
        l->ids[l->n++] = id;
    } else if (parse_snapshot_name(name, KQ_SNAPSHOT_PART_SUFFIX, &id) ||
               parse_snapshot_name(name, KQ_SNAPSHOT_DELETED_SUFFIX, &id)) {
        if (!grow((void **)&l->junk, &l->junk_cap, l->junk_n, sizeof *l->junk))
            return -ENOMEM;
        snprintf(l->junk[l->junk_n++], sizeof *l->junk, "%s", name);
    }
    return 0;
}

/* Unlinks the leftovers and makes that durable. */
static int remove_junk(const kq_fs *fs, const char *dir, const snap_listing *l)
{
    char path[STORAGE_PATH_MAX];
    for (size_t i = 0; i < l->junk_n; i++) {
        if (snprintf(path, sizeof path, "%s/%s", dir, l->junk[i]) >= (int)sizeof path)
            return -ENAMETOOLONG;
        int r = fs->unlink(fs->ctx, path);
        if (r < 0 && r != -ENOENT)
            return r;
    }
    return l->junk_n ? fs->fsync_dir(fs->ctx, dir) : 0;
}

int kq_snapshot_list(const kq_fs *fs, const char *log_dir, raft_snapshot_id *ids, int max,
                     bool remove_leftovers)
{
    char dir[STORAGE_PATH_MAX];
    if (max < 0 || snprintf(dir, sizeof dir, "%s/%s", log_dir, KQ_LOG_PARTITION_DIR) >=
                       (int)sizeof dir)
        return max < 0 ? -EINVAL : -ENAMETOOLONG;
    snap_listing l = {0};
    int r = fs->list_dir(fs->ctx, dir, on_entry, &l);
    if (r == -ENOENT)
        r = 0;
    else if (r == 0 && remove_leftovers)
        r = remove_junk(fs, dir, &l);
    if (r == 0) {
        if (l.n > 1)
            qsort(l.ids, l.n, sizeof *l.ids, cmp_id);
        size_t keep = l.n < (size_t)max ? l.n : (size_t)max;
        if (keep)
            memcpy(ids, l.ids + (l.n - keep), keep * sizeof *ids);
        r = (int)keep;
    }
    free(l.ids);
    free(l.junk);
    return r;
}

int kq_snapshot_delete(const kq_fs *fs, const char *log_dir, raft_snapshot_id id)
{
    char path[STORAGE_PATH_MAX], dir[STORAGE_PATH_MAX];
    int r = kq_snapshot_path(path, sizeof path, log_dir, id, false);
    if (r < 0)
        return r;
    if ((r = fs->unlink(fs->ctx, path)) < 0)
        return r;
    snprintf(dir, sizeof dir, "%s/%s", log_dir, KQ_LOG_PARTITION_DIR);
    return fs->fsync_dir(fs->ctx, dir);
}
