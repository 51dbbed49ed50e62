/* Snapshots at the limits (issue 19 item 9): a producer table of
 * EXEC_PRODUCERS_MAX producers each with every cached batch, and an offsets
 * table filled through group_offsets_admits with entries of the longest
 * group id, topic and metadata until it refuses, encode within
 * KQ_SNAPSHOT_BYTES_MAX and decode back whole. Also the byte budget's
 * bookkeeping: pending commits counted, a replaced entry freed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/group_offsets.h"
#include "kq/snapshot_state.h"

#define ERR_BYTES 256

typedef struct strings {
    char group[KQ_GROUP_NAME_BYTES_MAX];
    char topic[KQ_TOPIC_NAME_BYTES_MAX];
    char metadata[KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 1];
} strings;

/* An entry with every string at its longest; i makes the group id unique. */
static group_offset max_entry(strings *s, int i)
{
    memset(s->group, 'g', sizeof(s->group) - 1);
    s->group[sizeof(s->group) - 1] = '\0';
    char num[16];
    int n = snprintf(num, sizeof num, "%d", i);
    memcpy(s->group, num, (size_t)n);
    memset(s->topic, 't', sizeof(s->topic) - 1);
    s->topic[sizeof(s->topic) - 1] = '\0';
    memset(s->metadata, 'm', sizeof(s->metadata) - 1);
    s->metadata[sizeof(s->metadata) - 1] = '\0';
    return (group_offset){.group_id = s->group, .topic = s->topic, .partition = i,
                          .offset = i, .leader_epoch = 3, .metadata = s->metadata,
                          .commit_timestamp_ms = 1764600000000 + i, .log_offset = -1};
}

static void fill_producers(producer_state *ps, int64_t end_offset)
{
    for (int64_t pid = 0; pid < EXEC_PRODUCERS_MAX; pid++) {
        producer_batch_view b[PRODUCER_STATE_BATCHES];
        for (int k = 0; k < PRODUCER_STATE_BATCHES; k++)
            b[k] = (producer_batch_view){.first_seq = INT32_MAX - 10, .last_seq = INT32_MAX,
                                         .first_offset = end_offset - 2,
                                         .last_offset = end_offset - 1};
        assert_int_equal(producer_state_restore(ps, INT64_MAX - pid, INT16_MAX, b,
                                                PRODUCER_STATE_BATCHES), 0);
    }
    assert_int_equal(producer_state_count(ps), EXEC_PRODUCERS_MAX);
}

static int fill_offsets(group_offsets *o)
{
    strings *s = malloc(sizeof(*s));
    assert_non_null(s);
    int n = 0;
    for (;; n++) {
        group_offset e = max_entry(s, n);
        if (!group_offsets_admits(o, &e, 0))
            break;
        assert_true(group_offsets_restore(o, &e));
    }
    free(s);
    assert_true(group_offsets_bytes(o) <= KQ_GROUP_OFFSETS_BYTES_MAX);
    return n;
}

static void meta_at(kq_snapshot_meta *m, int64_t end_offset)
{
    memset(m, 0, sizeof(*m));
    m->id = (raft_snapshot_id){end_offset, INT32_MAX};
    m->last_contained_timestamp_ms = INT64_MAX;
    m->voter_count = RAFT_VOTERS_MAX;
    for (int i = 0; i < RAFT_VOTERS_MAX; i++)
        m->voter_ids[i] = INT32_MAX - i;
    m->pid_max_count = KQ_SNAPSHOT_PID_NODES_MAX;
    for (int i = 0; i < KQ_SNAPSHOT_PID_NODES_MAX; i++)
        m->pid_max[i] = (kq_snapshot_pid_max){INT32_MAX - i, INT64_MAX};
}

static void test_full_tables_fit_one_snapshot(void **state)
{
    (void)state;
    const int64_t end = INT64_MAX / 2;
    producer_state *ps = producer_state_create(EXEC_PRODUCERS_MAX);
    group_offsets *o = group_offsets_create();
    assert_non_null(ps);
    assert_non_null(o);
    fill_producers(ps, end);
    int entries = fill_offsets(o);
    /* The budget, not the count, is what stopped the fill. */
    assert_true(entries > 1000 && entries < KQ_GROUP_OFFSETS_MAX);
    kq_snapshot_meta m;
    meta_at(&m, end);
    kq_writer w;
    kq_writer_init(&w, KQ_SNAPSHOT_BYTES_MAX); /* what the executor gives it */
    assert_int_equal(kq_snapshot_encode(ps, o, &m, &w), 0);
    assert_false(w.error);
    assert_true(w.len <= KQ_SNAPSHOT_BYTES_MAX);
    print_message("full tables: %d offsets, %d producers, %zu snapshot bytes of %u\n", entries,
                  EXEC_PRODUCERS_MAX, w.len, KQ_SNAPSHOT_BYTES_MAX);
    producer_state *ps2 = producer_state_create(EXEC_PRODUCERS_MAX);
    group_offsets *o2 = group_offsets_create();
    kq_snapshot_meta back;
    char err[ERR_BYTES];
    int rc = kq_snapshot_decode(w.data, w.len, m.id, ps2, o2, &back, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(producer_state_count(ps2), EXEC_PRODUCERS_MAX);
    assert_int_equal(group_offsets_count(o2), entries);
    assert_int_equal(group_offsets_bytes(o2), group_offsets_bytes(o));
    strings *s = malloc(sizeof(*s));
    group_offset want = max_entry(s, entries - 1), got;
    assert_true(group_offsets_get(o2, want.group_id, want.topic, want.partition, &got));
    assert_string_equal(got.metadata, want.metadata);
    assert_int_equal(got.offset, want.offset);
    free(s);
    kq_writer_free(&w);
    group_offsets_destroy(o);
    group_offsets_destroy(o2);
    producer_state_destroy(ps);
    producer_state_destroy(ps2);
}

/* Pending commits count until applied; replacing a committed entry frees
 * its cost; a request's earlier entries (extra) count. */
static void test_budget_bookkeeping(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    strings *s = malloc(sizeof(*s));
    group_offset e = max_entry(s, 1);
    uint64_t cost = group_offsets_entry_bytes(&e);
    assert_int_equal(cost, KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES + KQ_GROUP_NAME_BYTES_MAX - 1 +
                               KQ_TOPIC_NAME_BYTES_MAX - 1 + KQ_GROUP_OFFSET_METADATA_BYTES_MAX);
    assert_true(group_offsets_admits(o, &e, 0));
    assert_false(group_offsets_admits(o, &e, KQ_GROUP_OFFSETS_BYTES_MAX - cost + 1));
    assert_true(group_offsets_admits(o, &e, KQ_GROUP_OFFSETS_BYTES_MAX - cost));
    /* Pending: one commit through the log, counted until committed. */
    kq_writer w;
    kq_writer_init(&w, 0);
    e.log_offset = 0;
    assert_true(group_offsets_build_batch(&w, &e, 1, 5));
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 1);
    assert_int_equal(group_offsets_bytes(o), cost);
    group_offsets_truncate(o, 0);
    assert_int_equal(group_offsets_bytes(o), 0);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 1);
    group_offsets_commit(o, 1);
    assert_int_equal(group_offsets_count(o), 1);
    assert_int_equal(group_offsets_bytes(o), cost);
    /* Replacing the committed entry with a shorter one frees the difference,
     * and at a full table a replacement that does not grow is admitted. */
    group_offset shorter = e;
    shorter.metadata = NULL;
    assert_true(group_offsets_admits(o, &shorter, KQ_GROUP_OFFSETS_BYTES_MAX - cost));
    assert_true(group_offsets_restore(o, &shorter));
    assert_int_equal(group_offsets_bytes(o), cost - KQ_GROUP_OFFSET_METADATA_BYTES_MAX);
    group_offsets_clear(o, 0);
    assert_int_equal(group_offsets_bytes(o), 0);
    kq_writer_free(&w);
    free(s);
    group_offsets_destroy(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_bookkeeping),
        cmocka_unit_test(test_full_tables_fit_one_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
