/* KIP-630 snapshot files (kq/snapshot_file.h) on the real file system:
 * names, the ascending listing and leftover removal, whole-file writes,
 * the chunked transfer into .part with commit and abort, ranged reads, the
 * size bound and deletion. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "kq/snapshot_file.h"
#include "storage_test_util.h"

static const kq_fs *fs(void)
{
    return kq_fs_posix();
}

static raft_snapshot_id sid(int64_t off, int32_t epoch)
{
    return (raft_snapshot_id){.end_offset = off, .epoch = epoch};
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x", 1), 1);
    close(fd);
}

static void make_partition_dir(const char *dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/" KQ_LOG_PARTITION_DIR, dir);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void test_path(void **state)
{
    tu_fixture *f = *state;
    char buf[512], want[512];
    assert_int_equal(kq_snapshot_path(buf, sizeof buf, f->dir, sid(1234, 7), false), 0);
    snprintf(want, sizeof want, "%s/__cluster_metadata-0/00000000000000001234-0000000007.checkpoint",
             f->dir);
    assert_string_equal(buf, want);
    assert_int_equal(kq_snapshot_path(buf, sizeof buf, f->dir, sid(1234, 7), true), 0);
    strcat(want, ".part");
    assert_string_equal(buf, want);
    assert_int_equal(kq_snapshot_path(buf, 10, f->dir, sid(1, 1), false), -ENAMETOOLONG);
    assert_int_equal(kq_snapshot_path(buf, sizeof buf, f->dir, sid(-1, 1), false), -EINVAL);
}

static void test_write_read(void **state)
{
    tu_fixture *f = *state;
    make_partition_dir(f->dir);
    uint8_t data[3000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13);
    char err[256];
    assert_int_equal(kq_snapshot_write_file(fs(), f->dir, sid(100, 3), data, sizeof data, err,
                                            sizeof err), 0);
    assert_int_equal(kq_snapshot_size(fs(), f->dir, sid(100, 3)), 3000);
    assert_int_equal(kq_snapshot_size(fs(), f->dir, sid(100, 4)), -ENOENT);
    char part[512];
    kq_snapshot_path(part, sizeof part, f->dir, sid(100, 3), true);
    assert_int_equal(tu_file_size(part), -1);

    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_read(fs(), f->dir, sid(100, 3), 0, 1000, &w), 1000);
    assert_int_equal(kq_snapshot_read(fs(), f->dir, sid(100, 3), 1000, 5000, &w), 2000);
    assert_int_equal(w.len, 3000);
    assert_memory_equal(w.data, data, 3000);
    assert_int_equal(kq_snapshot_read(fs(), f->dir, sid(100, 3), 3000, 10, &w), 0);
    assert_int_equal(kq_snapshot_read(fs(), f->dir, sid(100, 3), 3001, 10, &w), -ERANGE);
    assert_int_equal(kq_snapshot_read(fs(), f->dir, sid(100, 3), -1, 10, &w), -ERANGE);
    assert_int_equal(kq_snapshot_read(fs(), f->dir, sid(9, 3), 0, 10, &w), -ENOENT);
    kq_writer_free(&w);
    kq_writer_init(&w, 10);
    assert_int_equal(kq_snapshot_read(fs(), f->dir, sid(100, 3), 0, 100, &w), -ENOBUFS);
    kq_writer_free(&w);

    uint8_t *got;
    size_t len;
    assert_int_equal(kq_snapshot_read_all(fs(), f->dir, sid(100, 3), &got, &len, 1 << 20), 0);
    assert_int_equal(len, 3000);
    assert_memory_equal(got, data, 3000);
    free(got);
    assert_int_equal(kq_snapshot_read_all(fs(), f->dir, sid(100, 3), &got, &len, 2999), -EFBIG);
    /* an empty snapshot is fine */
    assert_int_equal(kq_snapshot_write_file(fs(), f->dir, sid(5, 0), NULL, 0, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_read_all(fs(), f->dir, sid(5, 0), &got, &len, 10), 0);
    assert_int_equal(len, 0);
    assert_int_equal(kq_snapshot_delete(fs(), f->dir, sid(5, 0)), 0);
    assert_int_equal(kq_snapshot_delete(fs(), f->dir, sid(5, 0)), -ENOENT);
    assert_int_equal(kq_snapshot_size(fs(), f->dir, sid(5, 0)), -ENOENT);
}

static void test_list(void **state)
{
    tu_fixture *f = *state;
    raft_snapshot_id ids[8];
    /* no directory yet: nothing */
    assert_int_equal(kq_snapshot_list(fs(), f->dir, ids, 8, true), 0);
    make_partition_dir(f->dir);
    const char *names[] = {
        "00000000000000000200-0000000002.checkpoint",
        "00000000000000000100-0000000005.checkpoint",
        "00000000000000000100-0000000003.checkpoint",
        "00000000000000000300-0000000002.checkpoint.part",
        "00000000000000000050-0000000001.checkpoint.deleted",
        "0000000000000000030-0000000002.checkpoint",    /* 19 digits */
        "00000000000000000300-0000000002.checkpointx",
        "00000000000000000300_0000000002.checkpoint",
        "00000000000000000300-00000000a2.checkpoint",
        "99999999999999999999-0000000002.checkpoint",   /* > INT64_MAX */
        "00000000000000000000.log",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        touch(tu_path(f->dir, names[i]));
    assert_int_equal(kq_snapshot_list(fs(), f->dir, ids, 8, false), 3);
    assert_int_equal(ids[0].end_offset, 100);
    assert_int_equal(ids[0].epoch, 3);
    assert_int_equal(ids[1].end_offset, 100);
    assert_int_equal(ids[1].epoch, 5);
    assert_int_equal(ids[2].end_offset, 200);
    assert_true(tu_file_size(tu_path(f->dir, names[3])) >= 0);
    /* more than max: the newest */
    assert_int_equal(kq_snapshot_list(fs(), f->dir, ids, 2, false), 2);
    assert_int_equal(ids[0].epoch, 5);
    assert_int_equal(ids[1].end_offset, 200);
    assert_int_equal(kq_snapshot_list(fs(), f->dir, ids, 8, true), 3);
    assert_int_equal(tu_file_size(tu_path(f->dir, names[3])), -1);
    assert_int_equal(tu_file_size(tu_path(f->dir, names[4])), -1);
    assert_true(tu_file_size(tu_path(f->dir, names[5])) >= 0); /* not ours: kept */
    assert_true(tu_file_size(tu_path(f->dir, names[10])) >= 0);
}

static void test_transfer(void **state)
{
    tu_fixture *f = *state;
    make_partition_dir(f->dir);
    char err[256];
    raft_snapshot_id id = sid(500, 9);
    const uint8_t a[] = "hello ", b[] = "world";
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id, 3, a, 6, err, sizeof err), -ENOENT);
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id, 0, a, 6, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id, 5, b, 5, err, sizeof err), -EINVAL);
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id, 7, b, 5, err, sizeof err), -EINVAL);
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id, 6, b, 5, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_size(fs(), f->dir, id), -ENOENT); /* not committed */
    raft_snapshot_id ids[4];
    assert_int_equal(kq_snapshot_list(fs(), f->dir, ids, 4, false), 0);
    uint8_t *got;
    size_t len;
    assert_int_equal(kq_snapshot_part_read_all(fs(), f->dir, id, &got, &len, 100), 0);
    assert_int_equal(len, 11);
    assert_memory_equal(got, "hello world", 11);
    free(got);
    assert_int_equal(kq_snapshot_part_read_all(fs(), f->dir, id, &got, &len, 10), -EFBIG);
    assert_int_equal(kq_snapshot_part_commit(fs(), f->dir, id, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_size(fs(), f->dir, id), 11);
    assert_int_equal(kq_snapshot_part_read_all(fs(), f->dir, id, &got, &len, 100), -ENOENT);
    assert_int_equal(kq_snapshot_part_commit(fs(), f->dir, id, err, sizeof err), -ENOENT);
    /* restart from 0 truncates; abort removes; abort twice is fine */
    raft_snapshot_id id2 = sid(600, 9);
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id2, 0, a, 6, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id2, 0, b, 5, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_part_read_all(fs(), f->dir, id2, &got, &len, 100), 0);
    assert_int_equal(len, 5);
    free(got);
    assert_int_equal(kq_snapshot_part_abort(fs(), f->dir, id2), 0);
    assert_int_equal(kq_snapshot_part_abort(fs(), f->dir, id2), 0);
    assert_int_equal(kq_snapshot_part_read_all(fs(), f->dir, id2, &got, &len, 100), -ENOENT);
    /* the size bound */
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id2, 0, a, 6, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_part_write(fs(), f->dir, id2, 6, a,
                                            (size_t)KQ_SNAPSHOT_BYTES_MAX, err, sizeof err),
                     -EFBIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_path, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_write_read, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_list, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_transfer, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
