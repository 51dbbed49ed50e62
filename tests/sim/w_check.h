/* Invariants and checkers of the whole-server simulation. Per-event checks
 * run after every event or at the hook that observes what they guard; the
 * end-of-run checks read every live node's log back through src/storage.
 * A failure reads "invariant NAME: ..." or "NAME: ..." (end of run). */
#ifndef SIM_W_CHECK_H
#define SIM_W_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

enum w_check_id {
    /* per event / at the hook */
    W_INV_SINGLE_LEADER,       /* at most one leader per epoch */
    W_INV_MONOTONIC_EPOCH,     /* a node's epoch never drops, across restarts */
    W_INV_MONOTONIC_HW,        /* a leader's HW never drops; newest leader >= every HW seen */
    W_INV_ONE_VOTE,            /* a voter grants at most one vote per epoch, across restarts */
    W_INV_FETCH_DURABLE,       /* a follower never fetches above its durable (flushed) end */
    W_INV_MAJORITY_DURABLE,    /* a leader's HW is flushed on a majority of voters */
    W_INV_COMMITTED_DATA,      /* committed batches never change */
    W_INV_NO_TRUNCATE_COMMITTED, /* no node truncates a committed batch */
    W_INV_ACKED_DURABLE,       /* an acks=-1 success is flushed on a majority when answered */
    W_INV_RECOVERED_DURABLE,   /* a restart recovers at least what storage called flushed */
    W_INV_CONSUMER_COMMITTED,  /* a consumer never reads at or above the highest HW */
    W_INV_PRODUCER_ID_UNIQUE,  /* InitProducerId never hands out an id twice */
    W_INV_SILENT_AFTER_FATAL,  /* a node that failed answers nothing more */
    W_INV_FLUSHED_DURABLE,     /* storage's flushed offset never exceeds what the disk keeps */
    /* KIP-630 (issue 11) */
    W_INV_SNAPSHOT_AT_LOG_START, /* a log starting above 0 has a durable snapshot ending there */
    W_INV_SNAPSHOT_BELOW_HW,   /* a snapshot is written only at or below the node's HW */
    W_INV_LEADER_NO_SNAPSHOT,  /* a leader never loads a snapshot (LeaderNeverLoadSnapshot) */
    W_INV_LOG_START,           /* a node's log start never drops; a consumer is refused only below it */
    /* consumer-group offsets (issue 12, w_check_groups.c) */
    W_INV_OFFSETS_DURABLE,     /* an OffsetFetch sent after an acked commit of v sees >= v */
    W_INV_OFFSETS_NOT_INVENTED, /* a fetched offset is -1 or one the group's client sent */
    W_INV_OFFSETS_MONOTONIC,   /* a group's OffsetFetch answers never drop (in real time) */
    /* issue 19 (w_check_control.c) */
    W_INV_NO_CLIENT_CONTROL,   /* no control batch a client wrote is appended to any log */
    /* issue 19 item 9 (w_node.c injects the faults) */
    W_INV_SNAPSHOT_FAILURE_NOT_FATAL, /* a node never stops because a snapshot write failed */
    /* memory held for clients (issue 19) */
    W_INV_RESPONSE_BUDGET,     /* a node's buffered client answers never pass its budget */
    /* the quorum first (issue 19 item 4, w_check_quorum.c) */
    W_INV_VOTER_FETCH_TIMELY,  /* a voter's fetch on a healthy link is served within the fetch timeout */
    /* connection floods (issue 19 item 2, w_check_conn.c) */
    W_INV_QUORUM_CONNECTIONS,  /* a peer connection is never refused nor evicted */
    W_INV_CLIENT_ADMITTED,     /* a flood holding the most idle connections never locks out another address */
    /* KIP-853 reconfiguration (issue 20, w_check_voters.c) */
    W_INV_CHANGE_AFTER_EPOCH_COMMIT, /* a leader appends a Voters record only with its HW known */
    W_INV_ONE_UNCOMMITTED_CHANGE, /* a leader holds at most one Voters record above its HW */
    W_INV_TOLD_HW_MONOTONIC,   /* the HWs Fetch answers tell a node never go back (Kafka's follower throws) */
    /* transactions (issue 23, w_check_txn.c) */
    W_INV_TXN_READ_COMMITTED,  /* read_committed never reads an aborted or undecided record */
    W_INV_TXN_ATOMIC,          /* a committed transaction is read whole or not at all */
    W_INV_TXN_FENCED_NO_APPEND, /* InitProducerId fences the id's older producer */
    W_INV_TXN_LSO,             /* the LSO never passes an undecided transaction */
    W_INV_TXN_OFFSETS,         /* an aborted transaction's offsets are never visible */
    /* group membership through the log (issue 24, w_check_groups.c) */
    W_INV_GROUP_MEMBERSHIP_KEPT, /* a member is not forgotten within its session timeout */
    /* DeleteGroups, OffsetDelete, expiry (issue 24, w_check_deleted.c) */
    W_INV_DELETED_STAYS_DELETED, /* a deleted or expired offset never comes back */
    /* KIP-848 consumer groups (issue 24, w_check_cgroups.c) */
    W_INV_GROUP_EXCLUSIVE,     /* no partition owned by two members of a group at once */
    W_INV_PER_EVENT_COUNT,
    /* end of run */
    W_CHECK_LIVENESS = W_INV_PER_EVENT_COUNT, /* leader, commit, catch-up within 60 s */
    W_CHECK_SCENARIO,          /* a scenario's own expectation (e.g. a stable leader) */
    W_CHECK_FINAL,             /* identical committed logs; acked records once, in order */
    W_CHECK_COUNT
};
/* The checks are bits of a uint64_t mask (--skip-invariant, the failures
 * seen): past 63 the mask must widen. */
_Static_assert(W_CHECK_COUNT <= 63, "the check masks are 64-bit: widen them first");
#define W_CHECKS_ALL ((UINT64_C(1) << W_CHECK_COUNT) - 1)
#define W_CHECKS_PER_EVENT ((UINT64_C(1) << W_INV_PER_EVENT_COUNT) - 1)

extern const char *const w_check_names[W_CHECK_COUNT];
int w_check_find(const char *name);
/* Whether check c is on (and counts it as evaluated). */
bool w_check_on(w_world *w, enum w_check_id c);
uint64_t w_check_count(const w_world *w);

struct w_check *w_check_create(void);
void w_check_destroy(struct w_check *c);

/* ---- hooks from the harness */
void w_check_after_event(w_world *w);
void w_check_on_committed(w_world *w, int node, int64_t hw);
/* Before each action the executor carries out (truncation checks). */
void w_check_before_action(w_world *w, int node, const raft_action *a);
/* A peer request leaving node `from` (decoded: Fetch offsets; Vote
 * requests are noted in *req for the answer). */
void w_check_on_peer_request(w_world *w, int from, const uint8_t *frame, size_t len,
                             w_req *req);
/* A node answered a peer request (decoded: Vote grants). */
void w_check_on_peer_answer(w_world *w, int node, const w_req *req, const uint8_t *frame,
                            size_t len);
/* voter-fetch-timely (w_check_quorum.c): a peer request's answer arrived
 * (answered) or it failed; its request timeout passed unanswered. */
void w_check_on_peer_done(w_world *w, const w_req *req, bool answered);
void w_check_on_peer_timeout(w_world *w, const w_req *req);
/* Node idx restarted: storage had called flushed_before durable before the
 * crash; the recovered log ends at end_after. */
void w_check_on_restart(w_world *w, int idx, int64_t flushed_before, int64_t end_after,
                        const raft_quorum_state *stored);
/* Node idx's disk was replaced by an empty one (issue 20 item 6): its own
 * history (epoch, votes, log start, HW) starts over; what the cluster
 * committed must survive on the others. */
void w_check_on_disk_replaced(w_world *w, int idx);
/* Node idx refused to start (err: why). */
void w_check_on_refusal(w_world *w, int idx, const char *err);
/* Node idx is about to write snapshot id (its state is fixed). */
void w_check_on_snapshot(w_world *w, int idx, raft_snapshot_id id);
/* Node idx stopped (fatal) while its snapshot job's write had failed with
 * the injected resource error rc (snapshot-failure-not-fatal). */
void w_check_on_snapshot_fatal(w_world *w, int idx, const char *what, int rc);
/* A consumer was refused OFFSET_OUT_OF_RANGE at offset by a node that
 * reported log_start and high_watermark. */
void w_check_on_out_of_range(w_world *w, int client, int64_t offset, int64_t log_start,
                             int64_t high_watermark);
/* A node that failed (fatal) tried to answer. */
void w_check_on_reply_after_fatal(w_world *w, int idx);

/* ---- hooks from the clients */
/* An acks=-1 Produce succeeded: the batch's records (values[i] at
 * base_offset + i). producer_id/base_sequence -1 when not idempotent. */
void w_check_on_acked(w_world *w, int client, int64_t base_offset, const uint64_t *values,
                      int count, int64_t producer_id, int32_t base_sequence);
/* A consumer read the record with value at offset. */
void w_check_on_consumed(w_world *w, int client, int64_t offset, uint64_t value);
/* InitProducerId answered with a new id (epoch 0). */
void w_check_on_producer_id(w_world *w, int client, int64_t producer_id);
/* A value a producer sent at least once (so the final check can tell
 * invented records from sent ones). */
void w_check_on_sent(w_world *w, uint64_t value);

/* ---- hooks from the offset committers (w_client_group.c); one group per
 * client, its commits strictly increasing, one in flight at a time */
/* What an OffsetFetch must see, fixed when it is sent. */
typedef struct w_offsets_floor {
    int64_t acked;   /* highest commit acknowledged before it was sent; -1 none */
    int64_t fetched; /* highest offset answered to one answered before it was sent; -1 none */
    /* deleted-stays-deleted (issue 24): the latest deletion known before it
     * was sent: answered NONE to the client (its send time; INT64_MIN
     * none), and in the committed log (its offset; -1 none) */
    int64_t deleted_sent_ms;
    int64_t deleted_at;
} w_offsets_floor;
void w_check_on_offset_commit_sent(w_world *w, int client, int64_t value);
/* group-membership-kept (issue 24): a group member's JoinGroup, SyncGroup,
 * Heartbeat or OffsetCommit sent at sent_ms naming member incarnation inc
 * (0: no member id) and generation was answered error; after a NONE answer
 * the member is incarnation inc at generation (the answer's). */
void w_check_on_member_answer(w_world *w, int client, int64_t sent_ms, uint32_t inc,
                              int32_t generation, int16_t error, int32_t session_timeout_ms,
                              int32_t rebalance_timeout_ms);
/* The end of the committed record (a hint for committers that keep up with
 * the log, issue 24). */
int64_t w_check_committed_end(const w_world *w);
void w_check_on_offset_commit_acked(w_world *w, int client, int64_t value);
/* group-membership-kept for a KIP-848 member (issue 24): its group was
 * answered GROUP_ID_NOT_FOUND (by node, to a request of op) within its
 * session timeout of its last request answered NONE (sent at
 * last_ok_sent_ms). */
void w_check_on_consumer_group_lost(w_world *w, int client, int node, const char *op,
                                    int64_t last_ok_sent_ms, int64_t session_timeout_ms);
/* Any answer to the commit of value arrived (acknowledged or refused: its
 * place in the log, if any, is before anything sent after now). */
void w_check_on_offset_commit_answered(w_world *w, int client, int64_t value);
/* Issue 24: a DeleteGroups or OffsetDelete of the client's group (its
 * partition) is sent: a handle for its outcome; answered (false: failed,
 * the outcome unknown), deleted: answered NONE for the group/partition. */
int w_check_on_delete_sent(w_world *w, int client);
void w_check_on_delete_done(w_world *w, int client, int handle, bool answered, bool deleted);
w_offsets_floor w_check_on_offset_fetch_sent(w_world *w, int client);
/* An OffsetFetch answered NONE with offset (-1: none) by node; final: the
 * end-of-run one, to the leader after convergence. */
void w_check_on_offset_fetched(w_world *w, int client, const w_offsets_floor *floor,
                               int64_t offset, int node, bool final);
/* End of run (after w_check_final's log checks): one OffsetFetch per group
 * client to the leader, which must answer NONE within the liveness bound. */
bool w_check_final_offsets(w_world *w, int leader);

/* ---- transactions (w_check_txn.c, issue 23) */
/* Client `client` is transactional producer of id "tx<tid>". */
void w_check_txn_on_client(w_world *w, int client, int tid);
/* Its InitProducerId was answered NONE with (pid, epoch). */
void w_check_txn_on_init(w_world *w, int client, int tid, int64_t pid, int16_t epoch);
/* Its EndTxn(commit) was answered NONE: the records acknowledged in the
 * transaction, and the offset it committed for group t<tid> (-1: none). */
void w_check_txn_on_committed(w_world *w, int client, const uint64_t *values, int count,
                              int64_t offset_value);
/* An OffsetFetch of group t<tid> is sent: what it must not go below. */
int64_t w_check_txn_on_offset_fetch_sent(w_world *w, int tid);
void w_check_txn_on_offset_fetched(w_world *w, int client, int tid, int64_t floor,
                                   int64_t offset, int node);
/* A read_committed consumer read value at offset; its position moved to
 * next; it reset to offset (below the log start). */
void w_check_txn_on_rc_read(w_world *w, int client, int64_t offset, uint64_t value);
void w_check_txn_on_rc_position(w_world *w, int client, int64_t next);
void w_check_txn_on_rc_reset(w_world *w, int client, int64_t offset);
/* A consumer's Fetch answered NONE by node with hw and last stable offset lso. */
void w_check_txn_on_lso(w_world *w, int client, int node, int64_t hw, int64_t lso);

/* ---- KIP-848 consumer groups (w_check_cgroups.c, issue 24): group-exclusive.
 * Server side, after every event: every leader's group coordinator passes
 * group_consumer_check_exclusive (no partition in two members' assigned or
 * pending-revocation sets). Client side, from the members of one group
 * (slot: the index of its first client): a member taking a partition that
 * another member holds, by an answer of the coordinator that answered the
 * holder, at the holder's member epoch, or while the holder's session and
 * any revocation (told, or possibly started by a heartbeat whose answer it
 * has not had) could not have timed out yet. */
typedef struct w_cg_tp {
    kq_uuid topic_id;
    int32_t partition;
} w_cg_tp;
/* Where a heartbeat answer came from: the coordinator (w_net's answer_coord:
 * node, incarnation, Raft epoch; 0 none), the member epoch it gave and when
 * the node answered. */
typedef struct w_cg_from {
    uint64_t coord;
    int32_t epoch;
    int64_t answered_ms;
} w_cg_from;
/* Client `client`, member of group slot `slot` with rebalance timeout
 * rebalance_ms, had its heartbeat sent at sent_ms answered NONE. */
void w_check_cg_on_answer(w_world *w, int client, int slot, int64_t sent_ms, int32_t rebalance_ms,
                          const w_cg_from *from);
/* It now holds exactly tps[n] (what it consumes); the partitions it did not
 * hold before came with the answer *from (NULL when it holds none). */
void w_check_cg_on_holds(w_world *w, int client, int slot, const w_cg_tp *tps, int n,
                         const w_cg_from *from);
/* The answer to its heartbeat sent at sent_ms takes partitions it holds
 * away: it revokes them (the coordinator's revocation timeout runs from
 * no earlier than sent_ms). */
void w_check_cg_on_revoke(w_world *w, int client, int64_t sent_ms);
/* It sent a heartbeat (the coordinator may start a revocation while serving
 * it, even if the answer never arrives). */
void w_check_cg_on_sent(w_world *w, int client, int64_t sent_ms);
/* Server side: every running node's coordinator. */
void w_check_cg_after_event(w_world *w);

/* ---- issue 19 (w_check_control.c): a hostile client sent a control batch
 * with this CRC; no node may append it. */
void w_check_on_client_control(w_world *w, uint32_t crc);

/* ---- connections (w_check_conn.c): c was refused by its node's pool
 * (v); victim is evicted for by (still open, by not yet). */
void w_check_on_conn_refused(w_world *w, const w_conn *c, kq_conn_verdict v);
void w_check_on_conn_evicted(w_world *w, const w_conn *victim, const w_conn *by);

/* ---- KIP-853 (w_check_voters.c) */
/* The operator settled a change: replica (id, dir) added (or removed). */
void w_check_on_voter_change(w_world *w, bool added, int32_t id, kq_uuid dir);
/* The voter set in force at node idx's core; NULL when it is not running. */
const kq_voter_set *w_voters_of(const w_world *w, int idx);
/* The set in force of the current leader, else of the running node of the
 * highest epoch; NULL when none runs. */
const kq_voter_set *w_voters_now(const w_world *w);
/* Whether node idx, with the directory it has now, is a voter of set. */
bool w_in_set(const w_world *w, const kq_voter_set *set, int idx);
/* Voters of set (NULL: the world's static ones) flushed past offset. */
int w_set_flushed_past(const w_world *w, const kq_voter_set *set, int64_t offset);
int w_set_majority(const w_world *w, const kq_voter_set *set);
/* End of run: every settled change holds in the leader's set in force. */
bool w_check_final_voters(w_world *w, int leader);

/* ---- end of run: every running node's log below final_hw, read through
 * src/storage, is byte-identical; every acked record is there once, at its
 * offset, in the order acknowledged per client; no idempotent batch twice;
 * every consumed record is there at its offset. */
bool w_check_final(w_world *w, int leader, int64_t final_hw);

#endif
