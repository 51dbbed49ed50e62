/* Fuzz target: snapshot files (include/kq/snapshot_state.h). Input: byte 0
 * holds flags (bit 0: seal every batch's CRC first, so that changes get past
 * the CRC; bits 1-2: the table's capacity, 1, 4, 64 or 65536), bytes 1..4
 * the expected epoch and 5..12 the expected end offset (big-endian), the
 * rest is the file. Properties: a refusal is -EBADMSG (-EINVAL for a
 * negative expected id) with a message naming
 * a byte position; validation alone (no table) accepts whatever a load
 * accepts; an accepted file re-encodes to a file that decodes to the same
 * table (same LRU order), group offsets, group store (issue 24) and meta,
 * and re-encoding that gives the same bytes. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kq/record.h"
#include "kq/snapshot_state.h"

#define PREFIX_BYTES 13
#define BATCH_CRC_OFFSET 17
#define BATCH_ATTRIBUTES_OFFSET 21
#define ERR_BYTES 256

static const uint32_t capacities[] = { 1, 4, 64, 65536 };

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

static void seal_crcs(uint8_t *data, size_t len)
{
    size_t pos = 0;
    while (len - pos >= RECORD_BATCH_HEADER_BYTES) {
        record_batch_header h;
        if (record_batch_parse_header(data + pos, len - pos, &h) != RECORD_OK)
            return;
        size_t size = record_batch_size(&h);
        uint32_t crc = kq_crc32c(0, data + pos + BATCH_ATTRIBUTES_OFFSET,
                                 size - BATCH_ATTRIBUTES_OFFSET);
        for (int i = 0; i < 4; i++)
            data[pos + BATCH_CRC_OFFSET + i] = (uint8_t)(crc >> (24 - 8 * i));
        pos += size;
    }
}

typedef struct walk {
    const producer_state *other;
    int64_t *pids;
    uint32_t n;
} walk;

static int note_pid(void *ctx, int64_t pid, int16_t epoch, const producer_batch_view *b, int n)
{
    (void)epoch, (void)b, (void)n;
    walk *w = ctx;
    w->pids[w->n++] = pid;
    return 0;
}

/* The same producers in the same order with the same last batch. */
static void check_same_table(const producer_state *a, const producer_state *b)
{
    FUZZ_CHECK(producer_state_count(a) == producer_state_count(b), "same producer count");
    uint32_t n = producer_state_count(a);
    walk wa = { NULL, calloc(n + 1, sizeof(int64_t)), 0 };
    walk wb = { NULL, calloc(n + 1, sizeof(int64_t)), 0 };
    FUZZ_CHECK(wa.pids && wb.pids, "memory for the walk");
    producer_state_foreach(a, note_pid, &wa);
    producer_state_foreach(b, note_pid, &wb);
    FUZZ_CHECK(wa.n == n && wb.n == n && memcmp(wa.pids, wb.pids, n * sizeof(int64_t)) == 0,
               "same producers in the same LRU order");
    for (uint32_t i = 0; i < n; i++) {
        int16_t ea, eb;
        int32_t sa, sb;
        int64_t oa, ob;
        FUZZ_CHECK(producer_state_get(a, wa.pids[i], &ea, &sa, &oa) &&
                       producer_state_get(b, wa.pids[i], &eb, &sb, &ob) && ea == eb &&
                       sa == sb && oa == ob, "same epoch and last batch");
    }
    free(wa.pids);
    free(wb.pids);
}

static bool same_meta(const kq_snapshot_meta *a, const kq_snapshot_meta *b)
{
    if (a->id.end_offset != b->id.end_offset || a->id.epoch != b->id.epoch ||
        a->last_contained_timestamp_ms != b->last_contained_timestamp_ms ||
        a->voter_count != b->voter_count || a->pid_max_count != b->pid_max_count)
        return false;
    for (int i = 0; i < a->voter_count; i++)
        if (a->voter_ids[i] != b->voter_ids[i])
            return false;
    for (int i = 0; i < a->pid_max_count; i++)
        if (a->pid_max[i].node_prefix != b->pid_max[i].node_prefix ||
            a->pid_max[i].max_id != b->pid_max[i].max_id)
            return false;
    return true;
}

static int count_entry(void *ctx, const group_offset *e)
{
    (void)e;
    (*(int *)ctx)++;
    return 0;
}

static int at_end_count(const group_offsets *o)
{
    int n = 0;
    (void)group_offsets_foreach_at_end(o, count_entry, &n);
    return n;
}

static void check_reencode(const producer_state *ps, const group_offsets *offsets,
                           const group_store *groups, const kq_snapshot_meta *meta,
                           uint32_t capacity)
{
    kq_writer w1, w2;
    kq_writer_init(&w1, 0);
    kq_writer_init(&w2, 0);
    FUZZ_CHECK(kq_snapshot_encode_groups(ps, offsets, NULL, groups, meta, NULL, &w1) == 0,
               "an accepted state encodes");
    producer_state *back = producer_state_create(capacity);
    group_offsets *back_offsets = group_offsets_create();
    group_store *back_groups = group_store_create();
    FUZZ_CHECK(back != NULL && back_offsets != NULL && back_groups != NULL, "a table");
    kq_snapshot_meta m2;
    char err[ERR_BYTES];
    FUZZ_CHECK(kq_snapshot_decode_groups(w1.data, w1.len, meta->id, back, back_offsets, NULL,
                                         back_groups, &m2, NULL, err, sizeof err) == 0,
               "a re-encoded file decodes");
    FUZZ_CHECK(group_offsets_count(back_offsets) == group_offsets_count(offsets) &&
                   at_end_count(back_offsets) == group_offsets_count(offsets),
               "the same group offsets after the round trip");
    FUZZ_CHECK(group_store_record_count(back_groups) == group_store_record_count(groups) &&
                   group_store_bytes(back_groups) == group_store_bytes(groups),
               "the same group store after the round trip");
    FUZZ_CHECK(same_meta(meta, &m2), "same meta after the round trip");
    check_same_table(ps, back);
    FUZZ_CHECK(kq_snapshot_encode_groups(back, back_offsets, NULL, back_groups, &m2, NULL,
                                         &w2) == 0 &&
                   w1.len == w2.len && memcmp(w1.data, w2.data, w1.len) == 0,
               "re-encoding is stable");
    producer_state_destroy(back);
    group_offsets_destroy(back_offsets);
    group_store_destroy(back_groups);
    kq_writer_free(&w1);
    kq_writer_free(&w2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < PREFIX_BYTES || size > FUZZ_FILE_INPUT_BYTES_MAX)
        return 0;
    uint32_t capacity = capacities[(data[0] >> 1) & 3];
    raft_snapshot_id id = { (int64_t)be(data + 5, 8), (int32_t)be(data + 1, 4) };
    size_t len = size - PREFIX_BYTES;
    uint8_t *file = malloc(len + 1);
    FUZZ_CHECK(file != NULL, "memory for the file");
    memcpy(file, data + PREFIX_BYTES, len);
    if (data[0] & 1)
        seal_crcs(file, len);
    producer_state *ps = producer_state_create(capacity);
    group_offsets *offsets = group_offsets_create();
    group_store *groups = group_store_create();
    FUZZ_CHECK(ps != NULL && offsets != NULL && groups != NULL, "a table");
    kq_snapshot_meta meta;
    char err[ERR_BYTES];
    int rc = kq_snapshot_decode_groups(file, len, id, ps, offsets, NULL, groups, &meta, NULL, err,
                                       sizeof err);
    bool id_ok = id.end_offset >= 0 && id.epoch >= 0;
    FUZZ_CHECK(rc == (id_ok ? rc : -EINVAL), "a negative expected id is -EINVAL");
    FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -EINVAL, "0, -EBADMSG or -EINVAL");
    FUZZ_CHECK(rc == 0 || strncmp(err, "snapshot byte ", 14) == 0, "a refusal names a position");
    FUZZ_CHECK(rc == 0 || (producer_state_count(ps) == 0 && group_offsets_count(offsets) == 0 &&
                           group_store_record_count(groups) == 0),
               "a refused load leaves the tables empty");
    int rc_validate = kq_snapshot_decode(file, len, id, NULL, NULL, NULL, err, sizeof err);
    FUZZ_CHECK(rc != 0 || rc_validate == 0, "validation accepts what a load accepts");
    if (rc == 0) {
        FUZZ_CHECK(meta.id.end_offset == id.end_offset && meta.id.epoch == id.epoch,
                   "meta carries the expected id");
        check_reencode(ps, offsets, groups, &meta, capacity);
    }
    producer_state_destroy(ps);
    group_offsets_destroy(offsets);
    group_store_destroy(groups);
    free(file);
    return 0;
}
