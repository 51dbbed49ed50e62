#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "storage_test_util.h"

static int setup(void **state)
{
    tu_setup(state);
    tu_fixture *f = *state;
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    return 0;
}

static int leader_append(tu_fixture *f, int recs, int32_t epoch)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, -1, recs, 10, recs);
    int rc = kq_log_append(f->log, w.data, w.len, kq_log_end_offset(f->log), epoch, f->err,
                           sizeof f->err);
    kq_writer_free(&w);
    return rc;
}

static const char *checkpoint(tu_fixture *f)
{
    static char buf[1024];
    if (tu_read_file(tu_path(f->dir, "leader-epoch-checkpoint"), buf, sizeof buf) < 0)
        return "<missing>";
    return buf;
}

static void test_empty_log(void **state)
{
    tu_fixture *f = *state;
    assert_string_equal(checkpoint(f), "0\n0\n");
    assert_int_equal(kq_log_epoch_count(f->log), 0);
}

static void test_new_epochs_written(void **state)
{
    tu_fixture *f = *state;
    assert_int_equal(leader_append(f, 2, 1), 0); /* 0..1 */
    assert_string_equal(checkpoint(f), "0\n1\n1 0\n");
    assert_int_equal(leader_append(f, 3, 1), 0); /* 2..4 */
    assert_int_equal(leader_append(f, 1, 3), 0); /* 5 */
    assert_int_equal(leader_append(f, 1, 3), 0); /* 6 */
    assert_string_equal(checkpoint(f), "0\n2\n1 0\n3 5\n");
    raft_epoch_entry e[4];
    assert_int_equal(kq_log_epochs(f->log, e, 4), 2);
    assert_int_equal(e[0].epoch, 1);
    assert_int_equal(e[0].start_offset, 0);
    assert_int_equal(e[1].epoch, 3);
    assert_int_equal(e[1].start_offset, 5);
    /* with less room: the most recent entries */
    assert_int_equal(kq_log_epochs(f->log, e, 1), 1);
    assert_int_equal(e[0].epoch, 3);
    /* an older epoch is refused and changes nothing */
    assert_int_equal(leader_append(f, 1, 2), -EINVAL);
    assert_int_equal(kq_log_end_offset(f->log), 7);
    assert_string_equal(checkpoint(f), "0\n2\n1 0\n3 5\n");
}

static void test_follower_batches_with_several_epochs(void **state)
{
    tu_fixture *f = *state;
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, 2, 2, 10, 1);
    tu_batch(&w, 2, 2, 1, 10, 2);
    tu_batch(&w, 3, 4, 1, 10, 3);
    tu_batch(&w, 4, 7, 2, 10, 4);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, -1, 0, f->err, sizeof f->err), 0);
    assert_string_equal(checkpoint(f), "0\n3\n2 0\n4 3\n7 4\n");
    /* epochs going backwards inside a follower append are refused */
    kq_writer_reset(&w);
    tu_batch(&w, 6, 8, 1, 10, 5);
    tu_batch(&w, 7, 6, 1, 10, 6);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, -1, 0, f->err, sizeof f->err), -EINVAL);
    assert_int_equal(kq_log_end_offset(f->log), 6);
    assert_string_equal(checkpoint(f), "0\n3\n2 0\n4 3\n7 4\n");
    kq_writer_free(&w);
}

static void test_truncate_updates_checkpoint(void **state)
{
    tu_fixture *f = *state;
    assert_int_equal(leader_append(f, 2, 1), 0); /* 0..1 */
    assert_int_equal(leader_append(f, 2, 2), 0); /* 2..3 */
    assert_int_equal(leader_append(f, 2, 5), 0); /* 4..5 */
    assert_string_equal(checkpoint(f), "0\n3\n1 0\n2 2\n5 4\n");
    assert_int_equal(kq_log_truncate(f->log, 4, f->err, sizeof f->err), 0);
    assert_string_equal(checkpoint(f), "0\n2\n1 0\n2 2\n");
    assert_int_equal(kq_log_truncate(f->log, 2, f->err, sizeof f->err), 0);
    assert_string_equal(checkpoint(f), "0\n1\n1 0\n");
    /* a new leader epoch after truncation */
    assert_int_equal(leader_append(f, 1, 6), 0);
    assert_string_equal(checkpoint(f), "0\n2\n1 0\n6 2\n");
    assert_int_equal(kq_log_epoch_count(f->log), 2);
    assert_int_equal(tu_file_size(tu_path(f->dir, "leader-epoch-checkpoint.tmp")), -1);
}

static void write_checkpoint(tu_fixture *f, const char *text)
{
    int fd = open(tu_path(f->dir, "leader-epoch-checkpoint"), O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void reopen(tu_fixture *f)
{
    kq_log_close(f->log);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
}

/* Without a recovery point (a log from before it existed) the cache is
 * rebuilt from the batches, whatever the file says. */
static void test_rebuilt_without_recovery_point(void **state)
{
    tu_fixture *f = *state;
    assert_int_equal(leader_append(f, 2, 1), 0);
    assert_int_equal(leader_append(f, 2, 4), 0);
    tu_flush_all(f->log);
    kq_log_close(f->log);
    f->log = NULL;
    assert_int_equal(unlink(tu_path(f->dir, "leader-epoch-checkpoint")), 0);
    assert_int_equal(unlink(tu_path(f->dir, KQ_LOG_RECOVERY_POINT_FILE)), 0);
    reopen(f);
    assert_non_null(f->log);
    assert_string_equal(checkpoint(f), "0\n2\n1 0\n4 2\n");
    /* a stale file is replaced by what the batches say */
    kq_log_close(f->log);
    f->log = NULL;
    write_checkpoint(f, "0\n1\n9 0\n");
    assert_int_equal(unlink(tu_path(f->dir, KQ_LOG_RECOVERY_POINT_FILE)), 0);
    reopen(f);
    assert_non_null(f->log);
    assert_string_equal(checkpoint(f), "0\n2\n1 0\n4 2\n");
    raft_epoch_entry e[4];
    assert_int_equal(kq_log_epochs(f->log, e, 4), 2);
    assert_int_equal(e[1].epoch, 4);
    assert_int_equal(e[1].start_offset, 2);
}

/* With a recovery point the file is read back: flushed batches must agree
 * with it, and a missing or unreadable file refuses. */
static void test_checked_below_recovery_point(void **state)
{
    tu_fixture *f = *state;
    assert_int_equal(leader_append(f, 2, 1), 0);
    assert_int_equal(leader_append(f, 2, 4), 0);
    tu_flush_all(f->log);
    kq_log_close(f->log);
    f->log = NULL;
    write_checkpoint(f, "0\n2\n1 0\n3 2\n"); /* epoch 4 from 2, says the log */
    reopen(f);
    assert_null(f->log);
    print_message("refusal: %s\n", f->err);
    assert_non_null(strstr(f->err, "leader epoch 4, which disagrees with leader-epoch-checkpoint"));
    assert_non_null(strstr(f->err, "below the recovery point 4"));
    write_checkpoint(f, "0\n2\n1 0\n4 2\n");
    reopen(f);
    assert_non_null(f->log);
    assert_string_equal(f->err, "");
    kq_log_close(f->log);
    f->log = NULL;
    write_checkpoint(f, "0\n2\n1 0\n4 x\n");
    reopen(f);
    assert_null(f->log);
    assert_non_null(strstr(f->err, "corrupt"));
    assert_non_null(strstr(f->err, "leader-epoch-checkpoint"));
    assert_int_equal(unlink(tu_path(f->dir, "leader-epoch-checkpoint")), 0);
    reopen(f);
    assert_null(f->log);
    assert_non_null(strstr(f->err, "leader-epoch-checkpoint"));
    assert_non_null(strstr(f->err, "refusing"));
}

/* Above the recovery point a batch whose epoch the file does not have was
 * appended by a run that crashed before it recorded the epoch: cut. */
static void test_unrecorded_epoch_above_recovery_point(void **state)
{
    tu_fixture *f = *state;
    assert_int_equal(leader_append(f, 2, 1), 0);
    tu_flush_all(f->log);
    assert_int_equal(leader_append(f, 2, 4), 0); /* 2..3, never flushed */
    kq_log_close(f->log);
    f->log = NULL;
    write_checkpoint(f, "0\n1\n1 0\n");
    reopen(f);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "above the recovery point 2"));
    assert_non_null(strstr(f->err, "leader epoch 4"));
    assert_int_equal(kq_log_end_offset(f->log), 2);
    assert_string_equal(checkpoint(f), "0\n1\n1 0\n");
}

/* A follower append of a negative epoch after one >= 0 is refused: the
 * cache could not record it, so recovery and reads could not check it. */
static void test_negative_epoch_after_epoch_refused(void **state)
{
    tu_fixture *f = *state;
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, -1, 1, 10, 1); /* before any epoch: fine */
    tu_batch(&w, 1, 3, 1, 10, 2);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, -1, 0, f->err, sizeof f->err), 0);
    kq_writer_reset(&w);
    tu_batch(&w, 2, -1, 1, 10, 3);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, -1, 0, f->err, sizeof f->err), -EINVAL);
    kq_writer_free(&w);
    assert_int_equal(kq_log_end_offset(f->log), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_empty_log, setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_new_epochs_written, setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_follower_batches_with_several_epochs,
                                        setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_truncate_updates_checkpoint, setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_rebuilt_without_recovery_point, setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_checked_below_recovery_point, setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_unrecorded_epoch_above_recovery_point, setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_negative_epoch_after_epoch_refused, setup,
                                        tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
