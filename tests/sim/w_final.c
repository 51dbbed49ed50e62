/* The end-of-run check, after the cluster healed and converged: every
 * running node's log below the final high watermark, read back through
 * src/storage, is byte-identical to the leader's where both still hold it
 * (each node's retention moves its own log start, issue 11); every acks=-1
 * success is in the committed record exactly once, at the offset answered,
 * in the order answered per client; no idempotent batch is stored twice;
 * every record a consumer read is there at the offset it was read at; the
 * committed record from the leader's log start on is in its log; then each
 * group's committed offset, read from the leader (w_check_groups.c). The
 * committed record is the final log plus, below the leader's log start,
 * the values recorded while they were committed. */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "w_check_internal.h"

typedef struct w_rec {
    int64_t offset;
    uint64_t value;
} w_rec;

typedef struct w_image {
    w_world *w;
    int64_t start; /* the node's log start */
    int64_t hw;
    uint64_t hash; /* of all batch bytes below hw */
    int64_t end;   /* end offset of the last batch below hw */
    w_batch *batches;
    size_t batch_n, batch_cap;
    w_rec *recs;
    size_t rec_n, rec_cap;
    bool records;  /* collect records (the leader's image) */
} w_image;

static void grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return;
    *cap = *cap ? *cap * 2 : 256;
    *arr = realloc(*arr, *cap * size);
    KQ_ASSERT(*arr);
}

static void image_records(w_image *im, const uint8_t *b, size_t len)
{
    record_iter it;
    if (record_iter_open(&it, b, len) != RECORD_OK) {
        w_fail(im->w, "final: a committed batch does not decode");
        return;
    }
    record rec;
    while (record_iter_next(&it, &rec)) {
        if (rec.value.len != 8)
            continue;
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | rec.value.ptr[i];
        grow((void **)&im->recs, im->rec_n, &im->rec_cap, sizeof(*im->recs));
        im->recs[im->rec_n++] = (w_rec){rec.offset, v};
    }
    record_iter_close(&it);
}

static int image_batch(void *ctx, const uint8_t *b, size_t len)
{
    w_image *im = ctx;
    record_batch_header h;
    if (record_batch_check(b, len, &h) != RECORD_OK)
        return w_fail(im->w, "final: a batch below the HW fails its checks"), 1;
    if (h.base_offset >= im->hw)
        return 1;
    for (size_t i = 0; i < len; i++)
        im->hash = (im->hash ^ b[i]) * 1099511628211ull;
    im->end = record_batch_last_offset(&h) + 1;
    grow((void **)&im->batches, im->batch_n, &im->batch_cap, sizeof(*im->batches));
    im->batches[im->batch_n++] =
        (w_batch){h.base_offset, im->end - 1, w_hash(b, len), record_batch_is_control(&h)};
    /* An idempotent batch stored twice shows up as its values stored twice. */
    if (im->records && !record_batch_is_control(&h))
        image_records(im, b, len);
    return 0;
}

static bool image_read(w_world *w, int node, int64_t hw, bool records, w_image *im)
{
    memset(im, 0, sizeof(*im));
    im->w = w;
    im->hw = hw;
    im->hash = 1469598103934665603ull;
    im->records = records;
    im->start = kq_log_start_offset(exec_log(w->nodes[node].x));
    im->end = im->start;
    if (w_scan(w, node, im->start, image_batch, im) < 0)
        return w_fail(w, "final: node %d's log cannot be read", node + 1);
    if (!w->failed && im->end != hw)
        return w_fail(w, "final: node %d's log ends at %lld below the HW %lld", node + 1,
                      (long long)im->end, (long long)hw);
    return !w->failed;
}

static void image_free(w_image *im)
{
    free(im->batches);
    free(im->recs);
}

static int cmp_value(const void *a, const void *b)
{
    uint64_t x = ((const w_rec *)a)->value, y = ((const w_rec *)b)->value;
    return x < y ? -1 : x > y;
}

static const w_rec *find_value(const w_rec *sorted, size_t n, uint64_t v)
{
    w_rec key = {0, v};
    return bsearch(&key, sorted, n, sizeof(*sorted), cmp_value);
}

/* The committed record's values: the recorded ones below the log start,
 * then the final log's. */
static w_rec *committed_values(w_world *w, const w_image *im, size_t *n)
{
    struct w_check *c = w->check;
    w_rec *all = malloc((im->rec_n + c->committed_val_n + 1) * sizeof(*all));
    KQ_ASSERT(all);
    *n = 0;
    for (size_t i = 0; i < c->committed_val_n; i++)
        if (c->committed_vals[i].offset < im->start)
            all[(*n)++] = (w_rec){c->committed_vals[i].offset, c->committed_vals[i].value};
    if (im->rec_n)
        memcpy(all + *n, im->recs, im->rec_n * sizeof(*all));
    *n += im->rec_n;
    qsort(all, *n, sizeof(*all), cmp_value);
    return all;
}

/* Every acked record once, at its offset, in ack order per client. */
static void check_acked(w_world *w, const w_image *im)
{
    struct w_check *c = w->check;
    size_t rec_n;
    w_rec *sorted = committed_values(w, im, &rec_n);
    for (size_t i = 1; i < rec_n && !w->failed; i++)
        if (sorted[i].value == sorted[i - 1].value)
            w_fail(w, "final: value %llu is stored twice (offsets %lld and %lld)",
                   (unsigned long long)sorted[i].value, (long long)sorted[i - 1].offset,
                   (long long)sorted[i].offset);
    int64_t last_offset[SIM_CLIENTS_MAX];
    for (int i = 0; i < SIM_CLIENTS_MAX; i++)
        last_offset[i] = -1;
    for (size_t i = 0; i < c->acked_n && !w->failed; i++) {
        const w_acked *a = &c->acked[i];
        const w_rec *r = find_value(sorted, rec_n, a->value);
        if (!r)
            w_fail(w, "final: acknowledged value %llu (offset %lld) is not in the log",
                   (unsigned long long)a->value, (long long)a->offset);
        else if (r->offset != a->offset)
            w_fail(w, "final: acknowledged value %llu is at offset %lld, answered %lld",
                   (unsigned long long)a->value, (long long)r->offset, (long long)a->offset);
        else if (a->client >= 0 && a->client < SIM_CLIENTS_MAX &&
                 a->offset <= last_offset[a->client])
            w_fail(w, "final: client %d's acks are out of order at offset %lld", a->client,
                   (long long)a->offset);
        else if (a->client >= 0 && a->client < SIM_CLIENTS_MAX)
            last_offset[a->client] = a->offset;
    }
    for (size_t i = 0; i < c->consumed_n && !w->failed; i++) {
        const w_consumed *k = &c->consumed[i];
        const w_rec *r = find_value(sorted, rec_n, k->value);
        if (!r || r->offset != k->offset)
            w_fail(w, "final: a consumer read value %llu at offset %lld; the log %s",
                   (unsigned long long)k->value, (long long)k->offset,
                   r ? "has it elsewhere" : "does not have it");
    }
    free(sorted);
}

static void check_committed_prefix(w_world *w, const w_image *im)
{
    struct w_check *c = w->check;
    size_t j = 0;
    for (size_t i = 0; i < c->committed_n && !w->failed; i++) {
        if (c->committed[i].base < im->start)
            continue; /* deleted by retention, below a snapshot */
        while (j < im->batch_n && im->batches[j].base < c->committed[i].base)
            j++;
        if (j == im->batch_n || im->batches[j].base != c->committed[i].base ||
            im->batches[j].hash != c->committed[i].hash)
            w_fail(w, "final: the committed batch at %lld is not in the final log",
                   (long long)c->committed[i].base);
    }
}

/* Both logs hold the same batches from the later of their starts on. */
static bool same_overlap(const w_image *a, const w_image *b)
{
    if (a->start == b->start)
        return a->hash == b->hash && a->batch_n == b->batch_n;
    int64_t from = a->start > b->start ? a->start : b->start;
    size_t i = 0, j = 0;
    while (i < a->batch_n && a->batches[i].base < from)
        i++;
    while (j < b->batch_n && b->batches[j].base < from)
        j++;
    if (a->batch_n - i != b->batch_n - j)
        return false;
    for (; i < a->batch_n; i++, j++)
        if (a->batches[i].base != b->batches[j].base || a->batches[i].hash != b->batches[j].hash)
            return false;
    return true;
}

bool w_check_final(w_world *w, int leader, int64_t final_hw)
{
    if (!w_check_on(w, W_CHECK_FINAL))
        return true;
    w_image ref;
    if (!image_read(w, leader, final_hw, true, &ref)) {
        image_free(&ref);
        return false;
    }
    for (int i = 0; i < w->n && !w->failed; i++) {
        if (i == leader || !w_node_alive(w, i) || w->nodes[i].corrupted)
            continue; /* a flip below what recovery reads is found by reads, not here */
        w_image im;
        if (image_read(w, i, final_hw, false, &im) && !same_overlap(&im, &ref))
            w_fail(w, "final: node %d's committed log differs from leader %d's", i + 1,
                   leader + 1);
        image_free(&im);
    }
    if (!w->failed)
        check_committed_prefix(w, &ref);
    if (!w->failed)
        check_acked(w, &ref);
    if (!w->failed)
        w_check_metrics(w, leader, final_hw);
    if (!w->failed)
        w_check_final_voters(w, leader);
    image_free(&ref);
    /* Last: it runs the world (one OffsetFetch per group to the leader). */
    if (!w->failed)
        w_check_final_offsets(w, leader);
    return !w->failed;
}
