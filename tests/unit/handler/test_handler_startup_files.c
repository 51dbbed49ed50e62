/* Startup against metadata files that contradict the log (issue 19): a
 * quorum-state whose epoch went back behind the log's last epoch, and a
 * log-start-offset-checkpoint no snapshot vouches for, make exec_create
 * refuse, naming the file, and delete nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "handler_test_node.h"

/* exec_create on n->dir again, after the node was closed: NULL or the exec. */
static kq_exec *reopen(tn_node *n, char *err, size_t errlen)
{
    exec_config c = {
        .node_id = 1, .voter_count = 1, .cluster_id = TN_CLUSTER_ID, .log_dir = n->dir,
        .segment_bytes = 1 << 20, .frame_bytes_max = 1 << 20, .election_timeout_ms = 1000,
        .fetch_timeout_ms = 2000, .election_backoff_max_ms = 1000, .request_timeout_ms = 500,
        .retry_backoff_ms = 50, .random_seed = 7, .producer_id_base = 1000};
    c.voters[0].node_id = 1;
    snprintf(c.voters[0].host, sizeof(c.voters[0].host), "node1.test");
    c.voters[0].port = TN_PORT_BASE + 1;
    exec_env env = {.ctx = n, .fs = kq_fs_posix(), .now_ms = tn_now_cb,
                    .peer_send = tn_peer_send_cb, .reply = tn_reply_cb,
                    .reply_none = tn_reply_none_cb, .reply_close = tn_reply_close_cb,
                    .slot_peer = tn_slot_peer_cb, .slot_conn = tn_slot_conn_cb,
                    .flush_start = tn_flush_start_cb, .arm_timer = tn_arm_timer_cb,
                    .fatal = tn_fatal_cb};
    return exec_create(&c, &env, err, errlen);
}

static void path_of(const tn_node *n, const char *file, char *out, size_t len)
{
    snprintf(out, len, "%s/" KQ_LOG_PARTITION_DIR "/%s", n->dir, file);
}

static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t got = fread(buf, 1, len - 1, f);
    buf[got] = '\0';
    fclose(f);
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    fclose(f);
}

/* Closes the node (keeping its directory) after a leader wrote epoch 1. */
static void leader_then_close(tn_node *n)
{
    tn_open_leader(n);
    assert_int_equal(tn_status(n).epoch, 1);
    tn_flush(n);
    exec_destroy(n->x, false);
    n->x = NULL;
}

static void test_quorum_state_epoch_backwards_refused(void **state)
{
    (void)state;
    tn_node n;
    leader_then_close(&n);
    char qpath[256], text[1024], err[1024];
    path_of(&n, "quorum-state", qpath, sizeof(qpath));
    slurp(qpath, text, sizeof(text));
    char *e = strstr(text, "\"leaderEpoch\":1,");
    assert_non_null(e);
    e[strlen("\"leaderEpoch\":")] = '0';
    spit(qpath, text);
    assert_null(reopen(&n, err, sizeof(err)));
    assert_non_null(strstr(err, "quorum-state"));
    assert_non_null(strstr(err, "epoch 0, below epoch 1"));
    /* the log is untouched: restoring the file starts the node with it */
    e[strlen("\"leaderEpoch\":")] = '1';
    spit(qpath, text);
    n.x = reopen(&n, err, sizeof(err));
    assert_non_null(n.x);
    n.log = exec_log(n.x);
    n.h = exec_handler(n.x);
    assert_true(kq_log_end_offset(n.log) >= 1);
    tn_close(&n);
}

static void test_missing_quorum_state_refused(void **state)
{
    (void)state;
    tn_node n;
    leader_then_close(&n);
    char qpath[256], err[1024];
    path_of(&n, "quorum-state", qpath, sizeof(qpath));
    assert_int_equal(unlink(qpath), 0);
    assert_null(reopen(&n, err, sizeof(err)));
    assert_non_null(strstr(err, "quorum-state"));
    nftw(n.dir, tn_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    free(n.replies);
    kq_arena_free(&n.arena);
}

static void test_start_checkpoint_without_snapshot_refused(void **state)
{
    (void)state;
    tn_node n;
    leader_then_close(&n);
    char cpath[256], lpath[256], err[1024];
    path_of(&n, "log-start-offset-checkpoint", cpath, sizeof(cpath));
    path_of(&n, "00000000000000000000.log", lpath, sizeof(lpath));
    struct stat before, after;
    assert_int_equal(stat(lpath, &before), 0);
    spit(cpath, "0\n1\n__cluster_metadata 0 9\n");
    assert_null(reopen(&n, err, sizeof(err)));
    assert_non_null(strstr(err, "log-start-offset-checkpoint"));
    assert_non_null(strstr(err, "no snapshot ends there"));
    assert_int_equal(stat(lpath, &after), 0);
    assert_int_equal(after.st_size, before.st_size);
    assert_int_equal(unlink(cpath), 0);
    n.x = reopen(&n, err, sizeof(err));
    assert_non_null(n.x);
    n.log = exec_log(n.x);
    n.h = exec_handler(n.x);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quorum_state_epoch_backwards_refused),
        cmocka_unit_test(test_missing_quorum_state_refused),
        cmocka_unit_test(test_start_checkpoint_without_snapshot_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
