/* Test-only switches outside the Raft core, each re-creating a known bug so
 * that the deterministic simulator can prove it catches it (the core's own
 * switches are enum raft_mutant in kq/raft.h). The daemon always passes 0.
 * tests/sim/README.md names the invariant or checker that catches each. */
#ifndef KQ_MUTANTS_H
#define KQ_MUTANTS_H

enum kq_mutant {
    /* executor: the Vote answer leaves before the quorum state is durable */
    KQ_MUTANT_VOTE_SEND_BEFORE_STORE = 1u << 0,
    /* handler: acks=-1 answered once the leader's own flush covers the batch */
    KQ_MUTANT_ACKS_ALL_ON_FLUSHED = 1u << 1,
    /* producer ids: a restart does not raise the producer-id floor */
    KQ_MUTANT_PRODUCER_ID_REUSE = 1u << 2,
    /* storage: a flush that raced a truncation publishes its full end */
    KQ_MUTANT_STORAGE_IGNORE_TRUNC_FLOOR = 1u << 3,
    /* storage: recovery does not fsync what it truncated */
    KQ_MUTANT_SKIP_OPEN_FSYNC = 1u << 4,
    /* storage: recovery truncates at a corrupt flushed batch */
    KQ_MUTANT_RECOVERY_TRUNCATES_CORRUPTION = 1u << 5,
    /* executor: a failed fsync is retried and its offset counted */
    KQ_MUTANT_FSYNC_ERROR_CONTINUE = 1u << 6,
    /* handler: Raft RPCs and replica Fetch are taken on any listener, from
     * any client naming a voter (issue 9's forged replica_id) */
    KQ_MUTANT_QUORUM_ANY_LISTENER = 1u << 7,
    /* executor: retention may use a snapshot before its file is durable */
    KQ_MUTANT_DELETE_BEFORE_SNAPSHOT_DURABLE = 1u << 8,
    /* executor: a snapshot is written at the log end, above the high watermark */
    KQ_MUTANT_SNAPSHOT_ABOVE_HW = 1u << 9,
    /* handler: an OffsetCommit is answered once appended, before the high
     * watermark covers it */
    KQ_MUTANT_OFFSET_COMMIT_ON_APPEND = 1u << 10,
    /* group offsets: OffsetFetch sees commits at the log end (pending ones
     * included), not only those below the high watermark */
    KQ_MUTANT_OFFSETS_VISIBLE_AT_END = 1u << 11,
    /* handler: Produce checks only its first batch for the control and
     * transactional bits (issue 19's smuggled control batch) */
    KQ_MUTANT_CONTROL_BATCH_FIRST_ONLY = 1u << 12,
    /* executor: a snapshot that cannot be encoded or written (ENOSPC,
     * EMFILE) stops the node, as before issue 19 */
    KQ_MUTANT_SNAPSHOT_FAILURE_FATAL = 1u << 14,
    /* budget (kq/budget.h): only the per-connection bound is enforced, the
     * server-wide response budget never stops a read nor shrinks a Fetch */
    KQ_MUTANT_PER_CONNECTION_BUDGET_ONLY = 1u << 13,
    /* budget (kq/budget.h, issue 19 item 4): the quorum class has no
     * reserved share, so client floods may take the whole budget and a
     * replica Fetch answer is granted no log data */
    KQ_MUTANT_QUORUM_NO_RESERVE = 1u << 15,
    /* handler (issue 19): offset expiry ignores offsets.retention.minutes:
     * every offset of a group without members expires at each check (a
     * high bit, clear of the entries other pieces add) */
    KQ_MUTANT_OFFSETS_EXPIRE_EARLY = 1u << 24,
    /* connection pool (kq/conn_limits.h, issue 19 item 2): a full client
     * pool never evicts, it refuses, so a flood from one address that
     * filled it locks the other addresses out (a high bit, as above) */
    KQ_MUTANT_CONN_NO_EVICT = 1u << 20,
    /* connection pools: the controller listeners' connections are counted
     * in the client pool, where a flood from many addresses can evict or
     * refuse the quorum's peers */
    KQ_MUTANT_CONN_PEERS_IN_CLIENT_POOL = 1u << 21,
    /* transactions (issue 23): read_committed reads and ListOffsets stop at
     * the high watermark, not the last stable offset (open transactions
     * shown) */
    KQ_MUTANT_LSO_IGNORES_OPEN_TXN = 1u << 16,
    /* EndTxn answered once its marker is appended, before it commits */
    KQ_MUTANT_MARKER_BEFORE_COMMIT = 1u << 17,
    /* InitProducerId with a known transactional id keeps the epoch: the
     * old producer (a zombie) is not fenced */
    KQ_MUTANT_NO_FENCING_ON_INIT = 1u << 18,
    /* an ABORT marker makes its transaction's offset commits visible */
    KQ_MUTANT_ABORT_KEEPS_OFFSETS = 1u << 19,
    /* group membership (issue 24): a new leader's coordinator does not
     * restore the groups of the group store (members rejoin after every
     * failover, the behaviour before issue 24) */
    KQ_MUTANT_MEMBERSHIP_NOT_REPLICATED = 1u << 22,
    /* executor + group offsets (issue 24): tombstones of expired and
     * deleted offsets are applied only by the leader that appends them: a
     * follower's table, its snapshots and every rebuild (at start, after a
     * truncation) skip them, so a leader change or a restart brings the
     * offsets back */
    KQ_MUTANT_EXPIRY_RESURRECTS = 1u << 25,
    /* group offsets (issue 24): OffsetFetch answers a committed offset in
     * the trailing run of control batches with the log end, not the end of
     * the committed run (the high watermark) */
    KQ_MUTANT_RUN_END_UNCOMMITTED = 1u << 26,
    /* consumer groups (KIP-848, src/group): a partition moved to another
     * member is given to it at once, without waiting for its previous owner
     * to revoke it (CurrentAssignmentBuilder's UNRELEASED_PARTITIONS step
     * skipped) */
    KQ_MUTANT_DOUBLE_ASSIGNMENT = 1u << 23,
};

#endif
