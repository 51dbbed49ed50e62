/* The voter history the executor hands the core at start (KIP-853,
 * src/exec/exec_voters.c): Kafka's bootstrap checkpoint at offset -1 (at
 * kraft.version 1 only), the snapshot at the log start at its last
 * contained offset instead when the log starts above 0, then every
 * KRaftVersion and Voters record of the log at its own offset, each entry
 * carrying the other half of the one before it, the last
 * RAFT_VOTER_HISTORY_MAX kept. */
#include "handler_test_node.h"

#include <errno.h>
#include <sys/stat.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/snapshot_file.h"
#include "kq/snapshot_state.h"
#include "kq/wire_fetch_snapshot.h"

static void make_dir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/kq-vhist-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char part[4200];
    snprintf(part, sizeof part, "%s/" KQ_LOG_PARTITION_DIR, dir);
    assert_int_equal(mkdir(part, 0755), 0);
}

static void write_bootstrap(const char *dir, int16_t level, int voters)
{
    static kq_bootstrap b;
    memset(&b, 0, sizeof b);
    b.kraft_version = level;
    b.has_voters = voters > 0;
    for (int i = 0; i < voters; i++) {
        kq_voter *v = &b.voters.voters[b.voters.count++];
        v->id = i + 1;
        v->directory_id.bytes[0] = (uint8_t)(i + 1);
        snprintf(v->listener, sizeof v->listener, "CONTROLLER");
        snprintf(v->host, sizeof v->host, "node%d.test", i + 1);
        v->port = (uint16_t)(TN_PORT_BASE + i + 1);
        v->kraft_version_min = 0;
        v->kraft_version_max = 1;
    }
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(kq_bootstrap_encode(&w, &b));
    char err[256];
    assert_int_equal(kq_snapshot_write_file(kq_fs_posix(), dir, (raft_snapshot_id){0, 0}, w.data,
                                            w.len, err, sizeof err), 0);
    kq_writer_free(&w);
}

static kq_voter_set *voters_of(int first, int count)
{
    kq_voter_set *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    for (int i = 0; i < count; i++) {
        kq_voter *v = &s->voters[s->count++];
        v->id = first + i;
        snprintf(v->listener, sizeof v->listener, "CONTROLLER");
        snprintf(v->host, sizeof v->host, "node%d.test", first + i);
        v->port = (uint16_t)(TN_PORT_BASE + first + i);
        v->kraft_version_min = 0;
        v->kraft_version_max = 1;
    }
    return s;
}

/* Appends control batches at the log's end, epoch 0: each with a
 * KRaftVersion record (level >= 0) and a Voters record (voters != NULL). */
static void append_control(kq_log *log, int16_t level, const kq_voter_set *voters)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    record_control_args a = {.base_offset = kq_log_end_offset(log), .epoch = 0,
                             .leader_id = -1, .kraft_version = level, .voters = voters};
    assert_true(record_build_control(&w, &a));
    char err[256];
    if (kq_log_append(log, w.data, w.len, kq_log_end_offset(log), 0, err, sizeof err) != 0)
        fail_msg("%s", err);
    kq_writer_free(&w);
}

static void append_data(kq_log *log)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    tn_batch(&w, -1, -1, -1, 2, "v");
    char err[256];
    if (kq_log_append(log, w.data, w.len, kq_log_end_offset(log), 0, err, sizeof err) != 0)
        fail_msg("%s", err);
    kq_writer_free(&w);
}

static kq_log *open_log(const char *dir)
{
    char err[256];
    kq_log *log = kq_log_open(dir, 1 << 20, err, sizeof err);
    if (!log)
        fail_msg("%s", err);
    return log;
}

static const raft_voter_entry *history(tn_node *n, int *count)
{
    return exec_voter_history(n->x, count);
}

static void test_no_bootstrap_no_records(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 1);
    int count = -1;
    history(&n, &count);
    assert_int_equal(count, 0);
    tn_close(&n);
}

static void test_bootstrap_kraft_version_0_is_not_history(void **state)
{
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    write_bootstrap(dir, 0, 0);
    tn_node n;
    tn_open_at(&n, 1, 1, dir, 1000000);
    int count = -1;
    history(&n, &count);
    assert_int_equal(count, 0);
    tn_close(&n);
}

static void test_bootstrap_voters_at_minus_one(void **state)
{
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    write_bootstrap(dir, 1, 3);
    tn_node n;
    tn_open_at(&n, 1, 1, dir, 1000000);
    int count = -1;
    const raft_voter_entry *h = history(&n, &count);
    assert_int_equal(count, 1);
    assert_int_equal(h[0].offset, -1);
    assert_int_equal(h[0].kraft_version, 1);
    assert_true(h[0].has_voters);
    assert_int_equal(h[0].voters.count, 3);
    assert_int_equal(h[0].voters.voters[2].id, 3);
    assert_int_equal(h[0].voters.voters[2].directory_id.bytes[0], 3);
    assert_string_equal(h[0].voters.voters[1].host, "node2.test");
    assert_string_equal(h[0].voters.voters[1].listener, "CONTROLLER");
    assert_int_equal(h[0].voters.voters[1].kraft_version_max, 1);
    tn_close(&n);
}

/* Bootstrap, then: KRaftVersion 1 + Voters {1,2,3} at offsets 0 and 1, two
 * data records, Voters {1,2} alone at 4, KRaftVersion alone at 5. */
static void test_log_records_carry_the_other_half(void **state)
{
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    write_bootstrap(dir, 1, 3);
    kq_log *log = open_log(dir);
    kq_voter_set *three = voters_of(1, 3), *two = voters_of(1, 2);
    append_control(log, 1, three);
    append_data(log);
    append_control(log, -1, two);
    append_control(log, 1, NULL);
    kq_log_close(log);
    tn_node n;
    tn_open_at(&n, 1, 1, dir, 1000000);
    int count = -1;
    const raft_voter_entry *h = history(&n, &count);
    assert_int_equal(count, 5);
    int64_t offsets[5] = {-1, 0, 1, 4, 5};
    int voters[5] = {3, 3, 3, 2, 2};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(h[i].offset, offsets[i]);
        assert_int_equal(h[i].kraft_version, 1);
        assert_true(h[i].has_voters);
        assert_int_equal(h[i].voters.count, voters[i]);
    }
    assert_string_equal(h[4].voters.voters[1].host, "node2.test");
    free(three);
    free(two);
    tn_close(&n);
}

/* More records than RAFT_VOTER_HISTORY_MAX: the last ones are kept, the
 * first kept one whole (the Voters set of an earlier record). */
static void test_bounded_keeps_the_last(void **state)
{
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    kq_log *log = open_log(dir);
    kq_voter_set *one = voters_of(1, 1);
    append_control(log, -1, one);                      /* offset 0 */
    for (int i = 0; i < RAFT_VOTER_HISTORY_MAX + 3; i++)
        append_control(log, 1, NULL);                  /* offsets 1.. */
    kq_log_close(log);
    tn_node n;
    tn_open_at(&n, 1, 1, dir, 1000000);
    int count = -1;
    const raft_voter_entry *h = history(&n, &count);
    assert_int_equal(count, RAFT_VOTER_HISTORY_MAX);
    assert_int_equal(h[0].offset, 4);
    assert_int_equal(h[count - 1].offset, RAFT_VOTER_HISTORY_MAX + 3);
    for (int i = 0; i < count; i++) {
        assert_int_equal(h[i].kraft_version, 1);
        assert_true(h[i].has_voters);
        assert_int_equal(h[i].voters.count, 1);
    }
    free(one);
    tn_close(&n);
}

/* A log starting at a snapshot (here: one ending beyond the empty log, an
 * install the last run did not finish): its records count from
 * end_offset - 1 and the bootstrap checkpoint is not read. */
static void test_snapshot_at_log_start(void **state)
{
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    write_bootstrap(dir, 1, 3);
    kq_snapshot_meta m;
    memset(&m, 0, sizeof m);
    m.id = (raft_snapshot_id){.end_offset = 10, .epoch = 0};
    m.voter_count = 1;
    m.voter_ids[0] = 1;
    raft_voter_entry *e = calloc(1, sizeof(*e));
    assert_non_null(e);
    e->kraft_version = 1;
    e->has_voters = true;
    kq_voter_set *two = voters_of(1, 2);
    e->voters = *two;
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_encode_voters(NULL, NULL, &m, e, &w), 0);
    char err[256];
    assert_int_equal(kq_snapshot_write_file(kq_fs_posix(), dir, m.id, w.data, w.len, err,
                                            sizeof err), 0);
    kq_writer_free(&w);
    tn_node n;
    tn_open_at(&n, 1, 1, dir, 1000000);
    int count = -1;
    const raft_voter_entry *h = history(&n, &count);
    assert_int_equal(kq_log_start_offset(n.log), 10);
    assert_int_equal(count, 1);
    assert_int_equal(h[0].offset, 9);
    assert_int_equal(h[0].kraft_version, 1);
    assert_true(h[0].has_voters);
    assert_int_equal(h[0].voters.count, 2);
    free(e);
    free(two);
    tn_close(&n);
}

/* The bootstrap checkpoint is never replicated: a leader holding it
 * answers FetchSnapshot for 0-0 as not found (KIP-853, as Kafka). */
static void test_bootstrap_is_not_served(void **state)
{
    (void)state;
    char dir[64];
    make_dir(dir, sizeof dir);
    write_bootstrap(dir, 1, 1);
    tn_node n;
    tn_open_at(&n, 1, 1, dir, 1000000);
    tn_flush(&n);
    raft_status st = tn_status(&n);
    assert_int_equal(st.role, RAFT_ROLE_LEADER);
    wire_fetch_snapshot_partition p = {.partition = 0, .current_leader_epoch = st.epoch,
                                       .snapshot_id = {0, 0}, .position = 0};
    wire_fetch_snapshot_topic t = {kq_slice_cstr("__cluster_metadata"), &p, 1};
    wire_fetch_snapshot_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                       .replica_id = 2, .max_bytes = 1 << 20, .topics = &t,
                                       .topic_count = 1};
    tn_slot peer = {2};
    TN_SEND(&n, &peer, WIRE_API_FETCH_SNAPSHOT, 1, 20, wire_fetch_snapshot_request_encode, &req);
    wire_fetch_snapshot_response resp;
    TN_DECODE(&n, &peer, WIRE_API_FETCH_SNAPSHOT, 1, 20, wire_fetch_snapshot_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_SNAPSHOT_NOT_FOUND);
    assert_int_equal(resp.topics[0].partitions[0].unaligned_records.len, 0);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_bootstrap_no_records),
        cmocka_unit_test(test_bootstrap_kraft_version_0_is_not_history),
        cmocka_unit_test(test_bootstrap_voters_at_minus_one),
        cmocka_unit_test(test_log_records_carry_the_other_half),
        cmocka_unit_test(test_bounded_keeps_the_last),
        cmocka_unit_test(test_snapshot_at_log_start),
        cmocka_unit_test(test_bootstrap_is_not_served),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
