/* KIP-630 snapshot files of __cluster_metadata-0, as opaque bytes (their
 * content is encoded elsewhere, src/snapshot). They live beside the log in
 * <log_dir>/__cluster_metadata-0/ named as Kafka names them,
 * %020lld-%010d.checkpoint (end offset, epoch), and are always written as
 * <name>.part first and renamed once whole and durable, so a final name
 * only ever holds a complete durable file (FORMAT.md, "Snapshots").
 *
 * Every function touches only the fs table and its arguments: any of them
 * may run on a worker thread (two calls on the same snapshot id must not
 * overlap). All return 0 (or a count / size) or a negative errno. */
#ifndef KQ_SNAPSHOT_FILE_H
#define KQ_SNAPSHOT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kq/buf.h"
#include "kq/fs.h"
#include "kq/limits.h"
#include "kq/raft.h"

#define KQ_SNAPSHOT_SUFFIX ".checkpoint"
#define KQ_SNAPSHOT_PART_SUFFIX ".checkpoint.part"
#define KQ_SNAPSHOT_DELETED_SUFFIX ".checkpoint.deleted" /* Kafka's async deletion */

/* <log_dir>/__cluster_metadata-0/<end>-<epoch>.checkpoint[.part] into buf.
 * -EINVAL for a negative offset or epoch, -ENAMETOOLONG if buf is short. */
int kq_snapshot_path(char *buf, size_t len, const char *log_dir, raft_snapshot_id id, bool part);

/* The snapshots present (final names that parse exactly: 20 digits, '-',
 * 10 digits, ".checkpoint"), ascending by (end_offset, epoch). When there
 * are more than max, the NEWEST max are returned (the older ones are the
 * ones a caller deletes anyway). With remove_leftovers, every
 * *.checkpoint.part and *.checkpoint.deleted is unlinked first and the
 * directory fsync'd. A missing directory holds no snapshot (0). Returns the
 * count or -errno. */
int kq_snapshot_list(const kq_fs *fs, const char *log_dir, raft_snapshot_id *ids, int max,
                     bool remove_leftovers);

/* Writes a whole snapshot: <name>.part created (truncated), written,
 * fdatasync'd, closed, renamed to <name>, directory fsync'd. A crash at any
 * point leaves no final file or a complete durable one. len must be <=
 * KQ_SNAPSHOT_BYTES_MAX (else -EFBIG). err filled on failure. */
int kq_snapshot_write_file(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                           const uint8_t *data, size_t len, char *err, size_t errlen);

/* ---- transfer (a follower receiving FetchSnapshot chunks) */
/* Writes data at position into <name>.part: position 0 creates or truncates
 * it; any other position must equal the current .part size (else -EINVAL;
 * -ENOENT if there is no .part). The total may not pass
 * KQ_SNAPSHOT_BYTES_MAX (-EFBIG). Nothing is synced. */
int kq_snapshot_part_write(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                           int64_t position, const uint8_t *data, size_t len, char *err,
                           size_t errlen);
/* The whole .part into a malloc'd *data (caller frees; NULL for 0 bytes),
 * for validation before commit. -ENOENT, -EFBIG if larger than max_len. */
int kq_snapshot_part_read_all(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                              uint8_t **data, size_t *len, size_t max_len);
/* fdatasync's the .part, renames it to the final name, fsyncs the dir. */
int kq_snapshot_part_commit(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                            char *err, size_t errlen);
/* Unlinks the .part (a missing one is fine). */
int kq_snapshot_part_abort(const kq_fs *fs, const char *log_dir, raft_snapshot_id id);

/* ---- reading (the leader serving FetchSnapshot, a restart loading) */
/* The size of the final file; -ENOENT if missing, -EFBIG if larger than
 * KQ_SNAPSHOT_BYTES_MAX. */
int64_t kq_snapshot_size(const kq_fs *fs, const char *log_dir, raft_snapshot_id id);
/* Appends up to max_bytes from position to out. Returns bytes appended (0
 * at the end), -ENOENT (missing), -ERANGE (position < 0 or > size),
 * -ENOBUFS (out cannot grow), -EFBIG, or a read error. */
ssize_t kq_snapshot_read(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                         int64_t position, size_t max_bytes, kq_writer *out);
/* The whole file into a malloc'd *data (caller frees; NULL for 0 bytes).
 * -ENOENT, -EFBIG if larger than max_len (or KQ_SNAPSHOT_BYTES_MAX). */
int kq_snapshot_read_all(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                         uint8_t **data, size_t *len, size_t max_len);

/* Unlinks the final file and fsyncs the directory (-ENOENT if missing). */
int kq_snapshot_delete(const kq_fs *fs, const char *log_dir, raft_snapshot_id id);

#endif
