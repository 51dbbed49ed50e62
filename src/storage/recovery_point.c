/* The recovery-point file: the durable lower bound recovery trusts (the
 * role of Kafka's recovery-point-offset-checkpoint). Two fixed slots of
 * STORAGE_RP_SLOT_BYTES, each one line of text ending in its own CRC-32C
 * and padded with spaces to a newline; writes alternate between the slots
 * so that a torn write leaves the other one whole. See FORMAT.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/buf.h"
#include "storage_internal.h"

#define RP_FILE_BYTES (STORAGE_RP_SLOT_BYTES * STORAGE_RP_SLOTS)
#define RP_CRC_FIELD " crc32c "

storage_loc storage_loc_at(const kq_log *log, const storage_segment *seg, uint64_t position)
{
    if (position == 0 && seg > log->segs)
        return (storage_loc){seg[-1].base_offset, seg[-1].size};
    return (storage_loc){seg->base_offset, position};
}

storage_loc storage_loc_end(const kq_log *log)
{
    const storage_segment *seg = &log->segs[log->seg_count - 1];
    return storage_loc_at(log, seg, seg->size);
}

/* The slot for v: the text, spaces, '\n' in the last byte. */
static void slot_render(const storage_rp *v, char slot[STORAGE_RP_SLOT_BYTES])
{
    char text[STORAGE_RP_SLOT_BYTES];
    int n = snprintf(text, sizeof text,
                     STORAGE_RP_MAGIC " %d seq %" PRIu64 " offset %" PRId64 " start %" PRId64
                                      " segment %" PRId64 " position %" PRIu64,
                     STORAGE_RP_VERSION, v->seq, v->offset, v->start, v->loc.segment,
                     v->loc.position);
    uint32_t crc = kq_crc32c(0, text, (size_t)n);
    memset(slot, ' ', STORAGE_RP_SLOT_BYTES);
    n += snprintf(text + n, sizeof text - (size_t)n, RP_CRC_FIELD "%08" PRIx32, crc);
    memcpy(slot, text, (size_t)n); /* at most ~160 bytes */
    slot[STORAGE_RP_SLOT_BYTES - 1] = '\n';
}

/* Whether the fields could describe a log: offsets ordered, the location
 * empty exactly when no batch lies below the offset. */
static bool rp_sane(const storage_rp *v)
{
    if (v->start < 0 || v->offset < v->start || v->loc.segment < v->start ||
        v->loc.position > (uint64_t)INT64_MAX)
        return false;
    if (v->offset == v->start)
        return v->loc.segment == v->start && v->loc.position == 0;
    return v->loc.segment < v->offset && v->loc.position > 0;
}

/* Parses a slot; valid only if it renders back to exactly the same bytes
 * (so the CRC, the padding and every digit are checked). */

/* "word " at *p: advances past it. */
static bool take_word(const char **p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*p, word, n) != 0 || (*p)[n] != ' ')
        return false;
    *p += n + 1;
    return true;
}

/* Decimal digits at *p (then a space or the end of the text), no overflow. */
static bool take_u64(const char **p, uint64_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    if (*q < '0' || *q > '9')
        return false;
    for (; *q >= '0' && *q <= '9'; q++) {
        if (v > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*q - '0');
    }
    if (*q != ' ' && *q != '\0')
        return false;
    *p = *q == ' ' ? q + 1 : q;
    *out = v;
    return true;
}

static bool slot_parse(const char slot[STORAGE_RP_SLOT_BYTES], storage_rp *out)
{
    char text[STORAGE_RP_SLOT_BYTES + 1];
    memcpy(text, slot, STORAGE_RP_SLOT_BYTES);
    text[STORAGE_RP_SLOT_BYTES] = '\0';
    storage_rp v;
    uint64_t version = 0, offset, start, segment;
    const char *p = text;
    /* Parsed by hand: sscanf is undefined for numbers out of range. */
    if (!take_word(&p, STORAGE_RP_MAGIC) || !take_u64(&p, &version) ||
        !take_word(&p, "seq") || !take_u64(&p, &v.seq) || !take_word(&p, "offset") ||
        !take_u64(&p, &offset) || !take_word(&p, "start") || !take_u64(&p, &start) ||
        !take_word(&p, "segment") || !take_u64(&p, &segment) || !take_word(&p, "position") ||
        !take_u64(&p, &v.loc.position) || version != STORAGE_RP_VERSION ||
        offset > INT64_MAX || start > INT64_MAX || segment > INT64_MAX)
        return false;
    v.offset = (int64_t)offset;
    v.start = (int64_t)start;
    v.loc.segment = (int64_t)segment;
    if (!rp_sane(&v))
        return false;
    char again[STORAGE_RP_SLOT_BYTES];
    slot_render(&v, again);
    if (memcmp(again, slot, STORAGE_RP_SLOT_BYTES) != 0)
        return false;
    *out = v;
    return true;
}

static int rp_path(const kq_log *log, const char *suffix, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s/%s%s", log->dir, KQ_LOG_RECOVERY_POINT_FILE, suffix);
    return (n < 0 || (size_t)n >= outlen) ? -ENAMETOOLONG : 0;
}

/* Picks the valid slot with the highest sequence from the file's bytes. */
static int rp_pick(kq_log *log, const char *data, const char *path, char *errbuf,
                   size_t errlen)
{
    storage_rp v[STORAGE_RP_SLOTS];
    int best = -1;
    for (int i = 0; i < STORAGE_RP_SLOTS; i++)
        if (slot_parse(data + i * STORAGE_RP_SLOT_BYTES, &v[i]) &&
            (best < 0 || v[i].seq > v[best].seq))
            best = i;
    if (best < 0) {
        storage_errf(errbuf, errlen,
                     "corrupt %s: no slot holds a valid record (a torn write damages at most "
                     "one); refusing to open",
                     path);
        return -EUCLEAN;
    }
    log->rp = v[best];
    log->rp_slot = (unsigned)best;
    return 1;
}

int storage_rp_load(kq_log *log, char *errbuf, size_t errlen)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX];
    if (rp_path(log, "", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    int fd = fs->open(fs->ctx, path, KQ_FS_WRITE);
    if (fd == -ENOENT)
        return 0;
    if (fd < 0) {
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    char data[RP_FILE_BYTES];
    uint64_t size;
    int rc = fs->size(fs->ctx, fd, &size);
    if (rc == 0 && size != RP_FILE_BYTES) {
        storage_errf(errbuf, errlen, "corrupt %s: %" PRIu64 " bytes, not %d; refusing to open",
                     path, size, RP_FILE_BYTES);
        rc = -EUCLEAN;
    } else if (rc == 0 && (rc = storage_pread_all(fs, fd, data, sizeof data, 0)) == 0) {
        rc = rp_pick(log, data, path, errbuf, errlen);
    } else {
        storage_errf(errbuf, errlen, "cannot read %s: %s", path, strerror(-rc));
    }
    if (rc == 1)
        log->rp_fd = fd;
    else
        fs->close(fs->ctx, fd);
    return rc;
}

int storage_rp_write(kq_log *log, int64_t offset, storage_loc loc)
{
    /* The end of a segment deleted by kq_log_advance_start (a location
     * taken before it) is the start of the first one now. */
    if (loc.segment < storage_first_base(log)) {
        KQ_ASSERT(offset == storage_first_base(log));
        loc = (storage_loc){storage_first_base(log), 0};
    }
    storage_rp v = {.seq = log->rp.seq + 1,
                    .offset = offset,
                    .start = storage_first_base(log),
                    .loc = loc};
    char slot[STORAGE_RP_SLOT_BYTES];
    slot_render(&v, slot);
    /* Never the slot holding the last record: if this write tears (or
     * fails half way), that record is still whole. */
    unsigned s = log->rp_slot ^ 1u;
    int rc = storage_pwrite_all(log->fs, log->rp_fd, slot, sizeof slot,
                                (uint64_t)s * STORAGE_RP_SLOT_BYTES);
    if (rc < 0)
        return rc;
    log->rp = v;
    log->rp_slot = s;
    log->rp_unsynced = true;
    return 0;
}

int storage_rp_sync(kq_log *log)
{
    if (!log->rp_unsynced || log->rp_fd < 0)
        return 0;
    int rc = log->fs->fdatasync(log->fs->ctx, log->rp_fd);
    if (rc == 0) {
        log->rp_unsynced = false;
        log->rp_jobs = 0;
        log->rp_roll = false;
    }
    return rc;
}

/* A new file, both slots holding v (sequences seq-1 and seq), through an
 * atomic replace; then opened for writing. */
static int rp_create(kq_log *log, storage_rp v, char *errbuf, size_t errlen)
{
    char data[RP_FILE_BYTES], path[STORAGE_PATH_MAX];
    v.seq = 2;
    storage_rp first = v;
    first.seq = 1;
    slot_render(&first, data);
    slot_render(&v, data + STORAGE_RP_SLOT_BYTES);
    int rc = storage_atomic_write(log->fs, log->dir, KQ_LOG_RECOVERY_POINT_FILE, data,
                                  sizeof data, errbuf, errlen);
    if (rc < 0)
        return rc;
    if ((rc = rp_path(log, "", path, sizeof path)) < 0)
        return rc;
    int fd = log->fs->open(log->fs->ctx, path, KQ_FS_WRITE);
    if (fd < 0) {
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    log->rp_fd = fd;
    log->rp = v;
    log->rp_slot = 1;
    log->rp_unsynced = false;
    return 0;
}

int storage_rp_init(kq_log *log, char *errbuf, size_t errlen)
{
    storage_rp want = {.offset = kq_log_end_offset(log),
                       .start = storage_first_base(log),
                       .loc = storage_loc_end(log)};
    if (log->rp_fd < 0)
        return rp_create(log, want, errbuf, errlen);
    int rc = 0;
    if (log->rp_stale || log->rp.offset != want.offset || log->rp.start != want.start ||
        log->rp.loc.segment != want.loc.segment || log->rp.loc.position != want.loc.position)
        rc = storage_rp_write(log, want.offset, want.loc);
    /* Synced even when unchanged: a killed process may have left the
     * record in the page cache only. */
    log->rp_unsynced = true;
    if (rc == 0 && !(log->mutants & KQ_MUTANT_SKIP_OPEN_FSYNC))
        rc = storage_rp_sync(log);
    if (rc < 0)
        storage_errf(errbuf, errlen, "cannot write %s/%s: %s", log->dir,
                     KQ_LOG_RECOVERY_POINT_FILE, strerror(-rc));
    return rc;
}
