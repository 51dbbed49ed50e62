/* The on-disk log of __cluster_metadata-0 in Kafka's own layout: segments
 * named %020d.log with a %020d.index offset index, a leader-epoch-checkpoint
 * file, all under <log_dir>/__cluster_metadata-0/, plus our own
 * recovery-point-offset-checkpoint and log-start-offset-checkpoint there.
 * Snapshot files beside them: kq/snapshot_file.h. See src/storage/FORMAT.md.
 *
 * Threading: every function runs on one (event-loop) thread, except
 * kq_log_flush_run, which may run on a worker thread while appends and reads
 * continue. At most one flush job is outstanding at a time. */
#ifndef KQ_LOG_H
#define KQ_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kq/buf.h"
#include "kq/fs.h"
#include "kq/limits.h"
#include "kq/raft.h"

#define KQ_LOG_PARTITION_DIR "__cluster_metadata-0"
#define KQ_LOG_INDEX_INTERVAL_BYTES 4096
/* The recovery point (FORMAT.md): every batch below it is durable. */
#define KQ_LOG_RECOVERY_POINT_FILE "recovery-point-offset-checkpoint"
/* KQ_LOG_RECOVERY_POINT_SYNC_JOBS (kq/limits.h): how often a flush job also
 * fdatasyncs the recovery-point file. */

typedef struct kq_log kq_log;

/* Opens <log_dir>/__cluster_metadata-0 (creating directories as needed) and
 * recovers it (FORMAT.md, "Recovery").
 * With a recovery point R (recovery-point-offset-checkpoint): batches below R
 * are durable and trusted after a cheap check (segment files present and
 * contiguous, each .index plausible, the batches after its last entry
 * verified up to the segment's end, or up to R in the segment holding R);
 * from R on every batch is scanned. Checked batches must be whole, magic 2,
 * CRC-valid, contiguous and agree with leader-epoch-checkpoint. Anything
 * wrong below R is corruption: open refuses, naming file, position and
 * offset, and changes nothing. Anything wrong above R is an unacknowledged
 * tail: cut there, later segments deleted.
 * Without the file (a log written before it existed): every batch is
 * scanned, a torn tail (the last batch of the last segment incomplete or
 * failing its CRC, with no valid batch after it) is truncated away, a
 * failure anywhere else refuses; the file is written afterwards.
 * Returns NULL with errbuf holding the reason. On success errbuf holds
 * either "" or a one-line recovery note for the caller to log (what was cut
 * and deleted). Everything is fsync'd on return and the recovery point is
 * the end offset. */
kq_log *kq_log_open(const char *log_dir, uint64_t segment_bytes, char *errbuf, size_t errlen);

/* The same through an explicit file system (the simulator's), with the
 * storage mutants of kq/mutants.h (0 outside the simulator). fs NULL means
 * kq_fs_posix(). The log keeps the fs pointer: it must outlive the log. */
typedef struct kq_log_options {
    const kq_fs *fs;
    const char *log_dir;
    uint64_t segment_bytes;
    unsigned mutants;
    /* A multi-node quorum: corruption below the recovery point is cut at the
     * last good batch instead of refused, and kq_log_repair says so (the
     * node refetches it from the leader). A single node always refuses. */
    bool repair;
    /* SnapshotAtLogStart (KIP-630; set by the executor): a
     * log-start-offset-checkpoint L > 0 is believed only when a snapshot
     * file in the directory ends at L; otherwise open refuses, touching
     * nothing (a damaged checkpoint never deletes a segment). With repair,
     * a checkpoint contradicting the log is never believed instead: the
     * start is recomputed from the snapshot files within the log, the file
     * kept as log-start-offset-checkpoint.damaged and rewritten, nothing
     * deleted; when nothing vouches for a start the log is emptied and
     * kq_log_repair reports its former end (FORMAT.md, "Recovery" 5). */
    bool snapshot_at_start;
} kq_log_options;
kq_log *kq_log_open_with(const kq_log_options *options, char *errbuf, size_t errlen);
/* Writes buffered index entries and closes. A flush job must not be pending. */
void kq_log_close(kq_log *log);
/* After an open that cut corruption below the recovery point (repair):
 * true with the offset the log reached before (everything below it had
 * been durable) and the epoch of its last batch. */
bool kq_log_repair(const kq_log *log, int64_t *end_offset, int32_t *last_epoch);
/* Frees the log as a crash would leave it: writes and syncs nothing (no
 * index entries, no recovery point). The simulator's crashes use it; a flush
 * job must not be pending. */
void kq_log_abandon(kq_log *log);

/* The log start offset L: the first offset the log serves (reads below it
 * are -ERANGE). Persisted in log-start-offset-checkpoint; without that file
 * (a log that never advanced) it is the first segment's base. Always a
 * batch boundary (or the end); the first segment's base is <= L. */
int64_t kq_log_start_offset(const kq_log *log);
int64_t kq_log_end_offset(const kq_log *log);     /* next offset to be written */
int64_t kq_log_flushed_offset(const kq_log *log); /* everything below is durable */
/* The offset last written to the recovery-point file: never above the
 * flushed offset, and usually behind it (it takes the offset a flush job
 * published when the next job begins, is lowered by a truncate below it
 * before the cut, and catches up on close). What a restart after a power
 * loss finds may lag further (see KQ_LOG_RECOVERY_POINT_SYNC_JOBS). */
int64_t kq_log_recovery_point(const kq_log *log);
int kq_log_segment_count(const kq_log *log);
/* Total bytes of all segment files (whole batches, those below L too). */
uint64_t kq_log_size_bytes(const kq_log *log);

/* Retention after a snapshot ending at offset is durable: raises the log
 * start to offset, which must be > the start, <= the flushed offset and a
 * batch boundary (or the end); else -EINVAL, log unchanged. Crash order:
 * log-start-offset-checkpoint replaced (tmp, fdatasync, rename, fsync dir);
 * then, if segments lie wholly below offset, a recovery-point record (at
 * the flushed offset) naming the first segment left is written and
 * fdatasync'd; then those segments' .log and .index are unlinked (never
 * the active one) and the directory fsync'd. A crash at any point opens
 * with start == offset (or the old start, before the checkpoint rename).
 * May run while a flush job is out. Other errors are I/O failures: the
 * log fails (refuses appends) and the node must stop. */
/* Bytes of the segments that kq_log_advance_start(offset) would delete. */
uint64_t kq_log_bytes_below(const kq_log *log, int64_t offset);
int kq_log_advance_start(kq_log *log, int64_t offset, char *errbuf, size_t errlen);

/* A follower installing a snapshot ending at offset (>= 0; above, at or
 * below the old end, even below the old start): afterwards the log is
 * empty, starts and ends at offset, with an empty epoch cache, recovery
 * point and flushed offset at offset, everything durable. No flush job may
 * be outstanding (-EBUSY). Crash order: (1) the old log is truncated to
 * its first segment's base (recovery point lowered first, later segments
 * deleted, the first emptied and fdatasync'd; epoch checkpoint emptied);
 * (2) log-start-offset-checkpoint := offset; (3) the empty segment is
 * replaced by one named offset (delete, fsync dir, create, fsync dir);
 * (4) the recovery point := offset, fdatasync'd. After a crash, open
 * gives the old log or a prefix of it (during 1), the empty log at the
 * old start (after 1), or the empty log at offset (after 2): never a log
 * with an old batch at or above offset. I/O errors fail the log. */
int kq_log_reset(kq_log *log, int64_t offset, char *errbuf, size_t errlen);

/* Appends one or more whole v2 batches with one write syscall.
 * base_offset >= 0 (leader): each batch's BaseOffset is rewritten in data,
 *   consecutively from base_offset (which must equal the end offset), and its
 *   PartitionLeaderEpoch set to epoch.
 * base_offset == -1 (follower): batches are written as they are; their CRC is
 *   checked and the first must start at the end offset, offsets contiguous.
 * A batch epoch lower than the latest epoch in the log is refused (so is a
 * negative epoch once the log has an epoch >= 0).
 * All batches of one call go to the same segment: the segment is rolled first
 * if it is not empty and the append would take it past segment_bytes.
 * Returns 0 or a negative errno with errbuf filled. -EINVAL: bad input, log
 * unchanged. Other errors (-EIO, -ENOSPC...) are I/O failures: the caller
 * should stop the node. */
int kq_log_append(kq_log *log, uint8_t *data, size_t len, int64_t base_offset, int32_t epoch,
                  char *errbuf, size_t errlen);

/* Drops everything at and above offset, which must be a batch boundary between
 * the start and end offsets (offset == end is a no-op). Later segments are
 * deleted; the change is fsync'd before returning; the flushed offset drops to
 * at most offset. The recovery point is lowered to offset (and synced) before
 * anything is cut. Rewrites the epoch checkpoint if entries were removed. */
int kq_log_truncate(kq_log *log, int64_t offset, char *errbuf, size_t errlen);

/* Group commit.
 * begin (loop thread): writes the offset the last job published into the
 *   recovery-point file (no fsync), writes buffered index entries, captures
 *   dup'd fds of every segment written since the last flush (plus the
 *   directory, and the sealed segment's .index, after a roll; plus the
 *   recovery-point file now and then) and the end offset. *job_out is NULL
 *   when there is nothing to flush. Returns 0, -EBUSY if a job is already
 *   outstanding, or -ENOMEM / -errno (an I/O error fails the log).
 * run (any thread): fdatasync's them. Returns 0 or -errno. Never retry a
 *   failure: the caller must stop the node.
 * end (loop thread): publishes the flushed offset (unless run failed, in which
 *   case the log refuses further appends, or was never called: an abandoned
 *   job publishes nothing) and frees the job. Always call it once per job.
 *   Returns the flushed offset. A truncate while the job runs is
 *   accounted for: the published offset never exceeds the truncation point. */
typedef struct kq_log_flush_job kq_log_flush_job;
int kq_log_flush_begin(kq_log *log, kq_log_flush_job **job_out);
int kq_log_flush_run(kq_log_flush_job *job);
int64_t kq_log_flush_end(kq_log *log, kq_log_flush_job *job);
/* The fsync-error-continue mutant only (the simulator proves it loses
 * data): forgets a failed run's error and runs the job again. */
int kq_log_flush_retry(kq_log_flush_job *job);
/* The offset the job will publish on success. */
int64_t kq_log_flush_job_offset(const kq_log_flush_job *job);

/* Appends to out whole batches from the one segment holding offset: first the
 * batch containing offset, then following batches while their base offset is
 * < end_offset and the total stays <= max_bytes (the first batch is always
 * returned whole). Every batch returned has been verified: length, magic,
 * CRC-32C, offsets (the first holds offset, the others follow on, all inside
 * the segment) and PartitionLeaderEpoch (agreeing with the epoch cache).
 * Returns bytes appended, 0 if offset >= end_offset or offset >= the log end,
 * -ERANGE if offset is below the log start, -ENOBUFS if out cannot hold the
 * first batch, -EBADMSG if the batch holding offset fails verification
 * (nothing appended; corruption of data the log holds: nothing is logged,
 * the caller decides, and the executor stops the node; a later batch that
 * fails ends the read before it, so the next read returns -EBADMSG), -EIO
 * (or another -errno) on a read error. */
ssize_t kq_log_read(kq_log *log, int64_t offset, int64_t end_offset, size_t max_bytes,
                    kq_writer *out);

/* The base offset of the batch holding offset, or -1 (outside the log:
 * below the log start or at/after the end; or unreadable). */
int64_t kq_log_batch_start(kq_log *log, int64_t offset);

/* Names the file and position of the batch at offset, for a refusal or a
 * repair note ("<dir>/<segment>.log, the batch at offset O (at or after
 * position P)"). Returns what snprintf does. */
int kq_log_describe(kq_log *log, int64_t offset, char *buf, size_t len);

/* The base offset of the latest segment from which the log's tail holds at
 * least `bytes` (the log start if it is smaller, or if that segment begins
 * below it): where a bounded rebuild of state from the log begins. */
int64_t kq_log_tail_start(const kq_log *log, uint64_t bytes);

/* Calls fn(ctx, batch, len) for every whole batch from the one containing
 * `from` (the log start when from is below it) to the end of the log, each verified as by kq_log_read. fn returns
 * 0 to continue; any other value stops the scan and is returned. -EBADMSG on
 * a batch failing verification, another negative errno on a read error. */
int kq_log_scan(kq_log *log, int64_t from,
                int (*fn)(void *ctx, const uint8_t *batch, size_t len), void *ctx);

/* The epoch cache (epoch, start offset), ascending, built from the batches'
 * PartitionLeaderEpoch. Copies the most recent min(count, max) entries and
 * returns how many were copied. */
int kq_log_epochs(const kq_log *log, raft_epoch_entry *out, int max);
int kq_log_epoch_count(const kq_log *log);

/* ---- Reads planned now and served later (log_stream.c, issue 19): a
 * consumer Fetch answer refers to a range of one segment file, and its bytes
 * are read, verified as by kq_log_read, and written in bounded chunks as the
 * socket drains, so an unread answer costs a cursor, not its size. */
typedef struct kq_log_range {
    uint64_t segment_id;  /* which segment (an id no later segment reuses) */
    uint64_t pos;         /* its first byte in the segment file */
    uint64_t len;         /* bytes of whole batches */
    int64_t first_offset; /* the offset asked for: the first batch holds it */
} kq_log_range;

typedef struct kq_log_cursor {
    kq_log_range range;
    uint64_t done;       /* bytes of the range already read */
    int64_t next_offset; /* base offset the next batch must have (after the first) */
    uint64_t batch_left; /* bytes of a verified batch larger than cap still to hand out */
    int64_t batch_next;  /* next_offset once that batch is done */
} kq_log_cursor;

/* The range kq_log_read would return for the same arguments, planned from
 * batch headers only (no CRC read yet). Returns 0 with range->len 0 when
 * there is nothing to read, -ERANGE below the log start, -EBADMSG when the
 * batch holding offset has a header that does not chain, -EIO on a read
 * error. */
int kq_log_plan_read(kq_log *log, int64_t offset, int64_t end_offset, size_t max_bytes,
                     kq_log_range *range);

void kq_log_cursor_init(kq_log_cursor *cur, const kq_log_range *range);

/* Reads the next whole batches of cur's range into buf (at most cap bytes),
 * verified as by kq_log_read, and advances cur. A batch larger than cap is
 * verified first (read in cap-sized pieces, its CRC computed across them)
 * and then handed out in pieces of at most cap bytes, so that a streamed
 * answer never holds more than cap bytes at once. Returns the bytes read
 * (> 0), 0 once the range is done, -ENOBUFS with *need_bytes set when cap is
 * below a batch header (RECORD_BATCH_HEADER_BYTES) at a batch's start, -ESTALE when the segment is gone (deleted by
 * retention or a reset since the plan: the answer cannot be completed, which
 * is not corruption), -EBADMSG when a batch fails verification (corruption
 * of data the log holds: the executor stops the node), -EIO on a read error. */
ssize_t kq_log_cursor_read(kq_log *log, kq_log_cursor *cur, uint8_t *buf, size_t cap,
                           size_t *need_bytes);

/* ---- Searches off the loop (issue 19: nothing proportional to the
 * log's size runs on the event loop). kq_log_search_begin, on the loop,
 * captures a read-only view of the batches holding [from, limit): a dup of
 * each segment's descriptor, where the first batch lies, each segment's
 * size and end, and a copy of the epoch cache. kq_log_search_run touches
 * only the job (and the fs table, which must allow preads on a worker
 * thread, as for a flush job): it calls fn(ctx, batch, len) for every
 * batch from the one holding from while its base is below limit, each
 * verified as by kq_log_read; fn returns 0 to go on, anything else stops
 * and is returned. -EBADMSG on a batch failing verification, -EIO on a
 * short read (a reset truncated the file meanwhile: callers drop the
 * answer). Only data below the high watermark is meant: it is never
 * rewritten while the job is out, and deleted files stay readable. */
typedef struct kq_log_search_job kq_log_search_job;
/* NULL with errbuf filled (out of memory, descriptors, a read error). */
kq_log_search_job *kq_log_search_begin(kq_log *log, int64_t from, int64_t limit, char *errbuf,
                                       size_t errlen);
int kq_log_search_run(kq_log_search_job *job,
                      int (*fn)(void *ctx, const uint8_t *batch, size_t len), void *ctx);
void kq_log_search_free(kq_log_search_job *job);

#endif
