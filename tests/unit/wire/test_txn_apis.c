/* The transaction APIs' codecs (issue 23) against hostile bytes: at every
 * version, every strict prefix of the golden encoding (golden_txn.h) fails
 * to decode, random garbage and mutations of it never crash the decoder and
 * whatever it accepts re-encodes to a fixed point, and the versions just
 * outside each description are refused both ways. test_golden_txn.c checks
 * the bytes themselves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "golden_all_versions.h"
#include "golden_txn.h"
#include "txn_codecs.h"

static void check_hostile(const harness_codec *c, const golden_case *cases, int count,
                          int16_t min_version, int16_t max_version)
{
    assert_int_equal(count, max_version - min_version + 1);
    for (int i = 0; i < count; i++) {
        harness_truncations(c, cases[i].version, cases[i].bytes, cases[i].len);
        harness_fuzz(c, cases[i].version, cases[i].bytes, cases[i].len, 500);
    }
    void *zero = calloc(1, c->size);
    assert_non_null(zero);
    harness_bad_version(c, (int16_t)(min_version - 1), zero);
    harness_bad_version(c, (int16_t)(max_version + 1), zero);
    free(zero);
}

#define HOSTILE(api, N)                                                                       \
    do {                                                                                      \
        check_hostile(&wire_##api##_request_codec, golden_##api##_request,                    \
                      GOLDEN_COUNT(golden_##api##_request), WIRE_##N##_MIN_VERSION,           \
                      WIRE_##N##_MAX_VERSION);                                                \
        check_hostile(&wire_##api##_response_codec, golden_##api##_response,                  \
                      GOLDEN_COUNT(golden_##api##_response), WIRE_##N##_MIN_VERSION,          \
                      WIRE_##N##_MAX_VERSION);                                                \
    } while (0)

static void test_add_partitions_to_txn(void **state)
{
    (void)state;
    HOSTILE(add_partitions_to_txn, ADD_PARTITIONS_TO_TXN);
}

static void test_add_offsets_to_txn(void **state)
{
    (void)state;
    HOSTILE(add_offsets_to_txn, ADD_OFFSETS_TO_TXN);
}

static void test_end_txn(void **state)
{
    (void)state;
    HOSTILE(end_txn, END_TXN);
}

static void test_txn_offset_commit(void **state)
{
    (void)state;
    HOSTILE(txn_offset_commit, TXN_OFFSET_COMMIT);
}

static void test_describe_transactions(void **state)
{
    (void)state;
    HOSTILE(describe_transactions, DESCRIBE_TRANSACTIONS);
}

static void test_list_transactions(void **state)
{
    (void)state;
    HOSTILE(list_transactions, LIST_TRANSACTIONS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_partitions_to_txn),
        cmocka_unit_test(test_add_offsets_to_txn),
        cmocka_unit_test(test_end_txn),
        cmocka_unit_test(test_txn_offset_commit),
        cmocka_unit_test(test_describe_transactions),
        cmocka_unit_test(test_list_transactions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
