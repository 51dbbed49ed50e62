/* Opening and recovering the log directory. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "storage_internal.h"

#define SCAN_CHUNK (1u << 20)

/* A window of a segment file read in chunks. */
typedef struct scan_buf {
    const kq_fs *fs;
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
        int rc = storage_pread_all(b->fs, b->fd, b->data, n, pos);
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

/* Whether the .index file open as fd holds exactly seg's entries. */
static bool index_file_matches(const kq_fs *fs, int fd, const storage_segment *seg)
{
    uint64_t size;
    if (fs->size(fs->ctx, fd, &size) < 0 || size != seg->index_count * 8)
        return false;
    uint8_t buf[8 * 256];
    for (size_t i = 0; i < seg->index_count; i += 256) {
        size_t n = seg->index_count - i < 256 ? seg->index_count - i : 256;
        if (storage_pread_all(fs, fd, buf, 8 * n, 8 * (uint64_t)i) < 0)
            return false;
        for (size_t j = 0; j < n; j++) {
            const storage_index_entry *e = &seg->index[i + j];
            if (storage_be32(buf + 8 * j) != (uint32_t)e->rel_offset ||
                storage_be32(buf + 8 * j + 4) != (uint32_t)e->position)
                return false;
        }
    }
    return true;
}

static int load_index(kq_log *log, storage_segment *seg, bool keep_open, char *errbuf,
                      size_t errlen)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, seg->base_offset, ".index", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    int fd = fs->open(fs->ctx, path, KQ_FS_WRITE | KQ_FS_CREATE);
    if (fd < 0) {
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    seg->index_fd = fd;
    if (!index_file_matches(fs, fd, seg)) {
        /* missing, short, stale or preallocated by Kafka: rebuild */
        seg->index_written = 0;
        int rc = fs->ftruncate(fs->ctx, fd, 0);
        if (rc == 0)
            rc = storage_index_sync(log, seg, errbuf, errlen);
        if (rc < 0) {
            storage_errf(errbuf, errlen, "cannot rebuild %s: %s", path, strerror(-rc));
            return rc;
        }
    } else {
        seg->index_written = seg->index_count;
    }
    if (!keep_open) {
        fs->close(fs->ctx, seg->index_fd);
        seg->index_fd = -1;
    }
    return 0;
}

/* Where recovery reports: err for a refusal, note for what it repaired. */
typedef struct report {
    char *err;
    size_t errlen;
    char *note;
    size_t notelen;
} report;

/* The last offset a header claims, for a refusal message only: base + delta
 * of garbage bytes can overflow int64 (undefined behaviour), so it saturates. */
static int64_t claimed_last_offset(const record_batch_header *h)
{
    if (h->last_offset_delta > 0 && h->base_offset > INT64_MAX - h->last_offset_delta)
        return INT64_MAX;
    if (h->last_offset_delta < 0 && h->base_offset < INT64_MIN - h->last_offset_delta)
        return INT64_MIN;
    return h->base_offset + h->last_offset_delta;
}

/* Checks a CRC-valid batch at pos against the scan so far (offsets follow
 * on, epochs never decrease) and records it in the epoch cache and index.
 * 0, or -EUCLEAN / -ENOMEM with r->err filled. */
static int accept_batch(kq_log *log, storage_segment *seg, const char *path, uint64_t pos,
                        const record_batch_header *h, int64_t next, report *r)
{
    if (h->base_offset != next || h->last_offset_delta < 0 ||
        h->base_offset > INT64_MAX - h->last_offset_delta - 1 ||
        record_batch_last_offset(h) - seg->base_offset > INT32_MAX || pos > INT32_MAX) {
        storage_errf(r->err, r->errlen,
                     "corrupt log %s: batch at position %" PRIu64 " has offsets %" PRId64
                     "..%" PRId64 ", expected base offset %" PRId64 "; refusing to open",
                     path, pos, h->base_offset, claimed_last_offset(h), next);
        return -EUCLEAN;
    }
    int e = storage_epoch_assign(log, h->partition_leader_epoch, h->base_offset);
    if (e == -EINVAL) {
        storage_errf(r->err, r->errlen,
                     "corrupt log %s: batch at position %" PRIu64 " has leader epoch %" PRId32
                     " below an earlier batch's; refusing to open",
                     path, pos, h->partition_leader_epoch);
        return -EUCLEAN;
    }
    if (e < 0 || storage_segment_note_batch(seg, pos, record_batch_size(h),
                                            record_batch_last_offset(h)) < 0) {
        storage_errf(r->err, r->errlen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

/* The first batch failing its checks at pos (status s): a torn tail when
 * may_be_tail and no valid batch follows where its header says, then cut
 * (0, note filled); anything else refuses (-EUCLEAN). */
static int on_bad_batch(kq_log *log, scan_buf *b, const char *path, uint64_t pos, int64_t next,
                        enum record_status s, bool may_be_tail, report *r)
{
    uint64_t size = claimed_size(b, pos);
    bool valid_after = false;
    if (size > 0 && pos + size < b->file_size) {
        record_batch_header h2;
        int io_err;
        valid_after = check_at(b, pos + size, &h2, &io_err) == RECORD_OK;
    }
    if (!may_be_tail || valid_after) {
        storage_errf(r->err, r->errlen,
                     "corrupt log %s: %s batch at position %" PRIu64 " (offset %" PRId64
                     "), before the tail of the log; refusing to open",
                     path, record_status_name(s), pos, next);
        return -EUCLEAN;
    }
    const kq_fs *fs = log->fs;
    int rc = fs->ftruncate(fs->ctx, b->fd, pos);
    /* The mutant leaves the cut in the page cache only: a crash before the
     * next flush can bring the torn bytes back. */
    if (rc == 0 && !(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC))
        rc = fs->fdatasync(fs->ctx, b->fd);
    if (rc < 0) {
        storage_errf(r->err, r->errlen, "cannot truncate torn tail of %s: %s", path,
                     strerror(-rc));
        return rc;
    }
    snprintf(r->note, r->notelen,
             "truncated torn tail of %s at position %" PRIu64 " (%" PRIu64
             " bytes dropped: %s batch at offset %" PRId64 ")",
             path, pos, b->file_size - pos, record_status_name(s), next);
    return 0;
}

/* Scans one segment, filling its size, end offset and index.
 * may_be_tail: this segment is the last one holding any valid batch, so a
 * failure with nothing valid after it is a torn tail (*torn is set). */
static int recover_segment(kq_log *log, storage_segment *seg, bool may_be_tail, bool *torn,
                           report *r)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, seg->base_offset, ".log", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    scan_buf b = {.fs = fs, .fd = seg->fd};
    int rc = fs->size(fs->ctx, seg->fd, &b.file_size);
    if (rc < 0) {
        storage_errf(r->err, r->errlen, "cannot stat %s: %s", path, strerror(-rc));
        return rc;
    }
    uint64_t pos = 0;
    int64_t next = seg->base_offset;
    while (pos < b.file_size && rc == 0) {
        record_batch_header h;
        int io_err;
        enum record_status s = check_at(&b, pos, &h, &io_err);
        if (io_err < 0) {
            storage_errf(r->err, r->errlen, "cannot read %s at position %" PRIu64 ": %s", path,
                         pos, strerror(-io_err));
            rc = io_err;
        } else if (s != RECORD_OK) {
            rc = on_bad_batch(log, &b, path, pos, next, s, may_be_tail, r);
            *torn = rc == 0;
            break;
        } else if ((rc = accept_batch(log, seg, path, pos, &h, next, r)) == 0) {
            next = record_batch_last_offset(&h) + 1;
            pos += record_batch_size(&h);
        }
    }
    free(b.data);
    if (rc < 0)
        return rc;
    seg->size = pos;
    seg->end_offset = next;
    /* It may hold data a crashed process never flushed. */
    if (!(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC) &&
        (rc = fs->fdatasync(fs->ctx, seg->fd)) < 0)
        storage_errf(r->err, r->errlen, "cannot fsync %s: %s", path, strerror(-rc));
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

/* What a directory listing found. */
typedef struct listing {
    int64_t *logs; /* bases of %020d.log files */
    size_t log_count, log_cap;
    int64_t *indexes; /* bases of %020d.index files */
    size_t index_count, index_cap;
    bool checkpoint_tmp;
    bool oom;
} listing;

static int push_base(int64_t **v, size_t *n, size_t *cap, int64_t base)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        int64_t *nv = realloc(*v, ncap * sizeof *nv);
        if (!nv)
            return -ENOMEM;
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = base;
    return 0;
}

static int on_dir_entry(void *arg, const char *name)
{
    listing *l = arg;
    int64_t base;
    int rc = 0;
    if (parse_name(name, ".log", &base))
        rc = push_base(&l->logs, &l->log_count, &l->log_cap, base);
    else if (parse_name(name, ".index", &base))
        rc = push_base(&l->indexes, &l->index_count, &l->index_cap, base);
    else if (strcmp(name, STORAGE_EPOCH_CHECKPOINT ".tmp") == 0)
        l->checkpoint_tmp = true;
    l->oom = rc < 0;
    return rc;
}

/* Removes leftovers: index files without a segment and an interrupted
 * checkpoint write. After the listing, not during it: an fs need not
 * support unlinking under a listing. Best effort, as before the seam. */
static void remove_leftovers(kq_log *log, const listing *l)
{
    char path[STORAGE_PATH_MAX];
    for (size_t i = 0; i < l->index_count; i++) {
        if (bsearch(&l->indexes[i], l->logs, l->log_count, sizeof *l->logs, cmp_i64))
            continue;
        if (storage_segment_path(log, l->indexes[i], ".index", path, sizeof path) == 0)
            log->fs->unlink(log->fs->ctx, path);
    }
    if (l->checkpoint_tmp &&
        snprintf(path, sizeof path, "%s/%s.tmp", log->dir, STORAGE_EPOCH_CHECKPOINT) <
            (int)sizeof path)
        log->fs->unlink(log->fs->ctx, path);
}

/* Lists the segment base offsets (sorted) and removes leftovers. */
static int list_segments(kq_log *log, int64_t **bases_out, size_t *count_out, char *errbuf,
                         size_t errlen)
{
    listing l = {0};
    int rc = log->fs->list_dir(log->fs->ctx, log->dir, on_dir_entry, &l);
    if (rc < 0) {
        if (l.oom)
            storage_errf(errbuf, errlen, "out of memory");
        else
            storage_errf(errbuf, errlen, "cannot open directory %s: %s", log->dir,
                         strerror(-rc));
        free(l.logs);
        free(l.indexes);
        return rc;
    }
    if (l.log_count > 1)
        qsort(l.logs, l.log_count, sizeof *l.logs, cmp_i64);
    remove_leftovers(log, &l);
    free(l.indexes);
    *bases_out = l.logs;
    *count_out = l.log_count;
    return 0;
}

/* Whether the segment file's first batch is whole and CRC-valid. */
static bool starts_valid(const kq_log *log, int64_t base)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, base, ".log", path, sizeof path) < 0)
        return true;
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd < 0)
        return true; /* let the scan report it */
    scan_buf b = {.fs = fs, .fd = fd};
    bool ok = false;
    if (fs->size(fs->ctx, fd, &b.file_size) == 0) {
        record_batch_header h;
        int io_err;
        ok = check_at(&b, 0, &h, &io_err) == RECORD_OK || io_err < 0;
        free(b.data);
    }
    fs->close(fs->ctx, fd);
    return ok;
}

/* Deletes segments holding nothing valid after a torn tail. */
static int drop_segments(kq_log *log, const int64_t *bases, size_t count, report *r)
{
    const kq_fs *fs = log->fs;
    for (size_t i = 0; i < count; i++) {
        char path[STORAGE_PATH_MAX];
        if (storage_segment_path(log, bases[i], ".log", path, sizeof path) < 0)
            return -ENAMETOOLONG;
        int rc = fs->unlink(fs->ctx, path);
        if (rc < 0 && rc != -ENOENT) {
            storage_errf(r->err, r->errlen, "cannot delete %s: %s", path, strerror(-rc));
            return rc;
        }
        if (storage_segment_path(log, bases[i], ".index", path, sizeof path) == 0)
            fs->unlink(fs->ctx, path);
    }
    size_t len = strlen(r->note);
    if (len < r->notelen)
        snprintf(r->note + len, r->notelen - len,
                 "; deleted %zu later segment(s) holding no valid batch", count);
    return 0;
}

/* The index of the last segment whose first batch is valid. A crash right
 * after a roll can leave later segments empty or unwritten garbage; the
 * torn tail can then be in that segment (or the one just before an empty
 * one), and the later segments are deleted with it. */
static size_t last_valid_segment(const kq_log *log, const int64_t *bases, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (starts_valid(log, bases[i]))
            return i;
    return 0;
}

/* Opens and recovers segment i of n; pushes it onto log->segs. */
static int recover_one(kq_log *log, const int64_t *bases, size_t i, size_t n, bool may_be_tail,
                       bool *torn, report *r)
{
    if (i > 0 && bases[i] != log->segs[i - 1].end_offset) {
        storage_errf(r->err, r->errlen,
                     "corrupt log %s: segment %020" PRId64 ".log starts at offset %" PRId64
                     " but the previous segment ends at %" PRId64 "; refusing to open",
                     log->dir, bases[i], bases[i], log->segs[i - 1].end_offset);
        return -EUCLEAN;
    }
    char path[STORAGE_PATH_MAX];
    int rc = storage_segment_path(log, bases[i], ".log", path, sizeof path);
    if (rc < 0)
        return rc;
    storage_segment seg = {.base_offset = bases[i], .index_fd = -1};
    seg.fd = log->fs->open(log->fs->ctx, path, KQ_FS_WRITE);
    if (seg.fd < 0) {
        storage_errf(r->err, r->errlen, "cannot open %s: %s", path, strerror(-seg.fd));
        return seg.fd;
    }
    rc = recover_segment(log, &seg, may_be_tail, torn, r);
    if (rc == 0)
        rc = load_index(log, &seg, *torn || i + 1 == n, r->err, r->errlen);
    if (rc == 0 && *torn && i + 1 < n)
        rc = drop_segments(log, bases + i + 1, n - i - 1, r);
    if (rc == 0 && (rc = storage_segment_push(log, &seg)) < 0)
        storage_errf(r->err, r->errlen, "out of memory");
    if (rc < 0)
        storage_segment_release(log->fs, &seg);
    return rc;
}

static int recover(kq_log *log, report *r)
{
    int64_t *bases = NULL;
    size_t n = 0;
    int rc = list_segments(log, &bases, &n, r->err, r->errlen);
    if (rc < 0)
        return rc;
    size_t last_valid = last_valid_segment(log, bases, n);
    bool torn = false;
    for (size_t i = 0; i < n && rc == 0 && !torn; i++)
        rc = recover_one(log, bases, i, n, i >= last_valid, &torn, r);
    free(bases);
    if (rc == 0 && log->seg_count == 0)
        rc = storage_segment_create(log, 0, r->err, r->errlen);
    return rc;
}

/* A fresh log object for options (nothing opened yet); NULL with errbuf. */
static kq_log *log_new(const kq_log_options *options, char *errbuf, size_t errlen)
{
    if (!options || !options->log_dir) {
        storage_errf(errbuf, errlen, "no log directory given");
        return NULL;
    }
    kq_log *log = calloc(1, sizeof *log);
    if (!log) {
        storage_errf(errbuf, errlen, "out of memory");
        return NULL;
    }
    log->fs = options->fs ? options->fs : kq_fs_posix();
    log->mutants = options->mutants;
    uint64_t segment_bytes = options->segment_bytes;
    if (segment_bytes == 0 || segment_bytes > INT32_MAX)
        segment_bytes = INT32_MAX; /* positions in the index are int32 */
    log->segment_bytes = segment_bytes;
    int n = snprintf(log->dir, sizeof log->dir, "%s/%s", options->log_dir, KQ_LOG_PARTITION_DIR);
    if (n < 0 || (size_t)n >= sizeof log->dir - 32) {
        storage_errf(errbuf, errlen, "log directory path too long: %s", options->log_dir);
        free(log);
        return NULL;
    }
    return log;
}

kq_log *kq_log_open_with(const kq_log_options *options, char *errbuf, size_t errlen)
{
    if (errbuf && errlen)
        errbuf[0] = '\0';
    kq_log *log = log_new(options, errbuf, errlen);
    if (!log)
        return NULL;
    const kq_fs *fs = log->fs;
    int rc = storage_mkdirs(fs, log->dir);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot create %s: %s", log->dir, strerror(-rc));
        free(log);
        return NULL;
    }
    char note[STORAGE_PATH_MAX + 256] = "";
    report r = {.err = errbuf, .errlen = errlen, .note = note, .notelen = sizeof note};
    rc = recover(log, &r);
    /* Creations and deletions by recovery (and by a crashed run) must be
     * durable before the flushed offset is claimed. */
    if (rc == 0 && !(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC) &&
        (rc = fs->fsync_dir(fs->ctx, log->dir)) < 0)
        storage_errf(errbuf, errlen, "cannot fsync %s: %s", log->dir, strerror(-rc));
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

kq_log *kq_log_open(const char *log_dir, uint64_t segment_bytes, char *errbuf, size_t errlen)
{
    kq_log_options options = {
        .fs = kq_fs_posix(), .log_dir = log_dir, .segment_bytes = segment_bytes, .mutants = 0};
    return kq_log_open_with(&options, errbuf, errlen);
}
