/* Fuzz target: the quorum-state file parser (include/kq/quorum_state_file.h).
 * Input: the file's bytes, written as <dir>/__cluster_metadata-0/quorum-state.
 * Property: a file that loads stores again and loads back to the same epoch,
 * vote, leader and voters. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "kq/log.h"
#include "kq/quorum_state_file.h"

#define VOTERS_MAX 64
#define ERR_BYTES 512

static void check_store_load(const char *dir, const raft_quorum_state *qs,
                             const int32_t *voters, int count)
{
    char err[ERR_BYTES];
    fuzz_clear_dir(dir);
    FUZZ_CHECK(kq_quorum_state_store(dir, qs, voters, count, err, sizeof err) == 0,
               "a loaded quorum state stores");
    raft_quorum_state back;
    int32_t again[VOTERS_MAX];
    int n = VOTERS_MAX;
    int rc = kq_quorum_state_load(dir, &back, again, &n, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "reload refused: %s\n", err);
    FUZZ_CHECK(rc == 0, "a stored quorum state loads");
    FUZZ_CHECK(back.epoch == qs->epoch && back.voted_id == qs->voted_id &&
                   back.leader_id == qs->leader_id, "same epoch, vote and leader");
    FUZZ_CHECK(n == count && memcmp(again, voters, sizeof(int32_t) * (size_t)n) == 0,
               "same voters");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_FILE_INPUT_BYTES_MAX)
        return 0;
    const char *dir = fuzz_scratch_dir();
    FUZZ_CHECK(dir != NULL, "a scratch directory");
    char pdir[FUZZ_PATH_BYTES_MAX];
    snprintf(pdir, sizeof pdir, "%s/%s", dir, KQ_LOG_PARTITION_DIR);
    fuzz_clear_dir(dir);
    FUZZ_CHECK(mkdir(pdir, 0755) == 0, "mkdir the partition directory");
    FUZZ_CHECK(fuzz_write_file(pdir, "quorum-state", data, size) == 0, "write the file");
    raft_quorum_state qs;
    int32_t voters[VOTERS_MAX];
    int count = VOTERS_MAX;
    char err[ERR_BYTES];
    if (kq_quorum_state_load(dir, &qs, voters, &count, err, sizeof err) == 0) {
        FUZZ_CHECK(count >= 0 && count <= VOTERS_MAX, "voter count within capacity");
        check_store_load(dir, &qs, voters, count);
    }
    int counted = 0;
    (void)kq_quorum_state_load(dir, &qs, NULL, &counted, err, sizeof err);
    fuzz_clear_dir(dir);
    return 0;
}
