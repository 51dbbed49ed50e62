/* Header parsing, CRC, corruption detection, iteration and set validation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "record_test_util.h"

static uint8_t *golden_copy(size_t extra)
{
    uint8_t *b = malloc(sizeof(golden_batch) + extra);
    assert_non_null(b);
    memcpy(b, golden_batch, sizeof(golden_batch));
    return b;
}

static void test_crc32c_vector(void **state)
{
    (void)state;
    assert_int_equal(kq_crc32c(0, "123456789", 9), 0xe3069283u);
}

static void test_parse_golden_header(void **state)
{
    (void)state;
    record_batch_header h;
    assert_int_equal(record_batch_parse_header(golden_batch, sizeof(golden_batch), &h), RECORD_OK);
    assert_int_equal(h.base_offset, 5);
    assert_int_equal(h.length, sizeof(golden_batch) - 12);
    assert_int_equal(h.partition_leader_epoch, 3);
    assert_int_equal(h.magic, 2);
    assert_int_equal(h.crc, GOLDEN_CRC);
    assert_int_equal(h.attributes, 0);
    assert_int_equal(h.last_offset_delta, 1);
    assert_int_equal(h.base_timestamp, 1000);
    assert_int_equal(h.max_timestamp, 1002);
    assert_int_equal(h.producer_id, 42);
    assert_int_equal(h.producer_epoch, 1);
    assert_int_equal(h.base_sequence, 7);
    assert_int_equal(h.record_count, 2);
    assert_int_equal(record_batch_size(&h), sizeof(golden_batch));
    assert_int_equal(record_batch_last_offset(&h), 6);
    assert_false(record_batch_is_control(&h));
    assert_int_equal(record_batch_check(golden_batch, sizeof(golden_batch), &h), RECORD_OK);
}

static void test_iterate_golden(void **state)
{
    (void)state;
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, golden_batch, sizeof(golden_batch)), RECORD_OK);
    assert_true(record_iter_next(&it, &rec));
    assert_int_equal(rec.offset, 5);
    assert_int_equal(rec.timestamp, 1000);
    assert_true(test_slice_eq(rec.key, "k"));
    assert_true(test_slice_eq(rec.value, "v0"));
    assert_int_equal(rec.header_count, 0);
    assert_int_equal(rec.headers_raw.len, 0);
    assert_true(record_iter_next(&it, &rec));
    assert_int_equal(rec.offset, 6);
    assert_int_equal(rec.timestamp, 1002);
    assert_int_equal(rec.key.len, -1);
    assert_true(test_slice_eq(rec.value, "v1"));
    assert_int_equal(rec.header_count, 1);
    kq_reader hr;
    record_header_kv kv;
    kq_reader_init(&hr, rec.headers_raw.ptr, (size_t)rec.headers_raw.len);
    assert_true(record_header_next(&hr, &kv));
    assert_true(test_slice_eq(kv.key, "h"));
    assert_true(test_slice_eq(kv.value, "x"));
    assert_int_equal(kq_reader_remaining(&hr), 0);
    assert_false(record_iter_next(&it, &rec));
    assert_int_equal(it.status, RECORD_OK);
    record_iter_close(&it);
}

/* The last offset of a hostile header wraps (found by fuzzing log_open: a
 * BaseOffset of INT64_MIN and a negative delta was undefined behaviour). */
static void test_last_offset_of_hostile_header(void **state)
{
    (void)state;
    record_batch_header h;
    memset(&h, 0, sizeof h);
    h.base_offset = INT64_MIN;
    h.last_offset_delta = -207;
    assert_true(record_batch_last_offset(&h) == INT64_MAX - 206);
    h.base_offset = INT64_MAX;
    h.last_offset_delta = 1;
    assert_true(record_batch_last_offset(&h) == INT64_MIN);
    h.base_offset = 5;
    h.last_offset_delta = INT32_MAX;
    assert_true(record_batch_last_offset(&h) == 5 + (int64_t)INT32_MAX);
}

static void test_bad_magic(void **state)
{
    (void)state;
    uint8_t *b = golden_copy(0);
    record_batch_header h;
    b[16] = 1;
    assert_int_equal(record_batch_parse_header(b, sizeof(golden_batch), &h), RECORD_BAD_MAGIC);
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, NULL), RECORD_BAD_MAGIC);
    record_iter it;
    assert_int_equal(record_iter_open(&it, b, sizeof(golden_batch)), RECORD_BAD_MAGIC);
    record_iter_close(&it);
    free(b);
}

static void test_bad_crc(void **state)
{
    (void)state;
    record_batch_header h;
    /* Any byte from Attributes on is covered: flip each in turn. */
    for (size_t i = 21; i < sizeof(golden_batch); i++) {
        uint8_t *b = golden_copy(0);
        b[i] ^= 0x40;
        assert_int_equal(record_batch_check(b, sizeof(golden_batch), &h), RECORD_BAD_CRC);
        assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, NULL), RECORD_BAD_CRC);
        free(b);
    }
    /* The stored CRC itself. */
    uint8_t *b = golden_copy(0);
    b[20] ^= 1;
    assert_int_equal(record_batch_check(b, sizeof(golden_batch), &h), RECORD_BAD_CRC);
    free(b);
}

static void test_rewrite_offset_and_epoch_keeps_crc(void **state)
{
    (void)state;
    uint8_t *b = golden_copy(0);
    record_batch_header h;
    record_batch_set_base_offset(b, 0x0102030405060708LL);
    record_batch_set_leader_epoch(b, 77);
    assert_int_equal(record_batch_check(b, sizeof(golden_batch), &h), RECORD_OK);
    assert_int_equal(h.base_offset, 0x0102030405060708LL);
    assert_int_equal(h.partition_leader_epoch, 77);
    assert_int_equal(h.crc, GOLDEN_CRC);
    free(b);
}

static void test_truncated(void **state)
{
    (void)state;
    record_batch_header h;
    for (size_t len = 0; len < sizeof(golden_batch); len++) {
        assert_int_equal(record_batch_parse_header(golden_batch, len, &h), RECORD_TRUNCATED);
        assert_int_equal(record_batch_check(golden_batch, len, &h), RECORD_TRUNCATED);
        assert_int_equal(record_set_validate(golden_batch, len, true, NULL),
                         len == 0 ? RECORD_OK : RECORD_TRUNCATED);
    }
}

static void test_bad_length(void **state)
{
    (void)state;
    record_batch_header h;
    uint8_t *b = golden_copy(0);
    test_store_be32(b + 8, 48); /* below the 49-byte minimum */
    assert_int_equal(record_batch_parse_header(b, sizeof(golden_batch), &h), RECORD_BAD_LENGTH);
    test_store_be32(b + 8, 0xffffffffu); /* negative */
    assert_int_equal(record_batch_parse_header(b, sizeof(golden_batch), &h), RECORD_BAD_LENGTH);
    test_store_be32(b + 8, RECORD_BATCH_BYTES_MAX + 1);
    assert_int_equal(record_batch_parse_header(b, sizeof(golden_batch), &h), RECORD_BAD_LENGTH);
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, NULL), RECORD_BAD_LENGTH);
    /* Exactly the maximum is sane, merely not all present. */
    test_store_be32(b + 8, RECORD_BATCH_BYTES_MAX);
    assert_int_equal(record_batch_parse_header(b, sizeof(golden_batch), &h), RECORD_TRUNCATED);
    /* Length larger than the data by one: a torn tail. */
    test_store_be32(b + 8, sizeof(golden_batch) - 12 + 1);
    assert_int_equal(record_batch_parse_header(b, sizeof(golden_batch), &h), RECORD_TRUNCATED);
    free(b);
}

static void test_count_mismatch_shallow(void **state)
{
    (void)state;
    uint8_t *b = golden_copy(0);
    /* RecordsCount 3 but lastOffsetDelta 1. */
    test_store_be32(b + 57, 3);
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, NULL), RECORD_BAD_RECORDS);
    /* Empty batch. */
    test_store_be32(b + 57, 0);
    test_store_be32(b + 23, 0xffffffffu);
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, NULL), RECORD_BAD_RECORDS);
    free(b);
}

static void test_count_mismatch_deep(void **state)
{
    (void)state;
    record_set_summary s;
    uint8_t *b = golden_copy(0);
    /* Header claims 3 records (lastOffsetDelta 2) but holds 2: header-consistent,
     * only the deep check sees it. */
    test_store_be32(b + 57, 3);
    test_store_be32(b + 23, 2);
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, &s), RECORD_OK);
    assert_int_equal(s.offset_count, 3);
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), true, NULL), RECORD_BAD_RECORDS);
    /* Header claims 1 record: one record is left over. */
    test_store_be32(b + 57, 1);
    test_store_be32(b + 23, 0);
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, NULL), RECORD_OK);
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), true, NULL), RECORD_BAD_RECORDS);
    free(b);
}

static void test_bad_offset_delta_deep(void **state)
{
    (void)state;
    uint8_t *b = golden_copy(0);
    /* Second record's OffsetDelta (zigzag 1 -> 0x02 at byte 74) becomes 2. */
    assert_int_equal(b[74], 0x02);
    b[74] = 0x04;
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), false, NULL), RECORD_OK);
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), true, NULL), RECORD_BAD_RECORDS);
    free(b);
}

static void test_record_framing_errors(void **state)
{
    (void)state;
    uint8_t *b = golden_copy(0);
    /* First record's Length (zigzag 9 -> 0x12 at byte 61) says 10 bytes:
     * its body then swallows a byte of the next record. */
    b[61] = 0x14;
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), true, NULL), RECORD_BAD_RECORDS);
    /* Length larger than the batch. */
    b[61] = 0x7e;
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), true, NULL), RECORD_BAD_RECORDS);
    /* Negative key length other than -1. */
    memcpy(b, golden_batch, sizeof(golden_batch));
    b[65] = 0x03; /* zigzag -2 */
    test_reseal(b, sizeof(golden_batch));
    assert_int_equal(record_set_validate(b, sizeof(golden_batch), true, NULL), RECORD_BAD_RECORDS);
    free(b);
}

static void test_trailing_bytes_in_batch(void **state)
{
    (void)state;
    uint8_t *b = golden_copy(1);
    b[sizeof(golden_batch)] = 0;
    test_store_be32(b + 8, sizeof(golden_batch) + 1 - 12);
    test_reseal(b, sizeof(golden_batch) + 1);
    assert_int_equal(record_set_validate(b, sizeof(golden_batch) + 1, false, NULL), RECORD_OK);
    assert_int_equal(record_set_validate(b, sizeof(golden_batch) + 1, true, NULL), RECORD_BAD_RECORDS);
    free(b);
}

static void test_set_of_two_batches(void **state)
{
    (void)state;
    size_t n = sizeof(golden_batch);
    uint8_t *b = malloc(2 * n + 1);
    assert_non_null(b);
    memcpy(b, golden_batch, n);
    memcpy(b + n, golden_batch, n);
    /* Second batch: later max timestamp (CRC covers it). */
    b[n + 42] = 0xff;
    test_reseal(b + n, n);
    record_set_summary s;
    assert_int_equal(record_set_validate(b, 2 * n, true, &s), RECORD_OK);
    assert_int_equal(s.batch_count, 2);
    assert_int_equal(s.offset_count, 4);
    assert_int_equal(s.max_timestamp, 0x3ff);
    /* A stray byte after the last batch is a truncated batch. */
    b[2 * n] = 0;
    assert_int_equal(record_set_validate(b, 2 * n + 1, false, NULL), RECORD_TRUNCATED);
    /* Second batch torn. */
    assert_int_equal(record_set_validate(b, 2 * n - 5, false, &s), RECORD_TRUNCATED);
    assert_int_equal(s.batch_count, 1);
    /* Second batch corrupt. */
    b[n + 70] ^= 1;
    assert_int_equal(record_set_validate(b, 2 * n, false, NULL), RECORD_BAD_CRC);
    free(b);
}

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(record_status_name(RECORD_OK), "ok");
    assert_string_equal(record_status_name(RECORD_BAD_CRC), "bad crc");
    assert_string_equal(record_status_name(RECORD_BAD_COMPRESSION), "bad compression");
}

static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void exercise(const uint8_t *b, size_t len)
{
    record_set_summary s;
    (void)record_set_validate(b, len, true, &s);
    record_iter it;
    record rec;
    if (record_iter_open(&it, b, len) == RECORD_OK) {
        int guard = 0;
        while (record_iter_next(&it, &rec) && guard++ < 1000) {
            if (rec.header_count > 0) {
                kq_reader hr;
                record_header_kv kv;
                kq_reader_init(&hr, rec.headers_raw.ptr, (size_t)rec.headers_raw.len);
                for (int i = 0; i < rec.header_count; i++)
                    assert_true(record_header_next(&hr, &kv));
            }
        }
    }
    record_iter_close(&it);
}

/* Random bytes and mutated valid batches (resealed so the record parser
 * sees them) must never crash or read out of bounds (run under ASan). */
static void test_random_garbage(void **state)
{
    (void)state;
    uint8_t buf[512];
    for (int round = 0; round < 20000; round++) {
        size_t len = rng() % sizeof(buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)rng();
        exercise(buf, len);
    }
    for (int round = 0; round < 20000; round++) {
        uint8_t *b = golden_copy(0);
        int flips = 1 + (int)(rng() % 4);
        for (int i = 0; i < flips; i++)
            b[61 + rng() % (sizeof(golden_batch) - 61)] = (uint8_t)rng();
        if (rng() % 2)
            b[21 + rng() % 2] = (uint8_t)(rng() % 8); /* attributes: codecs */
        test_reseal(b, sizeof(golden_batch));
        exercise(b, sizeof(golden_batch));
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_vector),
        cmocka_unit_test(test_parse_golden_header),
        cmocka_unit_test(test_iterate_golden),
        cmocka_unit_test(test_last_offset_of_hostile_header),
        cmocka_unit_test(test_bad_magic),
        cmocka_unit_test(test_bad_crc),
        cmocka_unit_test(test_rewrite_offset_and_epoch_keeps_crc),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_bad_length),
        cmocka_unit_test(test_count_mismatch_shallow),
        cmocka_unit_test(test_count_mismatch_deep),
        cmocka_unit_test(test_bad_offset_delta_deep),
        cmocka_unit_test(test_record_framing_errors),
        cmocka_unit_test(test_trailing_bytes_in_batch),
        cmocka_unit_test(test_set_of_two_batches),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_random_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
