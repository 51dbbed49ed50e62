#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "sim_log.h"

uint64_t sim_hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
    /* FNV-1a 64 */
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void sim_log_init(sim_log *l)
{
    memset(l, 0, sizeof(*l));
}

void sim_log_free(sim_log *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->b[i].data);
    free(l->b);
    memset(l, 0, sizeof(*l));
}

int64_t sim_log_end_of(const sim_log *l, int n)
{
    return n > 0 ? l->b[n - 1].last + 1 : 0;
}

int64_t sim_log_end(const sim_log *l)
{
    return sim_log_end_of(l, l->n);
}

int64_t sim_log_durable_end(const sim_log *l)
{
    return sim_log_end_of(l, l->durable_n);
}

int sim_log_find(const sim_log *l, int n, int64_t offset)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (l->b[mid].last < offset)
            lo = mid + 1;
        else if (l->b[mid].base > offset)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}

static bool push(sim_log *l, const uint8_t *data, size_t len, const record_batch_header *h)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        sim_batch *b = realloc(l->b, (size_t)cap * sizeof(*b));
        if (!b)
            return false;
        l->b = b;
        l->cap = cap;
    }
    uint8_t *copy = malloc(len);
    if (!copy)
        return false;
    memcpy(copy, data, len);
    sim_batch *e = &l->b[l->n];
    e->base = h->base_offset;
    e->last = record_batch_last_offset(h);
    e->epoch = h->partition_leader_epoch;
    e->control = record_batch_is_control(h);
    e->data = copy;
    e->len = len;
    uint64_t prev = l->n ? l->b[l->n - 1].chain : 0xcbf29ce484222325ull;
    e->chain = sim_hash_bytes(prev ^ 0x9e3779b97f4a7c15ull, copy, len);
    l->n++;
    return true;
}

bool sim_log_append(sim_log *l, const uint8_t *data, size_t len, bool rewrite,
                    int64_t base_offset, int32_t epoch, char *err, size_t err_len)
{
    size_t pos = 0;
    int64_t next = base_offset;
    while (pos < len) {
        record_batch_header h;
        enum record_status st = record_batch_check(data + pos, len - pos, &h);
        if (st != RECORD_OK) {
            snprintf(err, err_len, "append: bad batch at byte %zu: %s", pos,
                     record_status_name(st));
            return false;
        }
        size_t size = record_batch_size(&h);
        uint8_t *tmp = malloc(size);
        if (!tmp) {
            snprintf(err, err_len, "append: out of memory");
            return false;
        }
        memcpy(tmp, data + pos, size);
        if (rewrite) {
            record_batch_set_base_offset(tmp, next);
            record_batch_set_leader_epoch(tmp, epoch);
            h.base_offset = next;
            h.partition_leader_epoch = epoch;
            next = record_batch_last_offset(&h) + 1;
        }
        if (h.base_offset != sim_log_end(l)) {
            snprintf(err, err_len, "append: batch base offset %lld but log end is %lld",
                     (long long)h.base_offset, (long long)sim_log_end(l));
            free(tmp);
            return false;
        }
        bool ok = push(l, tmp, size, &h);
        free(tmp);
        if (!ok) {
            snprintf(err, err_len, "append: out of memory");
            return false;
        }
        pos += size;
    }
    return true;
}

int sim_log_truncate(sim_log *l, int64_t offset)
{
    while (l->n > 0 && l->b[l->n - 1].last >= offset) {
        l->n--;
        free(l->b[l->n].data);
    }
    if (l->durable_n > l->n)
        l->durable_n = l->n;
    return l->n;
}

void sim_log_crash(sim_log *l)
{
    while (l->n > l->durable_n) {
        l->n--;
        free(l->b[l->n].data);
    }
}

bool sim_log_read(const sim_log *l, int64_t from, int64_t end_offset, int32_t max_bytes,
                  kq_writer *out)
{
    int i = sim_log_find(l, l->n, from);
    size_t total = 0;
    for (; i >= 0 && i < l->n; i++) {
        const sim_batch *b = &l->b[i];
        if (b->last >= end_offset)
            break;
        if (total > 0 && total + b->len > (size_t)(max_bytes > 0 ? max_bytes : 0))
            break;
        kq_write_raw(out, b->data, b->len);
        total += b->len;
    }
    return !out->error;
}

int sim_log_epochs(const sim_log *l, raft_epoch_entry *out, int max)
{
    int n = 0;
    for (int i = 0; i < l->durable_n; i++) {
        int32_t e = l->b[i].epoch;
        if (n > 0 && out[n - 1].epoch == e)
            continue;
        if (n == max)
            break;
        out[n].epoch = e;
        out[n].start_offset = l->b[i].base;
        n++;
    }
    return n;
}

bool sim_log_prefix_equal(const sim_log *a, int na, const sim_log *b, int nb, int64_t offset)
{
    if (offset <= 0)
        return true;
    int ia = sim_log_find(a, na, offset - 1);
    int ib = sim_log_find(b, nb, offset - 1);
    return ia >= 0 && ia == ib && a->b[ia].chain == b->b[ib].chain;
}
