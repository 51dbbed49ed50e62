/* Expired offsets (issue 19, KIP-211): the tombstone control batch
 * (KQ_CONTROL_OFFSET_EXPIRE) forgets a key at the high watermark only while
 * it still holds the commit expired; a newer commit survives; the view at
 * the log end and a truncation see pending tombstones; the maps delete
 * (thousands of groups expired in any order, every other key still found,
 * the table reusable, its bytes given back); a snapshot-restored entry
 * expires too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kq/group_offsets.h"
#include "kq/record.h"

static group_offset entry(const char *group, int32_t partition, int64_t offset)
{
    return (group_offset){ .group_id = group, .topic = "t", .partition = partition,
                           .offset = offset, .leader_epoch = 3, .metadata = "meta",
                           .commit_timestamp_ms = 1000 + offset, .log_offset = -1 };
}

static void note(group_offsets *o, int64_t base, const group_offset *e, int n, bool expire)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(expire ? group_offsets_build_expire_batch(&w, e, n, 5000)
                       : group_offsets_build_batch(&w, e, n, 5000));
    record_batch_set_base_offset(w.data, base);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), n);
    kq_writer_free(&w);
}

static int64_t offset_of(const group_offsets *o, const char *g, int32_t p)
{
    group_offset out;
    return group_offsets_get(o, g, "t", p, &out) ? out.offset : -100;
}

static int count_cb(void *ctx, const group_offset *e)
{
    (void)e;
    (*(int *)ctx)++;
    return 0;
}

static int at_end_count(const group_offsets *o)
{
    int n = 0;
    group_offsets_foreach_at_end(o, count_cb, &n);
    return n;
}

static void test_tombstone_forgets(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 7), b = entry("g", 1, 8);
    note(o, 0, &a, 1, false);
    note(o, 1, &b, 1, false);
    group_offsets_commit(o, 2);
    assert_int_equal(group_offsets_count(o), 2);
    note(o, 2, &a, 1, true);
    assert_int_equal(offset_of(o, "g", 0), 7); /* pending until the high watermark */
    assert_int_equal(at_end_count(o), 1);      /* but gone at the log end */
    assert_false(group_offsets_get_at_end(o, "g", "t", 0, NULL));
    group_offsets_commit(o, 3);
    assert_int_equal(offset_of(o, "g", 0), -100);
    assert_int_equal(offset_of(o, "g", 1), 8);
    assert_true(group_offsets_has_group(o, "g"));
    note(o, 3, &b, 1, true);
    group_offsets_commit(o, 4);
    assert_int_equal(group_offsets_count(o), 0);
    assert_false(group_offsets_has_group(o, "g"));
    /* The group commits again. */
    note(o, 4, &a, 1, false);
    group_offsets_commit(o, 5);
    assert_int_equal(offset_of(o, "g", 0), 7);
    group_offsets_destroy(o);
}

static void test_newer_commit_survives(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 7), newer = entry("g", 0, 9);
    note(o, 0, &a, 1, false);
    group_offsets_commit(o, 1);
    note(o, 1, &newer, 1, false); /* committed after the leader chose to expire a */
    note(o, 2, &a, 1, true);
    assert_int_equal(at_end_count(o), 1);
    group_offset out;
    assert_true(group_offsets_get_at_end(o, "g", "t", 0, &out));
    assert_int_equal(out.offset, 9);
    group_offsets_commit(o, 3);
    assert_int_equal(offset_of(o, "g", 0), 9);
    /* A tombstone of a commit that is gone already does nothing. */
    note(o, 3, &a, 1, true);
    group_offsets_commit(o, 4);
    assert_int_equal(offset_of(o, "g", 0), 9);
    group_offsets_destroy(o);
}

static void test_truncate_drops_tombstone(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 7);
    note(o, 0, &a, 1, false);
    group_offsets_commit(o, 1);
    note(o, 1, &a, 1, true);
    group_offsets_truncate(o, 1);
    group_offsets_commit(o, 2);
    assert_int_equal(offset_of(o, "g", 0), 7);
    group_offsets_destroy(o);
}

static void test_restored_entry_expires(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 7);
    assert_true(group_offsets_restore(o, &a));
    group_offsets_clear(o, 0); /* start over: restore happens on an empty table */
    assert_true(group_offsets_restore(o, &a));
    note(o, 10, &a, 1, true);
    group_offsets_commit(o, 11);
    assert_int_equal(group_offsets_count(o), 0);
    group_offsets_destroy(o);
}

#define MANY 5000

/* Thousands of groups expired in a scrambled order: every key not expired
 * yet stays findable (backward-shift deletion), and the table empties. */
static void test_many_groups_expire(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    static char names[MANY][16];
    static group_offset e[MANY];
    for (int i = 0; i < MANY; i++) {
        snprintf(names[i], sizeof(names[i]), "g-%d", i);
        e[i] = entry(names[i], i % 3, i);
    }
    int64_t at = 0;
    for (int i = 0; i < MANY; i += 1000)
        note(o, (at += 1000) - 1000, &e[i], MANY - i < 1000 ? MANY - i : 1000, false);
    group_offsets_commit(o, at);
    assert_int_equal(group_offsets_count(o), MANY);
    uint64_t full_bytes = group_offsets_bytes(o);
    assert_true(full_bytes > 0);
    int order[MANY];
    for (int i = 0; i < MANY; i++)
        order[i] = (int)(((int64_t)i * 7919) % MANY); /* 7919 is prime to MANY */
    for (int k = 0; k < MANY; k += 500) {
        group_offset batch[500];
        for (int j = 0; j < 500; j++)
            batch[j] = e[order[k + j]];
        note(o, at, batch, 500, true);
        at += 500;
        group_offsets_commit(o, at);
        assert_int_equal(group_offsets_count(o), MANY - k - 500);
        for (int j = k + 500; j < MANY; j += 37)
            assert_int_equal(offset_of(o, names[order[j]], order[j] % 3), order[j]);
    }
    assert_int_equal(group_offsets_count(o), 0);
    for (int i = 0; i < MANY; i += 101)
        assert_false(group_offsets_has_group(o, names[i]));
    assert_int_equal(at_end_count(o), 0);
    /* Expired offsets give their bytes back to the offsets budget: the table
     * takes as many commits again (issue 19 item 5's table filled for good). */
    assert_int_equal(group_offsets_bytes(o), 0);
    for (int i = 0; i < MANY; i += 1000)
        note(o, (at += 1000) - 1000, &e[i], MANY - i < 1000 ? MANY - i : 1000, false);
    group_offsets_commit(o, at);
    assert_int_equal(group_offsets_bytes(o), full_bytes);
    group_offsets_destroy(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tombstone_forgets),
        cmocka_unit_test(test_newer_commit_survives),
        cmocka_unit_test(test_truncate_drops_tombstone),
        cmocka_unit_test(test_restored_entry_expires),
        cmocka_unit_test(test_many_groups_expire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
