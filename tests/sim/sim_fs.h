/* An in-memory, deterministic, faulty file system behind the kq_fs table
 * (include/kq/fs.h): one instance is one simulated node's disk. No clock, no
 * global state, single-threaded; every random choice comes from a sim_prng
 * the caller passes (tests/sim/prng.h), so a seed replays a run exactly.
 *
 * Files. Each file (inode) has a current image (what reads see) and a
 * durable image (what survives a power loss). Between the two lies the
 * file's ordered list of unflushed operations (pwrite and ftruncate, in call
 * order). Internally only the current image is stored, and each unflushed
 * operation keeps the bytes it overwrote (an undo log), so the durable image
 * and every image in between can be rebuilt; contiguous pwrites are merged
 * into one operation, which leaves the set of possible power-loss outcomes
 * unchanged. fdatasync makes the current image durable. Files are
 * independent of each other.
 *
 * Directories. The namespace (path -> file) has a durable copy as well: each
 * directory keeps its own ordered list of pending operations (create,
 * rename, unlink), made durable by fsync_dir of that directory. A rename
 * inside one directory is one operation (atomic); across directories it is
 * two: the new name in the target's list and the removal in the source's.
 * Simplification: mkdir is durable at once and takes its parent's pending
 * operations with it (as a journal commit would); directories are never
 * removed or renamed (rename of a directory: -ENOTSUP, unlink: -EISDIR).
 * A file stays readable and writable through open descriptors after its last
 * name is gone. dup shares the file and the access mode.
 *
 * Paths: "/" separated; empty and "." components are ignored, ".." goes up
 * (not above the root); relative paths start at the root.
 *
 * Power loss (sim_fs_power_loss), in this order:
 *   1. every descriptor is closed;
 *   2. every directory, walked depth first in creation order, keeps its
 *      durable entries plus its first k pending operations, k uniform in
 *      [0, pending]; the result is both its durable and current namespace;
 *   3. every file still named somewhere, in creation order, keeps its
 *      durable image plus its first k unflushed operations, k uniform in
 *      [0, unflushed]; when k < unflushed and operation k (the first one not
 *      kept whole) is a pwrite of len > 1 bytes, half the time its first j
 *      bytes are kept too, j uniform in [1, len) (a torn write, which
 *      extends the file to at least pos + j; a hole before pos reads as
 *      zeros). The result is the file's new durable and current image.
 *      Files with no name left are freed.
 * Process kill (sim_fs_process_kill): descriptors closed, nothing else: what
 * was written stays visible and stays unflushed.
 * Armed faults survive both; sim_fs_clear_faults disarms them.
 *
 * Limits: total bytes (default SIM_FS_DEFAULT_CAPACITY_BYTES) count every
 * file's current size plus the old bytes kept to undo its unflushed
 * overwrites and truncations (appends cost only their own bytes); a pwrite or
 * ftruncate that would exceed the cap fails with -ENOSPC and changes nothing.
 * Files, directories, pending operations and descriptors are capped by the
 * constants below (-ENOSPC, -ENOSPC, -ENOSPC, -EMFILE). Descriptors are
 * never reused while open, and a closed descriptor's number is not handed
 * out again for a long time (it carries a generation), so a stale one fails
 * with -EBADF. */
#ifndef SIM_FS_H
#define SIM_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/fs.h"
#include "prng.h"

#define SIM_FS_DEFAULT_CAPACITY_BYTES (256ull << 20)
#define SIM_FS_MAX_FILES 65536
#define SIM_FS_MAX_DIRS 4096
#define SIM_FS_MAX_PENDING_OPS (1 << 20) /* file and directory operations, per fs */
#define SIM_FS_MAX_FDS 1024
#define SIM_FS_NAME_MAX 255
#define SIM_FS_PATH_MAX 4096

typedef struct sim_fs sim_fs;

/* An empty file system (just the root directory), or NULL if out of memory. */
sim_fs *sim_fs_create(void);
/* Frees everything; descriptors and tables handed out die with it. NULL ok. */
void sim_fs_destroy(sim_fs *fs);
/* The kq_fs table whose ctx is fs (lives as long as fs). */
const kq_fs *sim_fs_table(sim_fs *fs);

/* Power loss as described above; prng drives every choice. */
void sim_fs_power_loss(sim_fs *fs, sim_prng *prng);
/* A process kill: every descriptor closed, all data kept (still unflushed). */
void sim_fs_process_kill(sim_fs *fs);

/* Fault injection. n <= 0 disarms; err must be a negative errno (anything
 * else means -EIO). Faults hit only calls that pass argument checks.
 * The next n fdatasync / fsync_dir calls (together) return err and make
 * nothing durable; a failed fdatasync also drops the file's unflushed writes
 * (its current image falls back to the durable one), as Linux drops dirty
 * pages after a writeback error: a retried fsync "succeeds" with them gone. */
void sim_fs_fail_fsync(sim_fs *fs, int n, int err);
/* The next n pwrites return err (e.g. -ENOSPC) and write nothing. Checked
 * before a short write. */
void sim_fs_fail_pwrite(sim_fs *fs, int n, int err);
/* The next n pwrites write only a strict prefix of len bytes, k uniform in
 * [0, len) (0 when len is 0), and return k. The lengths come from a stream
 * seeded by one draw from prng at this call. */
void sim_fs_short_pwrite(sim_fs *fs, int n, sim_prng *prng);
/* The next n preads return err (e.g. -EIO) and read nothing. */
void sim_fs_fail_pread(sim_fs *fs, int n, int err);
/* While suffix is not NULL: every open of a path ending in suffix
 * (at_open), or else every pwrite through a descriptor opened on one,
 * returns err (e.g. -EMFILE, -ENOSPC) and does nothing; descriptors opened
 * while it was armed keep it for pwrite. NULL disarms (a snapshot job's
 * file failing alone, tests/sim/w_node.c). */
void sim_fs_fail_path(sim_fs *fs, const char *suffix, bool at_open, int err);
/* Disarms every fault above. */
void sim_fs_clear_faults(sim_fs *fs);
/* While paused, armed faults stay armed but neither fire nor count down
 * (for a checker reading a node's log through the same fs). */
void sim_fs_pause_faults(sim_fs *fs, bool paused);
/* Flips bit (0..7) of byte pos of the file at path (current namespace) in
 * every image: durable, current (if pos < current size) and each one in
 * between. 0, -ENOENT (no such file), -EISDIR, -EINVAL (pos beyond the
 * durable size, bit > 7, bad path). */
int sim_fs_flip_durable_bit(sim_fs *fs, const char *path, uint64_t pos, unsigned bit);

/* Inspection for checkers. */
typedef struct sim_fs_file_info {
    const char *path;      /* absolute, e.g. "/data/__cluster_metadata-0/x.log" */
    uint64_t durable_bytes; /* size of the file's durable image */
    uint64_t current_bytes; /* size of what reads see */
    bool name_durable;      /* this name -> file mapping is in the durable namespace */
    int unflushed_ops;      /* pending (merged) pwrite/ftruncate operations */
} sim_fs_file_info;
/* Calls fn for every file of the current namespace, depth first, each
 * directory's entries in creation order; stops and returns fn's value if it
 * is not 0. fn must not change fs. -ENOMEM possible. */
typedef int (*sim_fs_list_fn)(void *arg, const sim_fs_file_info *info);
int sim_fs_list(sim_fs *fs, sim_fs_list_fn fn, void *arg);
/* The current bytes of the file at path (current namespace), malloc'd (the
 * caller frees; never NULL on success, even for an empty file). 0, -ENOENT,
 * -EISDIR, -EINVAL, -ENOMEM. */
int sim_fs_read_file(sim_fs *fs, const char *path, uint8_t **buf_out, size_t *len_out);
/* The same for what a power loss right now would keep at the least: the
 * durable image of the file the *durable* namespace names path. */
int sim_fs_read_durable_file(sim_fs *fs, const char *path, uint8_t **buf_out, size_t *len_out);

typedef struct sim_fs_stats {
    uint64_t fdatasync_calls; /* including failed ones */
    uint64_t fsync_dir_calls;
    uint64_t pwrite_calls;
    uint64_t bytes_written; /* bytes pwrite accepted */
    uint64_t pread_calls;
    uint64_t bytes_read;
    uint64_t power_losses;
    uint64_t process_kills;
} sim_fs_stats;
sim_fs_stats sim_fs_get_stats(const sim_fs *fs);

/* Capacity (see Limits). Lowering it below the bytes in use refuses only
 * growth. */
void sim_fs_set_capacity_bytes(sim_fs *fs, uint64_t capacity_bytes);
uint64_t sim_fs_used_bytes(const sim_fs *fs);
/* Open descriptors (for leak checks). */
int sim_fs_open_fds(const sim_fs *fs);

#endif
