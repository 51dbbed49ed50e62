/* Idempotent producer state: every rule, wrap-around, eviction, rebuild. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kq/producer_state.h"
#include "kq/record.h"

static producer_state *ps;

static int setup(void **state)
{
    (void)state;
    ps = producer_state_create(16);
    return ps ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    producer_state_destroy(ps);
    ps = NULL;
    return 0;
}

static void test_unknown_pid_accepts_any_sequence(void **state)
{
    (void)state;
    int64_t off = -7;
    assert_int_equal(producer_state_check(ps, 1, 0, 0, 4, &off), PRODUCER_APPEND);
    assert_int_equal(producer_state_check(ps, 1, 3, 1234, 1240, &off), PRODUCER_APPEND);
    assert_int_equal(off, -7); /* untouched unless duplicate */
    /* Not idempotent at all. */
    assert_int_equal(producer_state_check(ps, -1, -1, -1, -1, &off), PRODUCER_APPEND);
    producer_state_record(ps, -1, -1, -1, -1, 0, 0);
    assert_int_equal(producer_state_count(ps), 0);
    /* Whatever sequence an unknown pid starts at becomes its state. */
    producer_state_record(ps, 1, 3, 1234, 1240, 100, 106);
    assert_int_equal(producer_state_check(ps, 1, 3, 1241, 1241, &off), PRODUCER_APPEND);
    assert_int_equal(producer_state_check(ps, 1, 3, 0, 0, &off), PRODUCER_OUT_OF_ORDER);
}

static void test_in_sequence_and_gaps(void **state)
{
    (void)state;
    producer_state_record(ps, 9, 2, 0, 9, 0, 9);
    assert_int_equal(producer_state_check(ps, 9, 2, 10, 19, NULL), PRODUCER_APPEND);
    assert_int_equal(producer_state_check(ps, 9, 2, 11, 19, NULL), PRODUCER_OUT_OF_ORDER);
    assert_int_equal(producer_state_check(ps, 9, 2, 9, 19, NULL), PRODUCER_OUT_OF_ORDER);
    assert_int_equal(producer_state_check(ps, 9, 2, 5, 9, NULL), PRODUCER_OUT_OF_ORDER);
    producer_state_record(ps, 9, 2, 10, 19, 10, 19);
    assert_int_equal(producer_state_check(ps, 9, 2, 20, 20, NULL), PRODUCER_APPEND);
    int16_t epoch;
    int32_t last_seq;
    int64_t last_offset;
    assert_true(producer_state_get(ps, 9, &epoch, &last_seq, &last_offset));
    assert_int_equal(epoch, 2);
    assert_int_equal(last_seq, 19);
    assert_int_equal(last_offset, 19);
    assert_false(producer_state_get(ps, 10, &epoch, &last_seq, &last_offset));
}

static void test_fenced_epoch(void **state)
{
    (void)state;
    producer_state_record(ps, 5, 4, 0, 0, 50, 50);
    assert_int_equal(producer_state_check(ps, 5, 3, 1, 1, NULL), PRODUCER_FENCED);
    assert_int_equal(producer_state_check(ps, 5, 3, 0, 0, NULL), PRODUCER_FENCED);
    assert_int_equal(producer_verdict_error(PRODUCER_FENCED), KAFKA_INVALID_PRODUCER_EPOCH);
    assert_int_equal(producer_verdict_error(PRODUCER_OUT_OF_ORDER),
                     KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(producer_verdict_error(PRODUCER_DUPLICATE), KAFKA_NONE);
    assert_int_equal(producer_verdict_error(PRODUCER_APPEND), KAFKA_NONE);
}

static void test_new_epoch_must_start_at_zero(void **state)
{
    (void)state;
    producer_state_record(ps, 5, 4, 0, 9, 0, 9);
    assert_int_equal(producer_state_check(ps, 5, 5, 10, 10, NULL), PRODUCER_OUT_OF_ORDER);
    assert_int_equal(producer_state_check(ps, 5, 5, 1, 1, NULL), PRODUCER_OUT_OF_ORDER);
    assert_int_equal(producer_state_check(ps, 5, 5, 0, 3, NULL), PRODUCER_APPEND);
    producer_state_record(ps, 5, 5, 0, 3, 10, 13);
    /* The old epoch is fenced now, and the new epoch's cache no longer holds
     * epoch 4's range 0-9. */
    assert_int_equal(producer_state_check(ps, 5, 4, 0, 9, NULL), PRODUCER_FENCED);
    assert_int_equal(producer_state_check(ps, 5, 5, 0, 9, NULL), PRODUCER_OUT_OF_ORDER);
    assert_int_equal(producer_state_check(ps, 5, 5, 4, 4, NULL), PRODUCER_APPEND);
}

static void test_duplicates_answer_original_offset(void **state)
{
    (void)state;
    /* Six batches: only the last five stay cached. */
    for (int i = 0; i < 6; i++)
        producer_state_record(ps, 77, 0, i * 10, i * 10 + 9, 1000 + i * 100, 1000 + i * 100 + 9);
    for (int i = 1; i < 6; i++) {
        int64_t off = -1;
        assert_int_equal(producer_state_check(ps, 77, 0, i * 10, i * 10 + 9, &off),
                         PRODUCER_DUPLICATE);
        assert_int_equal(off, 1000 + i * 100);
    }
    /* The oldest fell out of the cache: now merely out of order. */
    int64_t off = -1;
    assert_int_equal(producer_state_check(ps, 77, 0, 0, 9, &off), PRODUCER_OUT_OF_ORDER);
    assert_int_equal(off, -1);
    /* Same first seq, different last seq: not a duplicate. */
    assert_int_equal(producer_state_check(ps, 77, 0, 50, 58, &off), PRODUCER_OUT_OF_ORDER);
    /* Duplicate only within the same epoch. */
    assert_int_equal(producer_state_check(ps, 77, 1, 50, 59, &off), PRODUCER_OUT_OF_ORDER);
    assert_int_equal(producer_state_check(ps, 77, 0, 60, 61, &off), PRODUCER_APPEND);
    /* Recording an already cached range again changes nothing. */
    producer_state_record(ps, 77, 0, 50, 59, 9999, 10008);
    assert_int_equal(producer_state_check(ps, 77, 0, 50, 59, &off), PRODUCER_DUPLICATE);
    assert_int_equal(off, 1500);
    assert_int_equal(producer_state_check(ps, 77, 0, 10, 19, &off), PRODUCER_DUPLICATE);
}

static void test_sequence_wraps(void **state)
{
    (void)state;
    assert_int_equal(producer_sequence_add(5, 3), 8);
    assert_int_equal(producer_sequence_add(INT32_MAX, 1), 0);
    assert_int_equal(producer_sequence_add(INT32_MAX - 2, 5), 2);
    assert_int_equal(producer_sequence_add(INT32_MAX, 0), INT32_MAX);
    assert_int_equal(producer_sequence_add(-1, 1), -1);
    producer_state_record(ps, 3, 0, INT32_MAX - 4, INT32_MAX, 0, 4);
    assert_int_equal(producer_state_check(ps, 3, 0, 0, 9, NULL), PRODUCER_APPEND);
    assert_int_equal(producer_state_check(ps, 3, 0, 1, 9, NULL), PRODUCER_OUT_OF_ORDER);
    /* A batch that itself spans the wrap. */
    producer_state_record(ps, 4, 0, 0, INT32_MAX - 1, 0, 0);
    assert_int_equal(producer_state_check(ps, 4, 0, INT32_MAX, 2, NULL), PRODUCER_APPEND);
    producer_state_record(ps, 4, 0, INT32_MAX, 2, 1, 4);
    assert_int_equal(producer_state_check(ps, 4, 0, 3, 3, NULL), PRODUCER_APPEND);
    assert_int_equal(producer_state_check(ps, 4, 0, INT32_MAX, 2, NULL), PRODUCER_DUPLICATE);
}

static void test_eviction_is_bounded_and_lru(void **state)
{
    (void)state;
    producer_state *small = producer_state_create(4);
    assert_non_null(small);
    for (int64_t pid = 0; pid < 4; pid++)
        producer_state_record(small, pid, 0, 0, 0, pid, pid);
    /* Touch pid 0 so pid 1 is the least recently used. */
    producer_state_record(small, 0, 0, 1, 1, 10, 10);
    producer_state_record(small, 100, 0, 0, 0, 11, 11);
    assert_int_equal(producer_state_count(small), 4);
    assert_false(producer_state_get(small, 1, NULL, NULL, NULL));
    assert_true(producer_state_get(small, 0, NULL, NULL, NULL));
    assert_true(producer_state_get(small, 2, NULL, NULL, NULL));
    assert_true(producer_state_get(small, 3, NULL, NULL, NULL));
    assert_true(producer_state_get(small, 100, NULL, NULL, NULL));
    /* An evicted pid is unknown again: any sequence is accepted. */
    assert_int_equal(producer_state_check(small, 1, 0, 42, 42, NULL), PRODUCER_APPEND);
    /* Many more producers than slots: still bounded, newest kept. */
    for (int64_t pid = 1000; pid < 5000; pid++)
        producer_state_record(small, pid * 7919, 1, 0, 0, pid, pid);
    assert_int_equal(producer_state_count(small), 4);
    for (int64_t pid = 4996; pid < 5000; pid++)
        assert_true(producer_state_get(small, pid * 7919, NULL, NULL, NULL));
    assert_false(producer_state_get(small, 4995 * 7919, NULL, NULL, NULL));
    producer_state_destroy(small);

    /* A table of one. */
    producer_state *one = producer_state_create(0);
    assert_non_null(one);
    producer_state_record(one, 1, 0, 0, 0, 0, 0);
    producer_state_record(one, 2, 0, 0, 0, 1, 1);
    assert_int_equal(producer_state_count(one), 1);
    assert_false(producer_state_get(one, 1, NULL, NULL, NULL));
    assert_true(producer_state_get(one, 2, NULL, NULL, NULL));
    producer_state_destroy(one);
}

static void test_clear(void **state)
{
    (void)state;
    producer_state_record(ps, 8, 0, 0, 4, 0, 4);
    producer_state_clear(ps);
    assert_int_equal(producer_state_count(ps), 0);
    assert_int_equal(producer_state_check(ps, 8, 0, 0, 4, NULL), PRODUCER_APPEND);
    producer_state_record(ps, 8, 0, 0, 4, 20, 24);
    int64_t off;
    assert_int_equal(producer_state_check(ps, 8, 0, 0, 4, &off), PRODUCER_DUPLICATE);
    assert_int_equal(off, 20);
}

static void build(kq_writer *w, int64_t base_offset, int64_t pid, int16_t epoch, int32_t seq,
                  int count)
{
    record recs[8];
    memset(recs, 0, sizeof(recs));
    for (int i = 0; i < count; i++) {
        recs[i].key = (kq_slice){ NULL, -1 };
        recs[i].value = kq_slice_cstr("v");
    }
    record_batch_builder_args a = {
        .base_offset = base_offset, .producer_id = pid, .producer_epoch = epoch,
        .base_sequence = seq, .records = recs, .record_count = count,
    };
    assert_true(record_batch_build(w, &a));
}

static void test_rebuild_from_batches(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    build(&w, 0, 500, 0, 0, 3);   /* offsets 0-2, seq 0-2 */
    build(&w, 3, -1, -1, -1, 2);  /* plain producer */
    const int32_t voters[] = { 1 };
    assert_true(record_build_leader_change(&w, 5, 1, 0, 1, voters, 1, voters, 1));
    build(&w, 6, 500, 0, 3, 4);   /* offsets 6-9, seq 3-6 */
    build(&w, 10, 600, 2, INT32_MAX - 1, 4); /* seq wraps to 1 */
    build(&w, 14, 500, 0, 7, 1);  /* offset 14, seq 7 */
    producer_state_record_batches(ps, w.data, w.len);
    assert_int_equal(producer_state_count(ps), 2);
    int64_t off;
    assert_int_equal(producer_state_check(ps, 500, 0, 3, 6, &off), PRODUCER_DUPLICATE);
    assert_int_equal(off, 6);
    assert_int_equal(producer_state_check(ps, 500, 0, 0, 2, &off), PRODUCER_DUPLICATE);
    assert_int_equal(off, 0);
    assert_int_equal(producer_state_check(ps, 500, 0, 8, 8, NULL), PRODUCER_APPEND);
    assert_int_equal(producer_state_check(ps, 600, 2, INT32_MAX - 1, 1, &off), PRODUCER_DUPLICATE);
    assert_int_equal(off, 10);
    assert_int_equal(producer_state_check(ps, 600, 2, 2, 2, NULL), PRODUCER_APPEND);
    assert_int_equal(producer_state_check(ps, 600, 1, 2, 2, NULL), PRODUCER_FENCED);
    int32_t last_seq;
    int64_t last_offset;
    assert_true(producer_state_get(ps, 500, NULL, &last_seq, &last_offset));
    assert_int_equal(last_seq, 7);
    assert_int_equal(last_offset, 14);

    /* A torn tail stops the scan without harm; the whole batches before count. */
    producer_state_clear(ps);
    producer_state_record_batches(ps, w.data, w.len - 3);
    assert_true(producer_state_get(ps, 600, NULL, &last_seq, NULL));
    assert_true(producer_state_get(ps, 500, NULL, &last_seq, &last_offset));
    assert_int_equal(last_offset, 9);
    producer_state_record_batches(ps, NULL, 0);
    kq_writer_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unknown_pid_accepts_any_sequence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_in_sequence_and_gaps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fenced_epoch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_epoch_must_start_at_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicates_answer_original_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sequence_wraps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eviction_is_bounded_and_lru, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clear, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rebuild_from_batches, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
