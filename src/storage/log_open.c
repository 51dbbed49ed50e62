/* Opening and recovering the log directory: the listing, the recovery of a
 * log without a recovery point (every batch scanned, a torn tail only at
 * the end), and what every recovery does at the end (cut, delete, rewrite
 * indexes, sync). Recovery from a recovery point is recover_rp.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recover.h"

int storage_cmp_i64(const void *a, const void *b)
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
    bool rp_tmp;
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
    else if (strcmp(name, KQ_LOG_RECOVERY_POINT_FILE ".tmp") == 0)
        l->rp_tmp = true;
    l->oom = rc < 0;
    return rc;
}

static void unlink_in_dir(kq_log *log, const char *name)
{
    char path[STORAGE_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", log->dir, name) < (int)sizeof path)
        log->fs->unlink(log->fs->ctx, path);
}

/* Removes leftovers: index files without a segment and interrupted
 * atomic writes. After the listing, not during it: an fs need not
 * support unlinking under a listing. Best effort, as before the seam. */
static void remove_leftovers(kq_log *log, const listing *l)
{
    char path[STORAGE_PATH_MAX];
    for (size_t i = 0; i < l->index_count; i++) {
        if (l->log_count &&
            bsearch(&l->indexes[i], l->logs, l->log_count, sizeof *l->logs, storage_cmp_i64))
            continue;
        if (storage_segment_path(log, l->indexes[i], ".index", path, sizeof path) == 0)
            log->fs->unlink(log->fs->ctx, path);
    }
    if (l->checkpoint_tmp)
        unlink_in_dir(log, STORAGE_EPOCH_CHECKPOINT ".tmp");
    if (l->rp_tmp)
        unlink_in_dir(log, KQ_LOG_RECOVERY_POINT_FILE ".tmp");
}

/* Lists the segment base offsets (sorted) and removes leftovers. */
static int list_segments(storage_recovery *rc)
{
    kq_log *log = rc->log;
    listing l = {0};
    int r = log->fs->list_dir(log->fs->ctx, log->dir, on_dir_entry, &l);
    if (r < 0) {
        if (l.oom)
            storage_errf(rc->err, rc->errlen, "out of memory");
        else
            storage_errf(rc->err, rc->errlen, "cannot open directory %s: %s", log->dir,
                         strerror(-r));
        free(l.logs);
        free(l.indexes);
        return r;
    }
    if (l.log_count > 1)
        qsort(l.logs, l.log_count, sizeof *l.logs, storage_cmp_i64);
    remove_leftovers(log, &l);
    free(l.indexes);
    rc->bases = l.logs;
    rc->n = l.log_count;
    return 0;
}

int storage_recover_open_segment(storage_recovery *rc, size_t i, storage_segment *seg)
{
    char path[STORAGE_PATH_MAX];
    int r = storage_segment_path(rc->log, rc->bases[i], ".log", path, sizeof path);
    if (r < 0)
        return r;
    *seg = (storage_segment){.base_offset = rc->bases[i], .end_offset = rc->bases[i],
                             .index_fd = -1};
    seg->fd = rc->log->fs->open(rc->log->fs->ctx, path, KQ_FS_WRITE);
    if (seg->fd < 0) {
        storage_errf(rc->err, rc->errlen, "cannot open %s: %s", path, strerror(-seg->fd));
        return seg->fd;
    }
    return 0;
}

/* ---- without a recovery point: every batch scanned */

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
        ok = recover_check_at(&b, 0, b.file_size, &h, &io_err) == RECORD_OK || io_err < 0;
        free(b.data);
    }
    fs->close(fs->ctx, fd);
    return ok;
}

/* The index of the last segment whose first batch is valid. A crash right
 * after a roll can leave later segments empty or unwritten garbage; the
 * torn tail can then be in that segment (or the one just before an empty
 * one), and the later segments are deleted with it. */
static size_t last_valid_segment(const storage_recovery *rc)
{
    for (size_t i = rc->n; i-- > 0;)
        if (starts_valid(rc->log, rc->bases[i]))
            return i;
    return 0;
}

/* The first bad batch in segment i: a torn tail when may_be_tail, its
 * bytes are no valid batch and no valid batch follows where its header
 * says; anything else refuses. */
static int legacy_bad_batch(storage_recovery *rc, rwalk *w, bool may_be_tail)
{
    if (!may_be_tail || !w->bad_bytes || rwalk_valid_after(w)) {
        storage_errf(rc->err, rc->errlen,
                     "corrupt log %s: %s at position %" PRIu64 " (offset %" PRId64
                     "), before the tail of the log; refusing to open",
                     w->path, w->why, w->pos, w->next);
        return -EUCLEAN;
    }
    rc->cut = true;
    rc->cut_pos = w->pos;
    snprintf(rc->note, rc->notelen,
             "truncated torn tail of %s at position %" PRIu64 " (%" PRIu64
             " bytes dropped: %s at offset %" PRId64 ")",
             w->path, w->pos, w->b.file_size - w->pos, w->why, w->next);
    return 0;
}

static int legacy_segment(storage_recovery *rc, size_t i, bool may_be_tail)
{
    kq_log *log = rc->log;
    if (i > 0 && rc->bases[i] != log->segs[i - 1].end_offset) {
        storage_errf(rc->err, rc->errlen,
                     "corrupt log %s: segment %020" PRId64 ".log starts at offset %" PRId64
                     " but the previous segment ends at %" PRId64 "; refusing to open",
                     log->dir, rc->bases[i], rc->bases[i], log->segs[i - 1].end_offset);
        return -EUCLEAN;
    }
    storage_segment seg;
    int r = storage_recover_open_segment(rc, i, &seg);
    if (r < 0)
        return r;
    rwalk w;
    if ((r = rwalk_init(&w, log, &seg, false)) < 0)
        storage_errf(rc->err, rc->errlen, "cannot stat %s: %s", w.path, strerror(-r));
    else if ((r = rwalk_run(&w, w.b.file_size)) < 0)
        storage_errf(rc->err, rc->errlen, "cannot read %s at position %" PRIu64 ": %s", w.path,
                     w.pos, strerror(-r));
    else
        r = r == RWALK_BAD ? legacy_bad_batch(rc, &w, may_be_tail) : 0;
    rwalk_free(&w);
    if (r == 0 && (r = storage_segment_push(log, &seg)) < 0)
        storage_errf(rc->err, rc->errlen, "out of memory");
    if (r < 0)
        storage_segment_release(log->fs, &seg);
    return r;
}

static int recover_legacy(storage_recovery *rc)
{
    size_t last_valid = last_valid_segment(rc);
    int r = 0;
    rc->first_scanned = 0;
    for (size_t i = 0; i < rc->n && r == 0 && !rc->cut; i++)
        r = legacy_segment(rc, i, i >= last_valid);
    return r;
}

/* ---- the end of every recovery */

static void append_note(storage_recovery *rc, const char *fmt, size_t count)
{
    size_t len = strlen(rc->note);
    if (len < rc->notelen)
        snprintf(rc->note + len, rc->notelen - len, fmt, count);
}

/* Deletes the segment files after the last recovered segment. */
static int drop_later_files(storage_recovery *rc)
{
    kq_log *log = rc->log;
    const kq_fs *fs = log->fs;
    for (size_t i = log->seg_count; i < rc->n; i++) {
        char path[STORAGE_PATH_MAX];
        if (storage_segment_path(log, rc->bases[i], ".log", path, sizeof path) < 0)
            return -ENAMETOOLONG;
        int r = fs->unlink(fs->ctx, path);
        if (r < 0 && r != -ENOENT) {
            storage_errf(rc->err, rc->errlen, "cannot delete %s: %s", path, strerror(-r));
            return r;
        }
        if (storage_segment_path(log, rc->bases[i], ".index", path, sizeof path) == 0)
            fs->unlink(fs->ctx, path);
    }
    if (rc->n > log->seg_count)
        append_note(rc, "; deleted %zu later segment(s)", rc->n - log->seg_count);
    return 0;
}

/* Cuts the last segment at rc->cut_pos and makes the cut durable. */
static int apply_cut(storage_recovery *rc)
{
    kq_log *log = rc->log;
    storage_segment *seg = storage_active(log);
    int r = log->fs->ftruncate(log->fs->ctx, seg->fd, rc->cut_pos);
    /* The mutant leaves the cut in the page cache only: a crash before the
     * next flush can bring the torn bytes back. */
    if (r == 0 && !(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC))
        r = log->fs->fdatasync(log->fs->ctx, seg->fd);
    if (r < 0)
        storage_errf(rc->err, rc->errlen, "cannot truncate segment %020" PRId64 ".log: %s",
                     seg->base_offset, strerror(-r));
    return r;
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

/* Brings segment i's .index file in line with its entries (rewritten when
 * it differs: missing, short, stale or preallocated by Kafka) and, for a
 * sealed segment, makes it durable: recovery from a later recovery point
 * trusts it. Only the last segment keeps its descriptor. */
static int settle_index(storage_recovery *rc, size_t i)
{
    kq_log *log = rc->log;
    const kq_fs *fs = log->fs;
    storage_segment *seg = &log->segs[i];
    bool sealed = i + 1 < log->seg_count;
    if (seg->index_verified && sealed)
        return 0; /* trusted below the recovery point, durable already */
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, seg->base_offset, ".index", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    int r = fs->open(fs->ctx, path, KQ_FS_WRITE | KQ_FS_CREATE);
    if (r < 0) {
        storage_errf(rc->err, rc->errlen, "cannot open %s: %s", path, strerror(-r));
        return r;
    }
    seg->index_fd = r;
    seg->index_written = seg->index_count;
    r = 0;
    if (!index_file_matches(fs, seg->index_fd, seg)) {
        seg->index_written = 0;
        r = fs->ftruncate(fs->ctx, seg->index_fd, 0);
        if (r == 0)
            r = storage_index_sync(log, seg, NULL, 0);
    }
    if (r == 0 && sealed && !(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC))
        r = fs->fdatasync(fs->ctx, seg->index_fd);
    if (r < 0)
        storage_errf(rc->err, rc->errlen, "cannot rebuild %s: %s", path, strerror(-r));
    if (sealed) {
        fs->close(fs->ctx, seg->index_fd);
        seg->index_fd = -1;
    }
    return r;
}

/* Carries out what recovery decided and makes the scanned segments durable
 * (they may hold data a crashed process never flushed). */
static int finish(storage_recovery *rc)
{
    kq_log *log = rc->log;
    int r = 0;
    if (rc->cut)
        r = apply_cut(rc);
    if (r == 0)
        r = drop_later_files(rc);
    for (size_t i = 0; i < log->seg_count && r == 0; i++) {
        storage_segment *seg = &log->segs[i];
        r = settle_index(rc, i);
        if (r == 0 && i >= rc->first_scanned && !(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC) &&
            (r = log->fs->fdatasync(log->fs->ctx, seg->fd)) < 0)
            storage_errf(rc->err, rc->errlen, "cannot fsync segment %020" PRId64 ".log: %s",
                         seg->base_offset, strerror(-r));
    }
    return r;
}

static int recover(storage_recovery *rc)
{
    kq_log *log = rc->log;
    int r = list_segments(rc);
    if (r < 0)
        return r;
    int found = storage_rp_load(log, rc->err, rc->errlen);
    if (found < 0)
        return found;
    if ((r = storage_recover_start_prepare(rc, found)) < 0)
        return r;
    r = found ? storage_recover_rp(rc) : recover_legacy(rc);
    if (r == 0)
        r = storage_recover_start_check(rc);
    if (r == 0)
        r = finish(rc);
    if (r == 0 && log->seg_count == 0)
        r = storage_segment_create(log, rc->has_start ? rc->start : found ? log->rp.start : 0,
                                   rc->err, rc->errlen);
    if (r == 0)
        r = storage_recover_start_settle(rc);
    return r;
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
    log->repair_allowed = options->repair;
    log->snapshot_at_start = options->snapshot_at_start;
    log->rp_fd = -1;
    uint64_t segment_bytes = options->segment_bytes;
    if (segment_bytes == 0 || segment_bytes > INT32_MAX)
        segment_bytes = INT32_MAX; /* positions in the index are int32 */
    log->segment_bytes = segment_bytes;
    int n = snprintf(log->dir, sizeof log->dir, "%s/%s", options->log_dir, KQ_LOG_PARTITION_DIR);
    if (n < 0 || (size_t)n >= sizeof log->dir - 64) {
        storage_errf(errbuf, errlen, "log directory path too long: %s", options->log_dir);
        free(log);
        return NULL;
    }
    return log;
}

/* After a successful recovery: everything is durable up to the end. */
static void mark_flushed(kq_log *log)
{
    log->dir_dirty = false;
    for (size_t i = 0; i < log->seg_count; i++)
        log->segs[i].dirty = false;
    log->flushed_offset = kq_log_end_offset(log);
    log->flushed_loc = storage_loc_end(log);
    log->trunc_floor = INT64_MAX;
}

/* One recovery of the directory. distrust (non-NULL): the repair pass, in
 * which log-start-offset-checkpoint is not believed, for that reason.
 * *start_bad: why this pass refused the checkpoint as contradicting the
 * log (NULL: it did not). */
static kq_log *open_pass(const kq_log_options *options, const char *distrust,
                         const char **start_bad, char *errbuf, size_t errlen)
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
    char note[STORAGE_PATH_MAX + 1024] = "";
    storage_recovery r = {.log = log, .err = errbuf, .errlen = errlen, .note = note,
                          .notelen = sizeof note, .distrust_start = distrust != NULL,
                          .start_bad = distrust};
    rc = recover(&r);
    free(r.bases);
    free(r.below);
    *start_bad = rc == -EUCLEAN ? r.start_bad : NULL;
    /* Creations and deletions by recovery (and by a crashed run) must be
     * durable before the flushed offset is claimed. */
    if (rc == 0 && !(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC) &&
        (rc = fs->fsync_dir(fs->ctx, log->dir)) < 0)
        storage_errf(errbuf, errlen, "cannot fsync %s: %s", log->dir, strerror(-rc));
    if (rc == 0)
        rc = storage_epoch_checkpoint_sync(log, errbuf, errlen);
    if (rc == 0)
        rc = storage_rp_init(log, errbuf, errlen);
    /* The repaired start is written only once the log it describes is. */
    if (rc == 0 && log->start_repaired)
        rc = storage_start_replace_damaged(log, errbuf, errlen);
    if (rc < 0) {
        log->failed = true; /* close without writing anything */
        kq_log_close(log);
        return NULL;
    }
    mark_flushed(log);
    if (errbuf && errlen)
        snprintf(errbuf, errlen, "%s", note);
    return log;
}

kq_log *kq_log_open_with(const kq_log_options *options, char *errbuf, size_t errlen)
{
    const char *start_bad = NULL;
    kq_log *log = open_pass(options, NULL, &start_bad, errbuf, errlen);
    /* A checkpoint contradicting the log refuses a single node; a quorum
     * member opens again without believing it (issue 19): nothing was
     * written by the refused pass. */
    if (!log && start_bad && options->repair)
        log = open_pass(options, start_bad, &start_bad, errbuf, errlen);
    return log;
}

bool kq_log_repair(const kq_log *log, int64_t *end_offset, int32_t *last_epoch)
{
    /* A cut that dropped nothing the log does not still hold is no repair
     * (a recovery point that lied about its position, say). */
    if (log->repair_end <= kq_log_end_offset(log))
        return false;
    *end_offset = log->repair_end;
    *last_epoch = log->repair_epoch;
    return true;
}

kq_log *kq_log_open(const char *log_dir, uint64_t segment_bytes, char *errbuf, size_t errlen)
{
    kq_log_options options = {
        .fs = kq_fs_posix(), .log_dir = log_dir, .segment_bytes = segment_bytes, .mutants = 0};
    return kq_log_open_with(&options, errbuf, errlen);
}
