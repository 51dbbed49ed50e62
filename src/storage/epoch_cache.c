/* Leader epoch cache and the leader-epoch-checkpoint file (text: "0", the
 * entry count, then one "epoch startOffset" line per entry). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage_internal.h"

/* Appends (epoch, offset) to the cache, growing it. 0 or -ENOMEM. */
static int epoch_push(kq_log *log, int32_t epoch, int64_t offset)
{
    if (log->epoch_count == log->epoch_cap) {
        int cap = log->epoch_cap ? log->epoch_cap * 2 : 16;
        raft_epoch_entry *e = realloc(log->epochs, (size_t)cap * sizeof *e);
        if (!e)
            return -ENOMEM;
        log->epochs = e;
        log->epoch_cap = cap;
    }
    log->epochs[log->epoch_count++] = (raft_epoch_entry){epoch, offset};
    return 0;
}

int storage_epoch_assign(kq_log *log, int32_t epoch, int64_t offset)
{
    if (epoch < 0) /* no epoch recorded (as Kafka: only epochs >= 0 are cached) */
        return log->epoch_count > 0 ? -EINVAL : 0;
    if (log->epoch_count > 0) {
        int32_t latest = log->epochs[log->epoch_count - 1].epoch;
        if (epoch == latest)
            return 0;
        if (epoch < latest)
            return -EINVAL;
    }
    return epoch_push(log, epoch, offset) < 0 ? -ENOMEM : 1;
}

/* Index of the last entry starting at or below offset, or -1. */
static int entry_at(const raft_epoch_entry *e, int n, int64_t offset)
{
    int lo = 0, hi = n;
    while (lo < hi) { /* first entry starting above offset */
        int mid = lo + (hi - lo) / 2;
        if (e[mid].start_offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

bool storage_epoch_agrees(const raft_epoch_entry *e, int n, int64_t base, int64_t last,
                          int32_t epoch)
{
    if (epoch < 0)
        return entry_at(e, n, last) < 0;
    int i = entry_at(e, n, base);
    return i >= 0 && e[i].epoch == epoch && (i + 1 == n || e[i + 1].start_offset > last);
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

/* Parses a decimal integer in [min, max] at *p followed by end; advances. */
static bool parse_num(const char **p, int64_t min, int64_t max, char end, int64_t *out)
{
    const char *s = *p;
    bool neg = *s == '-';
    s += neg;
    int64_t v = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
        if (v > (INT64_MAX - (*s - '0')) / 10)
            return false;
        v = v * 10 + (*s - '0');
    }
    if (digits == 0 || *s != end)
        return false;
    v = neg ? -v : v;
    if (v < min || v > max)
        return false;
    *out = v;
    *p = s + 1;
    return true;
}

/* Fills the cache from the checkpoint text; false if malformed. */
static bool parse_checkpoint(kq_log *log, const char *text, bool *oom)
{
    const char *p = text;
    int64_t version, count, epoch, offset;
    if (!parse_num(&p, 0, 0, '\n', &version) || !parse_num(&p, 0, INT32_MAX, '\n', &count))
        return false;
    for (int64_t i = 0; i < count; i++) {
        if (!parse_num(&p, 0, INT32_MAX, ' ', &epoch) ||
            !parse_num(&p, 0, INT64_MAX, '\n', &offset))
            return false;
        const raft_epoch_entry *prev = log->epoch_count ? &log->epochs[log->epoch_count - 1] : NULL;
        if (prev && (epoch <= prev->epoch || offset <= prev->start_offset))
            return false;
        if (epoch_push(log, (int32_t)epoch, offset) < 0) {
            *oom = true;
            return false;
        }
    }
    return *p == '\0';
}

int storage_epoch_checkpoint_load(kq_log *log, char *errbuf, size_t errlen)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", log->dir, STORAGE_EPOCH_CHECKPOINT);
    if (n < 0 || (size_t)n >= sizeof path)
        return -ENAMETOOLONG;
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd < 0) {
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    uint64_t size = 0;
    char *text = NULL;
    int rc = fs->size(fs->ctx, fd, &size);
    if (rc == 0 && size > STORAGE_EPOCH_CHECKPOINT_BYTES_MAX)
        rc = -EUCLEAN;
    if (rc == 0 && !(text = malloc((size_t)size + 1)))
        rc = -ENOMEM;
    if (rc == 0 && (rc = storage_pread_all(fs, fd, text, (size_t)size, 0)) == 0) {
        text[size] = '\0';
        bool oom = false;
        if (strlen(text) != size || !parse_checkpoint(log, text, &oom))
            rc = oom ? -ENOMEM : -EUCLEAN;
    }
    fs->close(fs->ctx, fd);
    free(text);
    if (rc == -EUCLEAN)
        storage_errf(errbuf, errlen, "corrupt %s: not a list of ascending epochs", path);
    else if (rc < 0)
        storage_errf(errbuf, errlen, "cannot read %s: %s", path, strerror(-rc));
    return rc;
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
