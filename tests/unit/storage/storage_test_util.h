/* Helpers shared by the storage tests: temp dirs and test batches. */
#ifndef STORAGE_TEST_UTIL_H
#define STORAGE_TEST_UTIL_H

#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kq/buf.h"
#include "kq/log.h"
#include "kq/record.h"

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void tu_rm_rf(const char *dir)
{
    nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void tu_mkdtemp(char *out, size_t len)
{
    snprintf(out, len, "/tmp/kq-storage-XXXXXX");
    if (!mkdtemp(out))
        abort();
}

/* Per-test state: a fresh temp dir and the log a test opens in it (if any). */
typedef struct tu_fixture {
    char dir[64];
    char err[1024];
    kq_log *log;
} tu_fixture;

/* cmocka setup/teardown for a tu_fixture; teardown closes the log and
 * removes the dir. */
static inline int tu_setup(void **state)
{
    tu_fixture *f = calloc(1, sizeof *f);
    tu_mkdtemp(f->dir, sizeof f->dir);
    *state = f;
    return 0;
}

static inline int tu_teardown(void **state)
{
    tu_fixture *f = *state;
    kq_log_close(f->log);
    tu_rm_rf(f->dir);
    free(f);
    return 0;
}

/* Appends one uncompressed batch of n records with value_size-byte values
 * (filled with a pattern derived from seed) to w. */
static inline void tu_batch(kq_writer *w, int64_t base, int32_t epoch, int n, size_t value_size,
                            int seed)
{
    record recs[64];
    static uint8_t vals[64][2048];
    if (n > 64 || value_size > 2048)
        abort();
    for (int i = 0; i < n; i++) {
        for (size_t k = 0; k < value_size; k++)
            vals[i][k] = (uint8_t)(seed * 31 + i * 7 + (int)k);
        memset(&recs[i], 0, sizeof recs[i]);
        recs[i].key.len = -1;
        recs[i].value.ptr = vals[i];
        recs[i].value.len = (int32_t)value_size;
    }
    record_batch_builder_args a = {
        .base_offset = base,
        .partition_leader_epoch = epoch,
        .base_timestamp = 1600000000000 + seed,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .records = recs,
        .record_count = n,
    };
    if (!record_batch_build(w, &a))
        abort();
}

static inline char *tu_path(const char *dir, const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/" KQ_LOG_PARTITION_DIR "/%s", dir, name);
    return p;
}

static inline char *tu_seg_path(const char *dir, int64_t base, const char *ext)
{
    char name[64];
    snprintf(name, sizeof name, "%020" PRId64 "%s", base, ext);
    return tu_path(dir, name);
}

static inline long tu_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Reads a whole small file into buf (NUL-terminated); returns its length or -1. */
static inline long tu_read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return (long)n;
}

static inline void tu_flush_all(kq_log *log)
{
    kq_log_flush_job *job = NULL;
    if (kq_log_flush_begin(log, &job) != 0)
        abort();
    if (job) {
        if (kq_log_flush_run(job) != 0)
            abort();
        kq_log_flush_end(log, job);
    }
}

#endif
