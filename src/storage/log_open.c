/* Opening and recovering the log directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kq/record.h"
#include "storage_internal.h"

#define SCAN_CHUNK (1u << 20)

/* A window of a segment file read in chunks. */
typedef struct scan_buf {
    int fd;
    uint64_t file_size;
    uint8_t *data;
    size_t cap;
    uint64_t off; /* file position of data[0] */
    size_t len;
} scan_buf;

/* Makes [pos, pos+need) available; need <= file_size - pos. */
static int scan_fill(scan_buf *b, uint64_t pos, size_t need, const uint8_t **out)
{
    if (!(pos >= b->off && pos + need <= b->off + b->len)) {
        size_t want = need > SCAN_CHUNK ? need : SCAN_CHUNK;
        if (want > b->cap) {
            uint8_t *d = realloc(b->data, want);
            if (!d)
                return -ENOMEM;
            b->data = d;
            b->cap = want;
        }
        uint64_t left = b->file_size - pos;
        size_t n = left < b->cap ? (size_t)left : b->cap;
        int rc = storage_pread_all(b->fd, b->data, n, pos);
        if (rc < 0)
            return rc;
        b->off = pos;
        b->len = n;
    }
    *out = b->data + (pos - b->off);
    return 0;
}

/* Checks the batch at pos: RECORD_OK and its header, or why not. A read
 * error is reported through *io_err. */
static enum record_status check_at(scan_buf *b, uint64_t pos, record_batch_header *h,
                                   int *io_err)
{
    uint64_t avail = b->file_size - pos;
    const uint8_t *p;
    *io_err = 0;
    if (avail < RECORD_BATCH_LOG_OVERHEAD)
        return RECORD_TRUNCATED;
    if ((*io_err = scan_fill(b, pos, RECORD_BATCH_LOG_OVERHEAD, &p)) < 0)
        return RECORD_TRUNCATED;
    int32_t length = (int32_t)storage_be32(p + 8);
    if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD ||
        (uint32_t)length > RECORD_BATCH_BYTES_MAX)
        return RECORD_BAD_LENGTH;
    size_t size = (size_t)length + RECORD_BATCH_LOG_OVERHEAD;
    if (size > avail)
        return RECORD_TRUNCATED;
    if ((*io_err = scan_fill(b, pos, size, &p)) < 0)
        return RECORD_TRUNCATED;
    return record_batch_check(p, size, h);
}

/* The batch size claimed at pos, or 0 if unknown / not inside the file. */
static uint64_t claimed_size(scan_buf *b, uint64_t pos)
{
    const uint8_t *p;
    if (b->file_size - pos < RECORD_BATCH_LOG_OVERHEAD ||
        scan_fill(b, pos, RECORD_BATCH_LOG_OVERHEAD, &p) < 0)
        return 0;
    int32_t length = (int32_t)storage_be32(p + 8);
    if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD ||
        (uint32_t)length > RECORD_BATCH_BYTES_MAX)
        return 0;
    return (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD;
}

static int load_index(kq_log *log, storage_segment *seg, bool keep_open, char *errbuf,
                      size_t errlen)
{
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, seg->base_offset, ".index", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    size_t want = seg->index_count * 8;
    bool same = false;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_size == want) {
        same = true;
        uint8_t buf[8 * 256];
        for (size_t i = 0; same && i < seg->index_count; i += 256) {
            size_t n = seg->index_count - i < 256 ? seg->index_count - i : 256;
            if (storage_pread_all(fd, buf, 8 * n, 8 * (uint64_t)i) < 0) {
                same = false;
                break;
            }
            for (size_t j = 0; j < n; j++) {
                const storage_index_entry *e = &seg->index[i + j];
                if (storage_be32(buf + 8 * j) != (uint32_t)e->rel_offset ||
                    storage_be32(buf + 8 * j + 4) != (uint32_t)e->position) {
                    same = false;
                    break;
                }
            }
        }
    }
    seg->index_fd = fd;
    if (!same) { /* missing, short, stale or preallocated by Kafka: rebuild */
        seg->index_written = 0;
        int rc = ftruncate(fd, 0) < 0 ? -errno : storage_index_sync(log, seg, errbuf, errlen);
        if (rc < 0) {
            storage_errf(errbuf, errlen, "cannot rebuild %s: %s", path, strerror(-rc));
            return rc;
        }
    } else {
        seg->index_written = seg->index_count;
    }
    if (!keep_open) {
        close(seg->index_fd);
        seg->index_fd = -1;
    }
    return 0;
}

/* Scans one segment, filling its size, end offset and index. */
/* may_be_tail: this segment is the last one holding any valid batch, so a
 * failure with nothing valid after it is a torn tail (*torn is set). */
static int recover_segment(kq_log *log, storage_segment *seg, bool may_be_tail, bool *torn,
                           char *errbuf, size_t errlen, char *note, size_t notelen)
{
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, seg->base_offset, ".log", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    struct stat st;
    if (fstat(seg->fd, &st) < 0) {
        int e = errno;
        storage_errf(errbuf, errlen, "cannot stat %s: %s", path, strerror(e));
        return -e;
    }
    scan_buf b = {.fd = seg->fd, .file_size = (uint64_t)st.st_size};
    uint64_t pos = 0;
    int64_t next = seg->base_offset;
    int rc = 0;
    while (pos < b.file_size) {
        record_batch_header h;
        int io_err;
        enum record_status s = check_at(&b, pos, &h, &io_err);
        if (io_err < 0) {
            storage_errf(errbuf, errlen, "cannot read %s at position %" PRIu64 ": %s", path,
                         pos, strerror(-io_err));
            rc = io_err;
            goto out;
        }
        if (s != RECORD_OK) {
            uint64_t size = claimed_size(&b, pos);
            bool valid_after = false;
            if (size > 0 && pos + size < b.file_size) {
                record_batch_header h2;
                valid_after = check_at(&b, pos + size, &h2, &io_err) == RECORD_OK;
            }
            if (!may_be_tail || valid_after) {
                storage_errf(errbuf, errlen,
                             "corrupt log %s: %s batch at position %" PRIu64 " (offset %" PRId64
                             "), before the tail of the log; refusing to open",
                             path, record_status_name(s), pos, next);
                rc = -EUCLEAN;
                goto out;
            }
            if (ftruncate(seg->fd, (off_t)pos) < 0 || fdatasync(seg->fd) < 0) {
                rc = -errno;
                storage_errf(errbuf, errlen, "cannot truncate torn tail of %s: %s", path,
                             strerror(-rc));
                goto out;
            }
            snprintf(note, notelen,
                     "truncated torn tail of %s at position %" PRIu64 " (%" PRIu64
                     " bytes dropped: %s batch at offset %" PRId64 ")",
                     path, pos, b.file_size - pos, record_status_name(s), next);
            *torn = true;
            break;
        }
        if (h.base_offset != next || h.last_offset_delta < 0 ||
            h.base_offset > INT64_MAX - h.last_offset_delta - 1 ||
            record_batch_last_offset(&h) - seg->base_offset > INT32_MAX ||
            pos > INT32_MAX) {
            storage_errf(errbuf, errlen,
                         "corrupt log %s: batch at position %" PRIu64 " has offsets %" PRId64
                         "..%" PRId64 ", expected base offset %" PRId64 "; refusing to open",
                         path, pos, h.base_offset, h.base_offset + h.last_offset_delta, next);
            rc = -EUCLEAN;
            goto out;
        }
        int e = storage_epoch_assign(log, h.partition_leader_epoch, h.base_offset);
        if (e == -EINVAL) {
            storage_errf(errbuf, errlen,
                         "corrupt log %s: batch at position %" PRIu64 " has leader epoch %" PRId32
                         " below an earlier batch's; refusing to open",
                         path, pos, h.partition_leader_epoch);
            rc = -EUCLEAN;
            goto out;
        }
        uint64_t size = record_batch_size(&h);
        if (e < 0 || storage_segment_note_batch(seg, pos, size, record_batch_last_offset(&h)) < 0) {
            storage_errf(errbuf, errlen, "out of memory");
            rc = -ENOMEM;
            goto out;
        }
        next = record_batch_last_offset(&h) + 1;
        pos += size;
    }
    seg->size = pos;
    seg->end_offset = next;
    if (fdatasync(seg->fd) < 0) { /* it may hold data a crashed process never flushed */
        rc = -errno;
        storage_errf(errbuf, errlen, "cannot fsync %s: %s", path, strerror(-rc));
    }
out:
    free(b.data);
    return rc;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A name of 20 digits followed by ext; fills *base. */
static bool parse_name(const char *name, const char *ext, int64_t *base)
{
    size_t el = strlen(ext);
    if (strlen(name) != 20 + el || strcmp(name + 20, ext) != 0)
        return false;
    int64_t v = 0;
    for (int i = 0; i < 20; i++) {
        if (name[i] < '0' || name[i] > '9' || v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (name[i] - '0');
    }
    *base = v;
    return true;
}

/* Lists the segment base offsets (sorted) and removes leftovers: index files
 * without a segment and an interrupted checkpoint write. */
static int list_segments(kq_log *log, int64_t **bases_out, size_t *count_out, char *errbuf,
                         size_t errlen)
{
    DIR *d = opendir(log->dir);
    if (!d) {
        int e = errno;
        storage_errf(errbuf, errlen, "cannot open directory %s: %s", log->dir, strerror(e));
        return -e;
    }
    int64_t *bases = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int64_t base;
        char path[STORAGE_PATH_MAX];
        if (parse_name(de->d_name, ".log", &base)) {
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                int64_t *nb = realloc(bases, cap * sizeof *nb);
                if (!nb) {
                    rc = -ENOMEM;
                    break;
                }
                bases = nb;
            }
            bases[n++] = base;
        } else if (parse_name(de->d_name, ".index", &base)) {
            if (storage_segment_path(log, base, ".log", path, sizeof path) == 0 &&
                access(path, F_OK) < 0 && errno == ENOENT &&
                storage_segment_path(log, base, ".index", path, sizeof path) == 0)
                unlink(path);
        } else if (strcmp(de->d_name, STORAGE_EPOCH_CHECKPOINT ".tmp") == 0) {
            if (snprintf(path, sizeof path, "%s/%s", log->dir, de->d_name) < (int)sizeof path)
                unlink(path);
        }
    }
    closedir(d);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "out of memory");
        free(bases);
        return rc;
    }
    if (n > 1)
        qsort(bases, n, sizeof *bases, cmp_i64);
    *bases_out = bases;
    *count_out = n;
    return 0;
}

/* Whether the segment file's first batch is whole and CRC-valid. */
static bool starts_valid(const kq_log *log, int64_t base)
{
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, base, ".log", path, sizeof path) < 0)
        return true;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true; /* let the scan report it */
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) == 0) {
        scan_buf b = {.fd = fd, .file_size = (uint64_t)st.st_size};
        record_batch_header h;
        int io_err;
        ok = check_at(&b, 0, &h, &io_err) == RECORD_OK || io_err < 0;
        free(b.data);
    }
    close(fd);
    return ok;
}

/* Deletes segments holding nothing valid after a torn tail. */
static int drop_segments(kq_log *log, const int64_t *bases, size_t count, char *errbuf,
                         size_t errlen, char *note, size_t notelen)
{
    for (size_t i = 0; i < count; i++) {
        char path[STORAGE_PATH_MAX];
        if (storage_segment_path(log, bases[i], ".log", path, sizeof path) < 0)
            return -ENAMETOOLONG;
        if (unlink(path) < 0 && errno != ENOENT) {
            int e = errno;
            storage_errf(errbuf, errlen, "cannot delete %s: %s", path, strerror(e));
            return -e;
        }
        if (storage_segment_path(log, bases[i], ".index", path, sizeof path) == 0)
            unlink(path);
    }
    size_t len = strlen(note);
    if (len < notelen)
        snprintf(note + len, notelen - len, "; deleted %zu later segment(s) holding no valid batch",
                 count);
    return 0;
}

static int recover(kq_log *log, char *errbuf, size_t errlen, char *note, size_t notelen)
{
    int64_t *bases = NULL;
    size_t n = 0;
    int rc = list_segments(log, &bases, &n, errbuf, errlen);
    if (rc < 0)
        return rc;
    /* last_valid: the last segment whose first batch is valid. A crash right
     * after a roll can leave later segments empty or unwritten garbage; the
     * torn tail can then be in last_valid (or the segment just before an
     * empty one), and the later segments are deleted with it. */
    size_t last_valid = 0;
    for (size_t i = n; i-- > 0;) {
        if (starts_valid(log, bases[i])) {
            last_valid = i;
            break;
        }
    }
    bool torn = false;
    for (size_t i = 0; i < n && rc == 0 && !torn; i++) {
        char path[STORAGE_PATH_MAX];
        storage_segment seg = {.base_offset = bases[i], .index_fd = -1};
        if (i > 0 && bases[i] != log->segs[i - 1].end_offset) {
            storage_errf(errbuf, errlen,
                         "corrupt log %s: segment %020" PRId64 ".log starts at offset %" PRId64
                         " but the previous segment ends at %" PRId64 "; refusing to open",
                         log->dir, bases[i], bases[i], log->segs[i - 1].end_offset);
            rc = -EUCLEAN;
            break;
        }
        if ((rc = storage_segment_path(log, bases[i], ".log", path, sizeof path)) < 0)
            break;
        seg.fd = open(path, O_RDWR | O_CLOEXEC);
        if (seg.fd < 0) {
            rc = -errno;
            storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-rc));
            break;
        }
        rc = recover_segment(log, &seg, i >= last_valid, &torn, errbuf, errlen, note, notelen);
        if (rc == 0)
            rc = load_index(log, &seg, torn || i + 1 == n, errbuf, errlen);
        if (rc == 0 && torn && i + 1 < n)
            rc = drop_segments(log, bases + i + 1, n - i - 1, errbuf, errlen, note, notelen);
        if (rc == 0 && (rc = storage_segment_push(log, &seg)) < 0)
            storage_errf(errbuf, errlen, "out of memory");
        if (rc < 0)
            storage_segment_release(&seg);
    }
    free(bases);
    if (rc == 0 && log->seg_count == 0)
        rc = storage_segment_create(log, 0, errbuf, errlen);
    return rc;
}

kq_log *kq_log_open(const char *log_dir, uint64_t segment_bytes, char *errbuf, size_t errlen)
{
    if (errbuf && errlen)
        errbuf[0] = '\0';
    kq_log *log = calloc(1, sizeof *log);
    if (!log) {
        storage_errf(errbuf, errlen, "out of memory");
        return NULL;
    }
    log->dir_fd = -1;
    if (segment_bytes == 0 || segment_bytes > INT32_MAX)
        segment_bytes = INT32_MAX; /* positions in the index are int32 */
    log->segment_bytes = segment_bytes;
    int n = snprintf(log->dir, sizeof log->dir, "%s/%s", log_dir, KQ_LOG_PARTITION_DIR);
    if (n < 0 || (size_t)n >= sizeof log->dir - 32) {
        storage_errf(errbuf, errlen, "log directory path too long: %s", log_dir);
        free(log);
        return NULL;
    }
    int rc = storage_mkdirs(log->dir);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot create %s: %s", log->dir, strerror(-rc));
        free(log);
        return NULL;
    }
    log->dir_fd = open(log->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (log->dir_fd < 0) {
        storage_errf(errbuf, errlen, "cannot open %s: %s", log->dir, strerror(errno));
        free(log);
        return NULL;
    }
    char note[STORAGE_PATH_MAX + 256] = "";
    rc = recover(log, errbuf, errlen, note, sizeof note);
    if (rc == 0 && fsync(log->dir_fd) < 0) {
        rc = -errno;
        storage_errf(errbuf, errlen, "cannot fsync %s: %s", log->dir, strerror(-rc));
    }
    if (rc == 0)
        rc = storage_epoch_checkpoint_sync(log, errbuf, errlen);
    if (rc < 0) {
        log->failed = true; /* close without writing anything */
        kq_log_close(log);
        return NULL;
    }
    log->dir_dirty = false;
    for (size_t i = 0; i < log->seg_count; i++)
        log->segs[i].dirty = false;
    log->flushed_offset = kq_log_end_offset(log);
    log->trunc_floor = INT64_MAX;
    if (errbuf && errlen)
        snprintf(errbuf, errlen, "%s", note);
    return log;
}
