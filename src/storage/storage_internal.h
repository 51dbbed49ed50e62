/* Private structures of the storage module. */
#ifndef KQ_STORAGE_INTERNAL_H
#define KQ_STORAGE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/fs.h"
#include "kq/log.h"
#include "kq/limits.h"
#include "kq/mutants.h"


/* The recovery-point file (recovery_point.c, FORMAT.md): two slots of one
 * disk sector each, so that a torn write damages at most the one written. */
#define STORAGE_RP_SLOT_BYTES 512
#define STORAGE_RP_SLOTS 2
#define STORAGE_RP_MAGIC "kq-recovery-point"
#define STORAGE_RP_VERSION 1

/* Where the batches below some offset end: the segment holding the last of
 * them (the first segment if there is none) and the byte position just past
 * it, so that recovery can start scanning there without reading the rest. */
typedef struct storage_loc {
    int64_t segment;   /* base offset of the segment */
    uint64_t position; /* bytes of that segment below the offset */
} storage_loc;

/* One record of the recovery-point file. */
typedef struct storage_rp {
    uint64_t seq;    /* higher is newer */
    int64_t offset;  /* every batch below it is durable */
    int64_t start;   /* base offset of the first segment when written */
    storage_loc loc; /* where the batches below offset end */
} storage_rp;

typedef struct storage_index_entry {
    int32_t rel_offset; /* last offset of the batch - segment base */
    int32_t position;   /* file position of the batch */
} storage_index_entry;

typedef struct storage_segment {
    int64_t base_offset;
    int64_t end_offset;        /* next offset after the segment's last batch */
    int fd;                    /* the .log file, kept open for reads */
    int index_fd;              /* the .index file; -1 unless open for writing */
    uint64_t size;             /* bytes of whole batches */
    storage_index_entry *index;
    size_t index_count;
    size_t index_cap;
    size_t index_written;      /* entries already in the .index file */
    uint64_t bytes_since_index;
    bool dirty;                /* written since the last flush began */
    bool index_sync_due;       /* sealed by a roll: the next flush job syncs the .index */
    bool index_verified;       /* recovery: the .index file holds exactly index[] */
    uint64_t id;               /* unique in this kq_log, ascending along segs (log_stream.c) */
} storage_segment;

struct kq_log {
    const kq_fs *fs;            /* every file operation goes through it */
    unsigned mutants;           /* enum kq_mutant bits; 0 outside the simulator */
    bool repair_allowed;        /* cut corruption below the recovery point (peers refill it) */
    bool snapshot_at_start;     /* the checkpoint needs a snapshot ending at L (kq_log_options) */
    int64_t repair_end;         /* > 0: the recovery point that corruption cut below */
    int32_t repair_epoch;       /* the epoch of the batch ending at repair_end */
    /* Recovery recomputed a damaged log-start-offset-checkpoint: open keeps
     * the file as .damaged and writes start_offset once the log is settled. */
    bool start_repaired;
    char dir[STORAGE_PATH_MAX]; /* the partition directory */
    bool dir_dirty;             /* a file was created since the last flush began */
    uint64_t segment_bytes;
    storage_segment *segs;
    size_t seg_count;
    size_t seg_cap;
    /* The log start offset L (log-start-offset-checkpoint, FORMAT.md): the
     * first offset the log serves, a batch boundary of segs[0] (or its end);
     * segs[0].base_offset <= start_offset <= the end offset. */
    int64_t start_offset;
    int64_t flushed_offset;
    storage_loc flushed_loc;    /* where the batches below flushed_offset end */
    int64_t trunc_floor;        /* lowest truncation point while a job is out */
    storage_loc trunc_floor_loc;
    bool job_outstanding;
    bool failed;                /* an I/O failure left the state uncertain */
    raft_epoch_entry *epochs;
    int epoch_count;
    int epoch_cap;
    /* The recovery-point file (recovery_point.c). Invariant: rp.offset <=
     * flushed_offset, so the file never claims more than is durable. */
    int rp_fd;         /* open for writing once open succeeded, else -1 */
    storage_rp rp;     /* the record last written (maybe not yet durable) */
    unsigned rp_slot;  /* the slot holding it */
    bool rp_unsynced;  /* written since its last fdatasync */
    unsigned rp_jobs;  /* flush jobs begun since its last fdatasync */
    bool rp_roll;      /* a roll since its last fdatasync */
    bool rp_stale;     /* recovery: the file's record names deleted segments */
    uint64_t segment_ids; /* the last segment id handed out (storage_segment_push) */
};

/* The base offset of the first segment file (<= the log start offset). */
static inline int64_t storage_first_base(const kq_log *log)
{
    return log->segs[0].base_offset;
}

static inline storage_segment *storage_active(kq_log *log)
{
    return &log->segs[log->seg_count - 1];
}

static inline uint32_t storage_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t storage_be64(const uint8_t *p)
{
    return ((uint64_t)storage_be32(p) << 32) | storage_be32(p + 4);
}

static inline void storage_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void storage_errf(char *errbuf, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes all of buf at pos (looping over short writes). 0 or -errno. */
int storage_pwrite_all(const kq_fs *fs, int fd, const void *buf, size_t len, uint64_t pos);
/* Reads exactly len bytes at pos; -EIO on a short read. 0 or -errno. */
int storage_pread_all(const kq_fs *fs, int fd, void *buf, size_t len, uint64_t pos);
/* tmp + fdatasync + rename + fsync dir. 0 or -errno with errbuf filled. */
int storage_atomic_write(const kq_fs *fs, const char *dir, const char *name, const void *data,
                         size_t len, char *errbuf, size_t errlen);
/* mkdir -p. 0 or -errno (-ENOTDIR if a component is not a directory). */
int storage_mkdirs(const kq_fs *fs, const char *path);

/* ---- segments (segment.c) */
int storage_segment_path(const kq_log *log, int64_t base, const char *ext, char *out,
                         size_t outlen);
/* Creates a new empty segment at the end of log->segs. */
int storage_segment_create(kq_log *log, int64_t base, char *errbuf, size_t errlen);
int storage_segment_push(kq_log *log, const storage_segment *seg);
int storage_index_push(storage_segment *seg, int32_t rel_offset, int32_t position);
/* Opens seg's .index for writing (creating it) into seg->index_fd. 0 or -errno. */
int storage_index_open(const kq_log *log, storage_segment *seg);
/* Writes index entries not yet in the file (opening it if needed). */
int storage_index_sync(const kq_log *log, storage_segment *seg, char *errbuf, size_t errlen);
/* Finds the batch holding offset in seg (offset index, then a header walk):
 * its position and size. 0, -EBADMSG, -EIO or -ERANGE (log_read.c). */
int storage_batch_locate(const kq_fs *fs, const storage_segment *seg, int64_t offset,
                         uint64_t *pos_out, uint64_t *size_out);
/* Where a read at offset below end_offset begins (kq_log_read and
 * kq_log_plan_read): 1 with the segment and the position and size of the
 * batch holding offset, 0 when there is nothing to read, -ERANGE below the
 * log start, or a locate error (log_read.c). */
int storage_read_first(kq_log *log, int64_t offset, int64_t end_offset, storage_segment **seg,
                       uint64_t *pos, uint64_t *size);
/* Whether the batch at p (size bytes, the first one holding offset when
 * first, else starting at next) is whole and consistent (log_read.c). */
bool storage_batch_ok(const kq_log *log, const storage_segment *seg, const uint8_t *p,
                      size_t size, int64_t offset, int64_t next, bool first);
/* Closes the segment's descriptors and frees its index. */
void storage_segment_release(const kq_fs *fs, storage_segment *seg);
/* The segment holding offset (largest base <= offset); NULL if below start. */
storage_segment *storage_segment_find(kq_log *log, int64_t offset);
/* Largest index position whose key is <= offset (0 if none). */
uint64_t storage_index_lookup(const storage_segment *seg, int64_t offset);
/* Bookkeeping for a batch just written at pos: index entry every >4096 bytes. */
int storage_segment_note_batch(storage_segment *seg, uint64_t pos, uint64_t size,
                               int64_t last_offset);

/* Where the batches below a position of seg end (normalized: position 0 of
 * a segment other than the first is the end of the previous one). */
storage_loc storage_loc_at(const kq_log *log, const storage_segment *seg, uint64_t position);
/* The same for the end of the log. */
storage_loc storage_loc_end(const kq_log *log);

/* File position of the batch starting at offset in seg (its size when offset
 * is seg's end), -EINVAL if offset is no batch boundary, -EIO (log_append.c). */
int64_t storage_boundary_position(const kq_fs *fs, storage_segment *seg, int64_t offset);
/* kq_log_truncate without the log-start bound: offset may be any batch
 * boundary from the first segment's base on (kq_log_reset cuts to it). */
int storage_truncate_to(kq_log *log, int64_t offset, char *errbuf, size_t errlen);
/* Closes and unlinks seg's .log and .index (no directory sync). 0 or the
 * unlink error of the .log (-ENOENT ignored). */
int storage_segment_delete_files(kq_log *log, storage_segment *seg);

/* ---- log start offset (log_start.c) */
#define STORAGE_START_CHECKPOINT "log-start-offset-checkpoint"
/* Reads the checkpoint: 1 with *offset, 0 if there is none, -EUCLEAN
 * (malformed; errbuf names the file and the reason) or -errno. */
int storage_start_load(const kq_log *log, int64_t *offset, char *errbuf, size_t errlen);
/* After a repair (start_repaired): copies the damaged checkpoint to
 * STORAGE_START_DAMAGED (at most STORAGE_START_CHECKPOINT_BYTES_MAX bytes
 * of it), then replaces it with the log start. 0 or -errno (errbuf). */
int storage_start_replace_damaged(const kq_log *log, char *errbuf, size_t errlen);
#define STORAGE_START_DAMAGED STORAGE_START_CHECKPOINT ".damaged"
/* Replaces the checkpoint with offset atomically (tmp, fdatasync, rename,
 * fsync dir). 0 or -errno with errbuf filled. */
int storage_start_write(const kq_log *log, int64_t offset, char *errbuf, size_t errlen);

/* ---- epoch cache (epoch_cache.c) */
/* Records that epoch starts at offset if it is newer than the latest.
 * Returns 1 if added, 0 if not new, -EINVAL if older (a negative epoch after
 * an epoch >= 0 counts as older), -ENOMEM. */
int storage_epoch_assign(kq_log *log, int32_t epoch, int64_t offset);
/* Whether a batch holding offsets base..last with PartitionLeaderEpoch epoch
 * agrees with entries e[0..n): an epoch >= 0 must be the one of the entry in
 * force at base and no entry may start inside the batch; a negative epoch
 * is allowed only before the first entry. */
bool storage_epoch_agrees(const raft_epoch_entry *e, int n, int64_t base, int64_t last,
                          int32_t epoch);
/* Loads leader-epoch-checkpoint into the (empty) cache. 0, -ENOENT, -EUCLEAN
 * (malformed, entries not strictly ascending) or -errno; errbuf filled. */
int storage_epoch_checkpoint_load(kq_log *log, char *errbuf, size_t errlen);
/* Removes entries starting at or above offset; returns how many. */
int storage_epoch_truncate(kq_log *log, int64_t offset);
int storage_epoch_checkpoint_render(const kq_log *log, char *buf, size_t buflen);
int storage_epoch_checkpoint_write(const kq_log *log, char *errbuf, size_t errlen);
/* Rewrites the file only if its content differs. */
int storage_epoch_checkpoint_sync(const kq_log *log, char *errbuf, size_t errlen);

#define STORAGE_EPOCH_CHECKPOINT "leader-epoch-checkpoint"

/* ---- recovery point (recovery_point.c) */
/* Reads the file: 1 with log->rp, log->rp_slot and log->rp_fd set (the
 * valid slot with the highest sequence), 0 if there is no file, -EUCLEAN if
 * no slot is valid, or -errno; errbuf filled on errors. */
int storage_rp_load(kq_log *log, char *errbuf, size_t errlen);
/* Writes a record for offset (which must be durable) into the slot not
 * holding the last record. No fdatasync. 0 or -errno. */
int storage_rp_write(kq_log *log, int64_t offset, storage_loc loc);
/* fdatasync's the file if written since its last sync. 0 or -errno. */
int storage_rp_sync(kq_log *log);
/* After recovery: the file claims the end of the log (created atomically
 * when missing) and is durable. 0 or -errno with errbuf filled. */
int storage_rp_init(kq_log *log, char *errbuf, size_t errlen);

#endif
