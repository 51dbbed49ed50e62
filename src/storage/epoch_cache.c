/* Leader epoch cache and the leader-epoch-checkpoint file (text: "0", the
 * entry count, then one "epoch startOffset" line per entry). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage_internal.h"

int storage_epoch_assign(kq_log *log, int32_t epoch, int64_t offset)
{
    if (epoch < 0)
        return 0; /* no epoch recorded (as Kafka: only epochs >= 0 are cached) */
    if (log->epoch_count > 0) {
        int32_t latest = log->epochs[log->epoch_count - 1].epoch;
        if (epoch == latest)
            return 0;
        if (epoch < latest)
            return -EINVAL;
    }
    if (log->epoch_count == log->epoch_cap) {
        int cap = log->epoch_cap ? log->epoch_cap * 2 : 16;
        raft_epoch_entry *e = realloc(log->epochs, (size_t)cap * sizeof *e);
        if (!e)
            return -ENOMEM;
        log->epochs = e;
        log->epoch_cap = cap;
    }
    log->epochs[log->epoch_count++] = (raft_epoch_entry){epoch, offset};
    return 1;
}

int storage_epoch_truncate(kq_log *log, int64_t offset)
{
    int removed = 0;
    while (log->epoch_count > 0 && log->epochs[log->epoch_count - 1].start_offset >= offset) {
        log->epoch_count--;
        removed++;
    }
    return removed;
}

int kq_log_epochs(const kq_log *log, raft_epoch_entry *out, int max)
{
    if (max <= 0 || log->epoch_count == 0)
        return 0;
    int n = log->epoch_count < max ? log->epoch_count : max;
    memcpy(out, log->epochs + (log->epoch_count - n), (size_t)n * sizeof *out);
    return n;
}

int kq_log_epoch_count(const kq_log *log)
{
    return log->epoch_count;
}

/* Each line is at most 11 + 1 + 20 + 1 bytes. */
#define EPOCH_LINE_MAX 34

static char *render(const kq_log *log, size_t *len_out)
{
    size_t cap = 32 + (size_t)log->epoch_count * EPOCH_LINE_MAX;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t len = (size_t)snprintf(buf, cap, "0\n%d\n", log->epoch_count);
    for (int i = 0; i < log->epoch_count; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%" PRId32 " %" PRId64 "\n",
                                log->epochs[i].epoch, log->epochs[i].start_offset);
    *len_out = len;
    return buf;
}

int storage_epoch_checkpoint_write(const kq_log *log, char *errbuf, size_t errlen)
{
    size_t len;
    char *buf = render(log, &len);
    if (!buf) {
        storage_errf(errbuf, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = storage_atomic_write(log->fs, log->dir, STORAGE_EPOCH_CHECKPOINT, buf, len, errbuf,
                                  errlen);
    free(buf);
    return rc;
}

/* Whether the file at path holds exactly want[0..len). */
static bool file_equals(const kq_fs *fs, const char *path, const char *want, size_t len)
{
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd < 0)
        return false;
    bool same = false;
    uint64_t size;
    if (fs->size(fs->ctx, fd, &size) == 0 && size == len) {
        char *have = malloc(len + 1);
        if (have) {
            same = storage_pread_all(fs, fd, have, len, 0) == 0 && memcmp(have, want, len) == 0;
            free(have);
        }
    }
    fs->close(fs->ctx, fd);
    return same;
}

int storage_epoch_checkpoint_sync(const kq_log *log, char *errbuf, size_t errlen)
{
    size_t len;
    char *want = render(log, &len);
    if (!want) {
        storage_errf(errbuf, errlen, "out of memory");
        return -ENOMEM;
    }
    char path[STORAGE_PATH_MAX];
    bool same = snprintf(path, sizeof path, "%s/%s", log->dir, STORAGE_EPOCH_CHECKPOINT) <
                    (int)sizeof path &&
                file_equals(log->fs, path, want, len);
    free(want);
    return same ? 0 : storage_epoch_checkpoint_write(log, errbuf, errlen);
}
