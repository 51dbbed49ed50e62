/* The quorum-state file <log_dir>/__cluster_metadata-0/quorum-state in Kafka's
 * v0 JSON shape:
 * {"clusterId":"","leaderId":L,"leaderEpoch":E,"votedId":V,"appliedOffset":0,
 *  "currentVoters":[{"voterId":1},...],"data_version":0}
 * -1 means none. */
#ifndef KQ_QUORUM_STATE_FILE_H
#define KQ_QUORUM_STATE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "kq/fs.h"
#include "kq/raft.h"

/* Loads the file. A missing file gives epoch 0, voted -1, leader -1 and no
 * voters. *voter_count is in/out: the capacity of voters on input, the number
 * of voters read on output (a file with more voters than that is refused).
 * With voters NULL the voters are only counted.
 * Returns 0, or a negative errno with errbuf naming the file and the problem
 * (-EINVAL for a malformed file). */
int kq_quorum_state_load(const char *log_dir, raft_quorum_state *out, int32_t *voters,
                         int *voter_count, char *errbuf, size_t errlen);

/* Writes quorum-state.tmp, fsyncs it, renames it over quorum-state and fsyncs
 * the directory (created if missing). Returns 0 or a negative errno. */
int kq_quorum_state_store(const char *log_dir, const raft_quorum_state *qs,
                          const int32_t *voters, int voter_count, char *errbuf, size_t errlen);

/* The same through an explicit file system (NULL: kq_fs_posix()). */
int kq_quorum_state_load_fs(const kq_fs *fs, const char *log_dir, raft_quorum_state *out,
                            int32_t *voters, int *voter_count, char *errbuf, size_t errlen);
int kq_quorum_state_store_fs(const kq_fs *fs, const char *log_dir, const raft_quorum_state *qs,
                             const int32_t *voters, int voter_count, char *errbuf,
                             size_t errlen);

#endif
