/* The partition's transactions (include/kq/txn.h): open ones by producer
 * id, completed ones waiting for the high watermark (the last stable
 * offset, KIP-98), and the aborted index that read_committed fetches answer
 * from, as Kafka's ProducerStateManager and .txnindex keep them. */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "txn_internal.h"

int txn_find_open(const txn_table *t, int64_t pid)
{
    int lo = 0, hi = t->open_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (t->open[mid].producer_id == pid)
            return mid;
        if (t->open[mid].producer_id < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -lo - 1;
}

/* Grows *p (of *cap elements of size) to hold need; false: no memory. */
static bool ensure(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

bool txn_reserve(txn_table *t, size_t n)
{
    size_t open_cap = (size_t)t->open_cap;
    if (t->done_head > 0) { /* the FIFO's consumed front is reused */
        memmove(t->done, t->done + t->done_head, sizeof(*t->done) * (t->done_len - t->done_head));
        t->done_len -= t->done_head;
        t->done_head = 0;
    }
    bool ok = ensure((void **)&t->open, &open_cap, (size_t)t->open_count + n, sizeof(*t->open)) &&
              ensure((void **)&t->done, &t->done_cap, t->done_len + n, sizeof(*t->done)) &&
              ensure((void **)&t->aborted, &t->aborted_cap, t->aborted_count + n,
                     sizeof(*t->aborted));
    if (open_cap > (size_t)INT32_MAX / 2)
        return false;
    t->open_cap = (int)open_cap;
    return ok;
}

bool txn_open_at(txn_table *t, int64_t pid, int16_t epoch, int64_t base)
{
    int i = txn_find_open(t, pid);
    if (i >= 0)
        return false;
    i = -i - 1;
    KQ_ASSERT(t->open_count < t->open_cap);
    memmove(&t->open[i + 1], &t->open[i], sizeof(*t->open) * (size_t)(t->open_count - i));
    t->open[i] = (txn_open){ .producer_id = pid, .producer_epoch = epoch, .first_offset = base };
    t->open_count++;
    return true;
}

bool txn_close_at(txn_table *t, int64_t pid, bool commit, int64_t offset)
{
    int i = txn_find_open(t, pid);
    if (i < 0)
        return false;
    txn_aborted a = { .producer_id = pid, .first_offset = t->open[i].first_offset,
                      .last_offset = offset };
    memmove(&t->open[i], &t->open[i + 1], sizeof(*t->open) * (size_t)(t->open_count - i - 1));
    t->open_count--;
    if (offset >= t->settled_hw) {
        KQ_ASSERT(t->done_len < t->done_cap);
        t->done[t->done_len++] = a;
    }
    if (!commit) {
        KQ_ASSERT(t->aborted_count < t->aborted_cap);
        KQ_ASSERT(t->aborted_count == 0 || t->aborted[t->aborted_count - 1].last_offset < offset);
        t->aborted[t->aborted_count++] = a;
        if (offset - a.first_offset > t->span_max)
            t->span_max = offset - a.first_offset;
    }
    return true;
}

void txn_partition_free(txn_table *t)
{
    free(t->open);
    free(t->done);
    free(t->aborted);
    t->open = NULL;
    t->done = t->aborted = NULL;
    t->open_count = t->open_cap = 0;
    t->done_head = t->done_len = t->done_cap = 0;
    t->aborted_count = t->aborted_cap = 0;
    t->span_max = 0;
}

void txn_table_settle(txn_table *t, int64_t hw)
{
    if (hw <= t->settled_hw)
        return;
    t->settled_hw = hw;
    while (t->done_head < t->done_len && t->done[t->done_head].last_offset < hw)
        t->done_head++;
    if (t->done_head == t->done_len)
        t->done_head = t->done_len = 0;
}

void txn_table_prune(txn_table *t, int64_t log_start)
{
    size_t drop = 0;
    while (drop < t->aborted_count && t->aborted[drop].last_offset < log_start)
        drop++;
    if (drop == 0)
        return;
    memmove(t->aborted, t->aborted + drop, sizeof(*t->aborted) * (t->aborted_count - drop));
    t->aborted_count -= drop;
}

int64_t txn_table_lso(const txn_table *t, int64_t hw)
{
    int64_t lso = hw;
    for (int i = 0; i < t->open_count; i++)
        if (t->open[i].first_offset < lso)
            lso = t->open[i].first_offset;
    for (size_t i = t->done_head; i < t->done_len; i++)
        if (t->done[i].last_offset >= hw && t->done[i].first_offset < lso)
            lso = t->done[i].first_offset;
    return lso;
}

bool txn_table_open_of(const txn_table *t, int64_t pid, int64_t *first_offset,
                       int16_t *producer_epoch)
{
    int i = txn_find_open(t, pid);
    if (i < 0)
        return false;
    if (first_offset)
        *first_offset = t->open[i].first_offset;
    if (producer_epoch)
        *producer_epoch = t->open[i].producer_epoch;
    return true;
}

int txn_table_open_count(const txn_table *t)
{
    return t->open_count;
}

int txn_table_aborted_count(const txn_table *t)
{
    return (int)t->aborted_count;
}

static bool before(const txn_aborted *a, const txn_aborted *b)
{
    return a->first_offset < b->first_offset ||
           (a->first_offset == b->first_offset && a->last_offset < b->last_offset);
}

/* Keeps out[0..*n) the max smallest in first_offset order, a added. */
static void keep_smallest(txn_aborted *out, int max, int *n, const txn_aborted *a)
{
    if (*n == max && !before(a, &out[max - 1]))
        return;
    int i = *n < max ? (*n)++ : max - 1; /* the largest falls off */
    while (i > 0 && before(a, &out[i - 1])) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = *a;
}

int txn_table_aborted(const txn_table *t, int64_t from, int64_t upper, txn_aborted *out,
                      int max)
{
    size_t lo = 0, hi = t->aborted_count; /* the first with last_offset >= from */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->aborted[mid].last_offset < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    int total = 0, kept = 0;
    /* Past last_offset >= upper + span_max every first_offset is >= upper. */
    for (size_t i = lo; i < t->aborted_count; i++) {
        const txn_aborted *a = &t->aborted[i];
        if (a->last_offset - t->span_max >= upper)
            break;
        if (a->first_offset >= upper)
            continue;
        total++;
        if (out && max > 0)
            keep_smallest(out, max, &kept, a);
    }
    return total;
}

int txn_table_foreach_open(const txn_table *t, txn_open_cb cb, void *ctx)
{
    for (int i = 0; i < t->open_count; i++) {
        int rc = cb(ctx, &t->open[i]);
        if (rc)
            return rc;
    }
    return 0;
}

int txn_table_foreach_aborted(const txn_table *t, txn_aborted_cb cb, void *ctx)
{
    for (size_t i = 0; i < t->aborted_count; i++) {
        int rc = cb(ctx, &t->aborted[i]);
        if (rc)
            return rc;
    }
    return 0;
}
