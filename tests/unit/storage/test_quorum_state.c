#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "kq/quorum_state_file.h"
#include "storage_test_util.h"

static void write_qstate(tu_fixture *f, const char *text)
{
    char d[256];
    snprintf(d, sizeof d, "%s/" KQ_LOG_PARTITION_DIR, f->dir);
    mkdir(d, 0755);
    int fd = open(tu_path(f->dir, "quorum-state"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_missing_file(void **state)
{
    tu_fixture *f = *state;
    raft_quorum_state qs = {.epoch = 99, .voted_id = 99, .leader_id = 99};
    int32_t voters[4];
    int n = 4;
    assert_int_equal(kq_quorum_state_load(f->dir, &qs, voters, &n, f->err, sizeof f->err), 0);
    assert_int_equal(qs.epoch, 0);
    assert_int_equal(qs.voted_id, -1);
    assert_int_equal(qs.leader_id, -1);
    assert_int_equal(n, 0);
}

static void test_round_trip(void **state)
{
    tu_fixture *f = *state;
    raft_quorum_state in = {.epoch = 7, .voted_id = 2, .leader_id = 3};
    int32_t vin[3] = {1, 2, 3};
    assert_int_equal(kq_quorum_state_store(f->dir, &in, vin, 3, f->err, sizeof f->err), 0);
    char buf[1024];
    assert_true(tu_read_file(tu_path(f->dir, "quorum-state"), buf, sizeof buf) > 0);
    assert_string_equal(buf, "{\"clusterId\":\"\",\"leaderId\":3,\"leaderEpoch\":7,\"votedId\":2,"
                             "\"appliedOffset\":0,\"currentVoters\":[{\"voterId\":1},"
                             "{\"voterId\":2},{\"voterId\":3}],\"data_version\":0}");
    assert_int_equal(tu_file_size(tu_path(f->dir, "quorum-state.tmp")), -1);
    raft_quorum_state out;
    int32_t vout[RAFT_VOTERS_MAX];
    int n = RAFT_VOTERS_MAX;
    assert_int_equal(kq_quorum_state_load(f->dir, &out, vout, &n, f->err, sizeof f->err), 0);
    assert_int_equal(out.epoch, 7);
    assert_int_equal(out.voted_id, 2);
    assert_int_equal(out.leader_id, 3);
    assert_int_equal(n, 3);
    assert_memory_equal(vout, vin, sizeof vin);
    /* voters NULL: only counted */
    n = 0;
    assert_int_equal(kq_quorum_state_load(f->dir, &out, NULL, &n, f->err, sizeof f->err), 0);
    assert_int_equal(n, 3);
    /* overwrite with "none" values */
    in = (raft_quorum_state){.epoch = 8, .voted_id = -1, .leader_id = -1};
    assert_int_equal(kq_quorum_state_store(f->dir, &in, vin, 1, f->err, sizeof f->err), 0);
    n = RAFT_VOTERS_MAX;
    assert_int_equal(kq_quorum_state_load(f->dir, &out, vout, &n, f->err, sizeof f->err), 0);
    assert_int_equal(out.epoch, 8);
    assert_int_equal(out.voted_id, -1);
    assert_int_equal(out.leader_id, -1);
    assert_int_equal(n, 1);
    assert_int_equal(vout[0], 1);
}

/* Issue 20 item 6: this node's directory id, each voter's remembered one
 * and the new-directory mark, added to the v0 shape; a file without them
 * reads as before (all zero, not new). */
static void test_directory_ids(void **state)
{
    tu_fixture *f = *state;
    raft_quorum_state in = {.epoch = 4, .voted_id = -1, .leader_id = 2, .new_directory = true};
    in.directory_id.bytes[0] = 0x40;
    in.directory_id.bytes[15] = 7;
    in.voter_directory_ids[1].bytes[0] = 0x41;
    int32_t vin[3] = {1, 2, 3};
    assert_int_equal(kq_quorum_state_store(f->dir, &in, vin, 3, f->err, sizeof f->err), 0);
    char buf[1024];
    assert_true(tu_read_file(tu_path(f->dir, "quorum-state"), buf, sizeof buf) > 0);
    assert_string_equal(buf, "{\"clusterId\":\"\",\"leaderId\":2,\"leaderEpoch\":4,\"votedId\":-1,"
                             "\"appliedOffset\":0,\"currentVoters\":[{\"voterId\":1},"
                             "{\"voterId\":2,\"directoryId\":\"QQAAAAAAAAAAAAAAAAAAAA\"},"
                             "{\"voterId\":3}],\"directoryId\":\"QAAAAAAAAAAAAAAAAAAABw\","
                             "\"newDirectory\":true,\"data_version\":0}");
    raft_quorum_state out;
    int32_t vout[RAFT_VOTERS_MAX];
    int n = RAFT_VOTERS_MAX;
    assert_int_equal(kq_quorum_state_load(f->dir, &out, vout, &n, f->err, sizeof f->err), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(&out.directory_id, &in.directory_id, sizeof(kq_uuid));
    assert_memory_equal(out.voter_directory_ids, in.voter_directory_ids,
                        3 * sizeof(kq_uuid));
    assert_true(out.new_directory);
    /* without them: zero ids, not new */
    write_qstate(f, "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0,"
                    "\"currentVoters\":[{\"voterId\":1}]}");
    n = RAFT_VOTERS_MAX;
    assert_int_equal(kq_quorum_state_load(f->dir, &out, vout, &n, f->err, sizeof f->err), 0);
    static const kq_uuid zero;
    assert_memory_equal(&out.directory_id, &zero, sizeof zero);
    assert_memory_equal(&out.voter_directory_ids[0], &zero, sizeof zero);
    assert_false(out.new_directory);
    /* a directory id that is not Kafka's 22-character Uuid */
    write_qstate(f, "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0,"
                    "\"directoryId\":\"short\"}");
    n = RAFT_VOTERS_MAX;
    assert_int_equal(kq_quorum_state_load(f->dir, &out, vout, &n, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, "directoryId"));
}

static void test_kafka_shapes_accepted(void **state)
{
    tu_fixture *f = *state;
    raft_quorum_state out;
    int32_t v[4];
    int n = 4;
    /* other key order, whitespace, a trailing newline, unknown keys */
    write_qstate(f, " { \"data_version\" : 0, \"votedId\":-1, \"leaderEpoch\": 12,"
                    "\"leaderId\":1, \"currentVoters\":[ {\"voterId\":1} ,{\"voterId\":3}],"
                    "\"clusterId\":\"abc\", \"appliedOffset\":0, \"extra\":true}\n");
    assert_int_equal(kq_quorum_state_load(f->dir, &out, v, &n, f->err, sizeof f->err), 0);
    assert_int_equal(out.epoch, 12);
    assert_int_equal(out.leader_id, 1);
    assert_int_equal(out.voted_id, -1);
    assert_int_equal(n, 2);
    assert_int_equal(v[1], 3);
    /* HEAD's v1 shape */
    write_qstate(f, "{\"leaderId\":-1,\"leaderEpoch\":3,\"votedId\":2,"
                    "\"votedDirectoryId\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"data_version\":1}");
    n = 4;
    assert_int_equal(kq_quorum_state_load(f->dir, &out, v, &n, f->err, sizeof f->err), 0);
    assert_int_equal(out.epoch, 3);
    assert_int_equal(out.voted_id, 2);
    assert_int_equal(n, 0);
}

static void test_malformed(void **state)
{
    tu_fixture *f = *state;
    static const char *bad[] = {
        "",
        "not json",
        "{",
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1}", /* no data_version */
        "{\"leaderId\":1,\"leaderEpoch\":2,\"data_version\":0}", /* no votedId */
        "{\"leaderId\":1,\"leaderEpoch\":-2,\"votedId\":-1,\"data_version\":0}",
        "{\"leaderId\":1,\"leaderEpoch\":99999999999,\"votedId\":-1,\"data_version\":0}",
        "{\"leaderId\":\"1\",\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0}",
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":7}",
        "{\"leaderId\":1,\"leaderEpoch\":2.5,\"votedId\":-1,\"data_version\":0}",
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0} x",
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0,}",
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0,"
        "\"currentVoters\":[{\"id\":1}]}",
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0,"
        "\"currentVoters\":{\"voterId\":1}}",
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0,"
        "\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},{\"voterId\":3}]}", /* > capacity 2 */
        "{\"leaderId\":1,\"leaderEpoch\":2,\"votedId\":-1,\"data_version\":0,\"clusterId\":\"ab",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_qstate(f, bad[i]);
        raft_quorum_state out;
        int32_t v[2];
        int n = 2;
        f->err[0] = '\0';
        int rc = kq_quorum_state_load(f->dir, &out, v, &n, f->err, sizeof f->err);
        if (rc != -EINVAL)
            fail_msg("case %zu accepted: %s", i, bad[i]);
        assert_non_null(strstr(f->err, "malformed"));
        assert_non_null(strstr(f->err, "quorum-state"));
    }
}

static void test_store_creates_dirs(void **state)
{
    tu_fixture *f = *state;
    char nested[256];
    snprintf(nested, sizeof nested, "%s/a/b", f->dir);
    raft_quorum_state in = {.epoch = 1, .voted_id = 1, .leader_id = -1};
    int32_t v = 1;
    assert_int_equal(kq_quorum_state_store(nested, &in, &v, 1, f->err, sizeof f->err), 0);
    raft_quorum_state out;
    int32_t vo[1];
    int n = 1;
    assert_int_equal(kq_quorum_state_load(nested, &out, vo, &n, f->err, sizeof f->err), 0);
    assert_int_equal(out.voted_id, 1);
    assert_int_equal(vo[0], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_missing_file, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_round_trip, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_directory_ids, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_kafka_shapes_accepted, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_malformed, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_store_creates_dirs, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
