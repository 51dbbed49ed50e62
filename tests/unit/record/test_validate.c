/* The one-pass validator (record_validate_plain) against the iterator it
 * replaces on the Produce path: on the golden batch, on every single-byte
 * mutation of the records section, and on random truncations of the
 * records with the length fixed up, both must agree record for record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "record_internal.h"
#include "record_test_util.h"

/* The iterator's verdict: every record parses, offset deltas are 0..n-1,
 * the count matches and nothing is left over. */
static enum record_status by_iterator(const uint8_t *batch, size_t size)
{
    record_iter it;
    enum record_status st = record_iter_open(&it, batch, size);
    int32_t n = 0;
    record rec;
    while (st == RECORD_OK && record_iter_next(&it, &rec)) {
        if (rec.offset - it.header.base_offset != n) {
            st = RECORD_BAD_RECORDS;
            break;
        }
        n++;
    }
    if (st == RECORD_OK)
        st = it.status;
    if (st == RECORD_OK && n != it.header.record_count)
        st = RECORD_BAD_RECORDS;
    record_iter_close(&it);
    return st;
}

static enum record_status by_validator(const uint8_t *batch, size_t size)
{
    record_batch_header h;
    enum record_status st = record_batch_parse_header(batch, size, &h);
    if (st != RECORD_OK)
        return st;
    if (h.record_count < 0)
        return RECORD_BAD_RECORDS;
    return record_validate_plain(batch, &h);
}

static void test_golden_ok(void **state)
{
    (void)state;
    assert_int_equal(by_validator(golden_batch, sizeof golden_batch), RECORD_OK);
    assert_int_equal(by_iterator(golden_batch, sizeof golden_batch), RECORD_OK);
}

static void test_every_byte_mutation_agrees(void **state)
{
    (void)state;
    uint8_t b[sizeof golden_batch];
    int disagreements = 0, rejected = 0;
    static const uint8_t values[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, 0x0c, 0x13};
    for (size_t pos = RECORD_BATCH_HEADER_BYTES - 4; pos < sizeof golden_batch; pos++) {
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(b, golden_batch, sizeof b);
            b[pos] = values[v];
            enum record_status a = by_iterator(b, sizeof b);
            enum record_status c = by_validator(b, sizeof b);
            if ((a == RECORD_OK) != (c == RECORD_OK))
                disagreements++;
            rejected += c != RECORD_OK;
        }
    }
    assert_int_equal(disagreements, 0);
    assert_true(rejected > 0); /* the mutations do reach invalid batches */
}

static void test_truncated_records_agree(void **state)
{
    (void)state;
    uint8_t b[sizeof golden_batch];
    for (size_t cut = 1; cut < sizeof golden_batch - RECORD_BATCH_HEADER_BYTES; cut++) {
        size_t size = sizeof golden_batch - cut;
        memcpy(b, golden_batch, size);
        test_store_be32(b + 8, (uint32_t)(size - 12)); /* a consistent length */
        assert_int_equal(by_iterator(b, size) == RECORD_OK, by_validator(b, size) == RECORD_OK);
        assert_int_not_equal(by_validator(b, size), RECORD_OK);
    }
}

/* Random bytes over the records section, many rounds, fixed seed; both
 * verdicts must occur, or the comparison proves nothing. */
static void test_random_records_agree(void **state)
{
    (void)state;
    uint8_t b[sizeof golden_batch];
    uint32_t x = 12345;
    int accepted = 0, rejected = 0;
    for (int round = 0; round < 200000; round++) {
        memcpy(b, golden_batch, sizeof b);
        int flips = 1 + round % 4;
        for (int f = 0; f < flips; f++) {
            x = x * 1664525u + 1013904223u;
            size_t pos = RECORD_BATCH_HEADER_BYTES +
                         (x >> 8) % (sizeof golden_batch - RECORD_BATCH_HEADER_BYTES);
            b[pos] = (uint8_t)(x >> 24);
        }
        bool ok = by_validator(b, sizeof b) == RECORD_OK;
        assert_int_equal(by_iterator(b, sizeof b) == RECORD_OK, ok);
        accepted += ok;
        rejected += !ok;
    }
    assert_true(accepted > 1000);
    assert_true(rejected > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_ok),
        cmocka_unit_test(test_every_byte_mutation_agrees),
        cmocka_unit_test(test_truncated_records_agree),
        cmocka_unit_test(test_random_records_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
