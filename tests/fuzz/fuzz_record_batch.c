/* Fuzz target: record batches (include/kq/record.h) as a Produce request or
 * a fetched log carries them. Input: byte 0 picks the mode (mod 4), the rest
 * is the payload.
 *   0  a blob of batches whose CRCs are sealed first (so validation goes past
 *      the CRC), validated shallow and deep, each batch iterated;
 *   1  the same blob as it came (CRCs as given);
 *   2  record_decompress: byte 1 picks the codec (mod 8: 5..7 are unknown)
 *      and whether the output writer is bounded at 64 KiB (bit 3), the rest
 *      is the compressed payload;
 *   3  a control record: the first 4 bytes are the key, the rest a
 *      LeaderChangeMessage value.
 * Properties: a blob that validates deep iterates every batch to its
 * RecordsCount records without error; a record rebuilt with
 * record_batch_build from an iterated uncompressed batch validates deep and
 * iterates back to the same keys, values and headers; snappy never reserves
 * more output than its input can produce. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kq/record.h"

#define BATCH_CRC_OFFSET 17
#define BATCH_ATTRIBUTES_OFFSET 21
/* Rebuilding a batch is checked for batches of at most this many records,
 * each with at most this many headers (the rest are only iterated). */
#define REBUILD_RECORDS_MAX 64
#define REBUILD_HEADERS_MAX 16
#define BOUNDED_OUT_BYTES (64u << 10)

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

static void check_control(const record_batch_header *h, const record *rec)
{
    if (!record_batch_is_control(h))
        return;
    if (record_control_type(rec->key) != RECORD_CONTROL_LEADER_CHANGE)
        return;
    int32_t leader, voters[16];
    int count = 0;
    (void)record_parse_leader_change(rec->value, &leader, voters, &count, 16);
    FUZZ_CHECK(count >= 0 && count <= 16, "leader change voters within the bound");
}

/* The records of one batch, kept for the rebuild check. */
typedef struct kept {
    record recs[REBUILD_RECORDS_MAX];
    record_header_kv kvs[REBUILD_RECORDS_MAX][REBUILD_HEADERS_MAX];
    int count;
    bool rebuildable;
} kept;

static void keep(kept *k, const record *rec)
{
    if (k->count >= REBUILD_RECORDS_MAX || rec->header_count > REBUILD_HEADERS_MAX) {
        k->rebuildable = false;
        return;
    }
    record *dst = &k->recs[k->count];
    *dst = *rec;
    kq_reader r;
    kq_reader_init(&r, rec->headers_raw.ptr, (size_t)rec->headers_raw.len);
    for (int i = 0; i < rec->header_count; i++)
        FUZZ_CHECK(record_header_next(&r, &k->kvs[k->count][i]), "iterated headers reparse");
    FUZZ_CHECK(kq_reader_remaining(&r) == 0, "headers_raw holds exactly the headers");
    dst->headers = k->kvs[k->count];
    k->count++;
}

static bool slice_same(kq_slice a, kq_slice b)
{
    if (a.len < 0 || b.len < 0)
        return a.len < 0 && b.len < 0;
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, (size_t)a.len) == 0);
}

static void check_same_record(const record *want, const record *got)
{
    FUZZ_CHECK(slice_same(want->key, got->key), "rebuilt key");
    FUZZ_CHECK(slice_same(want->value, got->value), "rebuilt value");
    FUZZ_CHECK(want->timestamp == got->timestamp, "rebuilt timestamp");
    FUZZ_CHECK(want->header_count == got->header_count, "rebuilt header count");
    kq_reader r;
    kq_reader_init(&r, got->headers_raw.ptr, (size_t)got->headers_raw.len);
    for (int i = 0; i < got->header_count; i++) {
        record_header_kv kv;
        FUZZ_CHECK(record_header_next(&r, &kv), "rebuilt header parses");
        FUZZ_CHECK(slice_same(kv.key, want->headers[i].key), "rebuilt header key");
        FUZZ_CHECK(slice_same(kv.value, want->headers[i].value), "rebuilt header value");
    }
}

static void rebuild(const record_batch_header *h, const kept *k)
{
    record_batch_builder_args a = {
        .base_offset = h->base_offset,
        .partition_leader_epoch = h->partition_leader_epoch,
        .attributes = (int16_t)(h->attributes & ~RECORD_ATTR_COMPRESSION_MASK),
        .base_timestamp = h->base_timestamp,
        .producer_id = h->producer_id,
        .producer_epoch = h->producer_epoch,
        .base_sequence = h->base_sequence,
        .records = k->recs,
        .record_count = k->count,
    };
    kq_writer w;
    kq_writer_init(&w, (size_t)RECORD_BATCH_BYTES_MAX + RECORD_BATCH_LOG_OVERHEAD);
    FUZZ_CHECK(record_batch_build(&w, &a), "iterated records rebuild");
    FUZZ_CHECK(record_set_validate(w.data, w.len, true, NULL) == RECORD_OK,
               "a rebuilt batch validates deep");
    record_iter it;
    FUZZ_CHECK(record_iter_open(&it, w.data, w.len) == RECORD_OK, "a rebuilt batch opens");
    record rec;
    for (int i = 0; i < k->count; i++) {
        FUZZ_CHECK(record_iter_next(&it, &rec), "a rebuilt batch iterates");
        check_same_record(&k->recs[i], &rec);
    }
    FUZZ_CHECK(!record_iter_next(&it, &rec) && it.status == RECORD_OK, "rebuilt count");
    record_iter_close(&it);
    kq_writer_free(&w);
}

/* Iterates one batch; returns its final status. */
static enum record_status iterate(const uint8_t *batch, size_t len, bool valid)
{
    static kept k;
    record_iter it;
    enum record_status st = record_iter_open(&it, batch, len);
    k.count = 0;
    k.rebuildable = (it.header.attributes & RECORD_ATTR_COMPRESSION_MASK) == 0;
    record rec;
    int32_t n = 0;
    while (st == RECORD_OK && record_iter_next(&it, &rec)) {
        check_control(&it.header, &rec);
        keep(&k, &rec);
        n++;
    }
    if (st == RECORD_OK)
        st = it.status;
    if (valid) {
        FUZZ_CHECK(st == RECORD_OK, "a deep-valid batch iterates without error");
        FUZZ_CHECK(n == it.header.record_count, "a deep-valid batch has RecordsCount records");
        if (k.rebuildable)
            rebuild(&it.header, &k);
    }
    record_iter_close(&it);
    return st;
}

static void batches(const uint8_t *data, size_t len)
{
    record_set_summary s;
    (void)record_set_validate(data, len, false, &s);
    bool valid = record_set_validate(data, len, true, &s) == RECORD_OK;
    size_t pos = 0;
    while (pos < len) {
        record_batch_header h;
        if (record_batch_parse_header(data + pos, len - pos, &h) != RECORD_OK)
            break;
        (void)record_batch_check(data + pos, len - pos, &h);
        /* wraps, never overflows, whatever BaseOffset (outside the CRC) holds */
        FUZZ_CHECK((uint64_t)record_batch_last_offset(&h) - (uint64_t)h.base_offset ==
                       (uint64_t)(int64_t)h.last_offset_delta, "last offset = base + delta");
        (void)iterate(data + pos, record_batch_size(&h), valid);
        pos += record_batch_size(&h);
    }
    if (valid)
        FUZZ_CHECK(pos == len, "a valid blob is whole batches");
}

static void decompress(const uint8_t *data, size_t len)
{
    if (len < 1)
        return;
    kq_writer w;
    kq_writer_init(&w, (data[0] & 8) ? BOUNDED_OUT_BYTES : 0);
    enum record_status st = record_decompress((enum record_compression)(data[0] & 7), data + 1,
                                              len - 1, &w);
    if (st == RECORD_OK)
        FUZZ_CHECK(!w.error && w.len <= RECORD_BATCH_BYTES_MAX, "decompressed within bounds");
    if (data[0] & 8)
        FUZZ_CHECK(w.len <= BOUNDED_OUT_BYTES, "the writer bound holds");
    /* Snappy reserves no more than its input can produce (doubling growth
     * from 256 bytes), whether or not it succeeds. */
    if ((data[0] & 7) == RECORD_COMPRESSION_SNAPPY)
        FUZZ_CHECK(w.cap <= 256 + 2 * RECORD_SNAPPY_EXPANSION_MAX * (len - 1),
                   "snappy reserves what its input can produce, not what it claims");
    kq_writer_free(&w);
}

static void control(const uint8_t *data, size_t len)
{
    if (len < 4)
        return;
    (void)record_control_type((kq_slice){data, 4});
    int32_t leader, voters[16];
    int count = 0;
    kq_slice value = {data + 4, (int32_t)(len - 4)};
    (void)record_parse_leader_change(value, &leader, voters, &count, 16);
    (void)record_parse_leader_change(value, &leader, NULL, &count, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_FILE_INPUT_BYTES_MAX)
        return 0;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    switch (data[0] % 4) {
    case 0: {
        uint8_t *copy = malloc(len ? len : 1);
        FUZZ_CHECK(copy != NULL, "malloc");
        memcpy(copy, in, len);
        seal_crcs(copy, len);
        batches(copy, len);
        free(copy);
        break;
    }
    case 1: batches(in, len); break;
    case 2: decompress(in, len); break;
    default: control(in, len); break;
    }
    return 0;
}
