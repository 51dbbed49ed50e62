/* Private to recovery (log_open.c, recover_walk.c, recover_rp.c): what it
 * decided, and a walk over a segment file batch by batch. */
#ifndef KQ_STORAGE_RECOVER_H
#define KQ_STORAGE_RECOVER_H

#include "kq/record.h"
#include "storage_internal.h"

/* Room for what is wrong with one batch. */
#define RECOVER_WHY_BYTES 192

/* What recovery decided and where it reports. */
typedef struct storage_recovery {
    kq_log *log;
    char *err; /* a refusal */
    size_t errlen;
    char *note; /* what was repaired, for the caller to log */
    size_t notelen;
    int64_t *bases; /* segment files found, ascending */
    size_t n;
    size_t first_scanned; /* log->segs from this index on were read past the
                           * recovery point: synced when recovery ends */
    bool has_start;       /* log-start-offset-checkpoint read: start holds L */
    bool start_vouched;   /* a snapshot file ends at L (SnapshotAtLogStart) */
    int64_t start;
    /* A checkpoint contradicting the log (issue 19): why, for a repair. */
    const char *start_bad;
    bool distrust_start;  /* repair pass: the checkpoint is never believed */
    bool start_damaged;   /* it read a checkpoint: the repair recomputes L */
    bool damaged_parsed;  /* and it parsed, as damaged_value */
    int64_t damaged_value;
    int64_t *below;       /* segment files wholly below L: deleted once */
    size_t below_n;       /* recovery accepted the rest */
    bool cut;             /* truncate the last segment of log->segs at cut_pos; */
    uint64_t cut_pos;     /* the files bases[log->seg_count..n) are deleted */
} storage_recovery;

/* Recovers with the recovery point in log->rp (recover_rp.c): fills
 * log->segs and the epoch cache, decides the cut. 0, -EUCLEAN (refused, err
 * filled) or -errno (err filled). */
int storage_recover_rp(storage_recovery *rc);
/* Opens segment file i of rc->bases read-write as a fresh storage_segment.
 * 0 or -errno with err filled (log_open.c). */
int storage_recover_open_segment(storage_recovery *rc, size_t i, storage_segment *seg);
/* Before recovery (recover_start.c): reads log-start-offset-checkpoint
 * (in the repair pass, distrust_start, only for the note),
 * sets aside the segment files wholly below L (a crash while
 * kq_log_advance_start deleted them; settle deletes them) and reconciles the recovery point
 * loaded (found) with the first file left. 0, -EUCLEAN or -errno. */
int storage_recover_start_prepare(storage_recovery *rc, bool found);
/* After recovery decided (before anything is written): refuses a
 * checkpoint that contradicts the log: L above a log holding batches
 * without the snapshot ending at L, below the first segment, not a batch
 * boundary. 0 or -EUCLEAN (err filled). */
int storage_recover_start_check(storage_recovery *rc);
/* After recovery: sets the log start (recomputed by the repair pass); a
 * log holding nothing at or above L becomes the empty log at L. 0, -EUCLEAN (L no batch boundary, or below
 * the first segment of a non-empty log) or -errno. */
int storage_recover_start_settle(storage_recovery *rc);
/* Repair pass (start_damaged): the log start from what the directory
 * proves, the end of the oldest snapshot lying within the log at a batch
 * boundary, or 0 from a first segment at 0; else the corruption repair
 * (recover_start_repair.c). 0 or -errno (err filled). */
int storage_recover_start_repair(storage_recovery *rc);
/* Lists the snapshot files beside the log (ascending). Count or -errno. */
int storage_start_snapshots(const kq_log *log, raft_snapshot_id *ids, int max);
/* Every segment deleted, the empty log at rc->start (a note when the old
 * end differs and note is set). 0 or -errno (err filled). */
int storage_recover_empty_at_start(storage_recovery *rc, bool note);
/* qsort/bsearch order of int64_t. */
int storage_cmp_i64(const void *a, const void *b);

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

/* A walk over one segment's batches, filling seg (index, size, end). */
typedef struct rwalk {
    kq_log *log;
    storage_segment *seg;
    char path[STORAGE_PATH_MAX];
    scan_buf b;
    uint64_t pos;      /* position of the next batch */
    int64_t next;      /* base offset it must have */
    int64_t hint_last; /* >= 0: it is an index entry's batch, with this last
                        * offset (its base is not known) */
    bool verify;       /* epochs must agree with log->epochs (the checkpoint)
                        * instead of building it */
    char why[RECOVER_WHY_BYTES]; /* what is wrong with the batch at pos */
    bool bad_bytes;    /* it is: the bytes there are no whole CRC-valid batch
                        * (what a torn write leaves), not a valid batch with
                        * the wrong offsets or epoch */
} rwalk;

enum rwalk_result {
    RWALK_END = 0,   /* pos reached the limit */
    RWALK_BATCH = 1, /* one batch accepted */
    RWALK_BAD = 2,   /* the batch at pos is wrong: why */
};

/* The batch at pos when only [pos, limit) may hold it (limit <= file size):
 * RECORD_OK with its header, or why not; a read error in *io_err. */
enum record_status recover_check_at(scan_buf *b, uint64_t pos, uint64_t limit,
                                    record_batch_header *h, int *io_err);

/* Starts a walk of seg (whose fd is open) at position 0. 0 or -errno. */
int rwalk_init(rwalk *w, kq_log *log, storage_segment *seg, bool verify);
void rwalk_free(rwalk *w);
/* Checks the batch at w->pos against everything before it (whole below
 * limit, CRC, offsets following on, epoch) and records it in the index and,
 * unless verifying, the epoch cache. An enum rwalk_result or -errno. */
int rwalk_step(rwalk *w, uint64_t limit);
/* Steps until limit or a bad batch. An enum rwalk_result or -errno. */
int rwalk_run(rwalk *w, uint64_t limit);
/* Whether a CRC-valid batch lies where the header at w->pos says the next one is. */
bool rwalk_valid_after(rwalk *w);
/* Below the recovery point: walks seg from its last valid .index entry
 * (from 0 if there is none or that fails) to exactly limit, which must be
 * the end of the batch before end_offset. Fills seg's index (taking the
 * file's entries) and sets seg->index_verified. RWALK_END or RWALK_BAD (why,
 * w->pos at the first bad batch of a walk from 0) or -errno. */
int rwalk_trusted(rwalk *w, uint64_t limit, int64_t end_offset);

#endif
