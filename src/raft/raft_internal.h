/* Private state of the Raft core, shared by its files (one job each):
 * raft.c (create, step dispatch, status), quorum.c (role transitions and the
 * durable quorum state), election.c (votes, candidates), leader.c (leader
 * duties, high watermark, resignation), follower.c (fetching, epoch
 * requests), fetch.c (serving Fetch as leader), outbound.c (request slots and
 * timeouts), actions.c (output helpers), directory.c (directory ids, issue
 * 20 item 6), epoch_cache.c, prng.c. */
#ifndef KQ_RAFT_INTERNAL_H
#define KQ_RAFT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/raft.h"
#include "kq/record.h"

/* Actions kept free for STORE_QSTATE, responses and FLUSH when the core emits
 * optional actions (request retries, parked fetch answers). */
#define RAFT_ACTIONS_RESERVE 6

/* One outbound request slot per peer: at most one request in flight.
 * Responses carry no request id, so the slot remembers what was asked: a
 * response counts only if it can answer that request (a duplicate, or a late
 * answer to a request that timed out, must not). */
typedef struct raft_outbound {
    bool inflight;
    enum raft_msg_type type;
    int32_t epoch;       /* our epoch when it was sent */
    int64_t sent_ms;
    int64_t deadline_ms; /* treated as SEND_FAILED when reached */
    int64_t retry_at_ms; /* no new request before this */
    /* Fetch only: what the request asked. */
    int64_t fetch_offset;
    int32_t fetch_last_epoch;
    int32_t fetch_max_wait_ms;
    bool fetch_keepalive; /* sent while a flush was out: its records are not appended */
} raft_outbound;

typedef struct raft_peer {
    int32_t id;
    raft_outbound out;
    bool vote_responded;
    bool vote_granted;
    bool begin_acked; /* leader: BeginQuorumEpoch acknowledged (or fetched) */
    bool end_acked;   /* resigned: EndQuorumEpoch acknowledged */
    int64_t end_offset;
    int64_t last_fetch_ms;
    int64_t last_caught_up_ms;
    /* Leader: this voter fetches with a directory id other than the one
     * remembered (its log directory was replaced, issue 20 item 6). Its
     * fetch offset counts toward the high watermark only once it reaches
     * dir_catchup_offset (our log end when the mismatch was seen: all its
     * predecessor could have acknowledged); then dir_new is remembered. */
    bool dir_replaced;
    int64_t dir_catchup_offset;
    kq_uuid dir_new;
    /* Leader, observers: the directory id of its last fetch (KIP-853: an
     * AddRaftVoter's replica must have caught up under this key), and
     * whether it was a voter until a change removed it. */
    kq_uuid fetch_dir;
    bool removed_voter;
    /* Leader: its own end when this peer last fetched (0: none yet), for
     * last_caught_up_ms as Kafka's ReplicaState keeps it. */
    int64_t last_fetch_leader_end;
} raft_peer;

typedef struct raft_parked_fetch {
    uint64_t token;
    int32_t replica_id;
    int32_t epoch;
    int64_t fetch_offset;
    int32_t max_bytes;
    int64_t expire_ms;
    int64_t hw_at_park;
} raft_parked_fetch;

typedef struct raft_epoch_cache {
    raft_epoch_entry *entries; /* RAFT_EPOCH_CACHE_MAX, allocated at create */
    int count;
    /* The epoch of everything below the first entry: the epoch of the
     * snapshot at the log start (0 without one). */
    int32_t base_epoch;
} raft_epoch_cache;

/* The one voter change a leader has in progress (reconfig.c). */
typedef struct raft_voter_change {
    bool active;
    bool answered;           /* answered already (on append) */
    bool ack_when_committed; /* AddRaftVoter v1 */
    enum raft_msg_type type;
    int32_t from;
    uint64_t token;
    int64_t deadline_ms;
    int64_t offset; /* its Voters record; -1: an add waiting for catch-up */
    kq_voter voter; /* an add's new voter */
} raft_voter_change;

struct raft {
    raft_config cfg;
    bool is_voter;
    enum raft_role role;
    raft_quorum_state q;
    bool qstate_pending; /* store q in the next output (decided at create) */
    int64_t now_ms;
    uint64_t prng;

    int64_t end_offset;
    int64_t flushed_offset;
    int64_t repair_end;      /* see raft_log_state; 0 none */
    int32_t repair_epoch;
    int64_t high_watermark; /* -1 unknown */
    bool flush_inflight;
    int64_t flush_target;
    int64_t linger_start_ms; /* leader: unflushed appends seen since; -1 none */
    /* While a flush is out, a follower's next keepalive fetch (at its flushed
     * end) is due at this time (raft_maybe_fetch). */
    int64_t flush_keepalive_at_ms;
    raft_epoch_cache ec;
    /* KIP-630: the log start, the snapshot ending there and the newest. */
    int64_t log_start;
    raft_snapshot_id start_snapshot;
    raft_snapshot_id latest_snapshot;
    /* A follower's snapshot transfer (snapshot.c). */
    bool fs_active;
    bool fs_installing; /* INSTALL emitted, INSTALLED not yet seen */
    raft_snapshot_id fs_id;
    int64_t fs_position;
    int64_t fs_size;    /* -1 until the first chunk */

    raft_peer voters[RAFT_VOTERS_MAX];
    int voter_count;
    raft_peer observers[RAFT_OBSERVERS_MAX];
    int observer_count;
    /* Whom a node without a leader asks (KIP-853): the bootstrap servers,
     * ids -2, -3, ... (a leader outside its voter set is an observer entry:
     * raft_fetch_peer). */
    raft_peer contacts[RAFT_BOOTSTRAP_SERVERS_MAX];
    int contact_count;

    /* unattached / voted / candidate / resigned */
    int64_t election_deadline_ms;
    /* candidate and prospective */
    bool backing_off;
    int64_t backoff_deadline_ms;
    int election_retries;
    /* follower (and observers looking for a leader) */
    int64_t fetch_deadline_ms;
    int32_t fetch_target;
    /* The last leader followed (-1 none): an observer whose voter set names
     * no one else to ask asks it (KIP-853; Kafka has bootstrap servers). */
    int32_t seek_fallback;
    int64_t leader_hw;
    /* A new directory (q.new_directory): the first leader HW it learnt since
     * it started (-1 none); it votes as a full copy once it holds that. */
    int64_t dir_catchup_hw;
    /* The leader confirmed our log below this in this epoch (answered a fetch
     * there without divergence, or sent the records): no truncation below. */
    int64_t fetch_verified_end;
    /* Last time the leader answered a fetch or began its epoch with us (-1
     * none): a follower that heard from it within the fetch timeout refuses
     * pre-votes. Cleared when the epoch or the leader changes. */
    int64_t leader_contact_ms;
    /* An EndQuorumEpoch from the leader shortened fetch_deadline_ms. */
    bool end_epoch_shortened;
    /* Epoch whose leader told us it resigned (EndQuorumEpoch), or -1: a
     * pre-vote refusal naming that leader is stale, not a reason to go back. */
    int32_t leader_resigned_epoch;
    bool end_epoch_preferred;
    /* leader */
    int64_t epoch_start_offset;
    bool leader_hw_known; /* committed something in this epoch (Kafka: HW known) */
    int64_t check_quorum_deadline_ms;
    raft_parked_fetch parked[RAFT_PARKED_FETCH_MAX];
    int parked_count;
    /* resigned */
    int32_t successors[RAFT_VOTERS_MAX];
    int successor_count;
    bool shutting_down;
    bool shutdown_done;
    int64_t shutdown_deadline_ms;
    /* set when an optional action was skipped for lack of room */
    bool action_overflow;

    kq_writer lc_writer; /* preallocated: no malloc after create */

    /* KIP-853 (voters.c): the static voters as a set, and the voter
     * history (RAFT_VOTER_HISTORY_MAX entries, allocated at create). */
    kq_voter_set static_voters;
    raft_voter_entry *vh;
    int vh_count;
    raft_voter_entry *vh_scan; /* scratch for raft_voters_scan, same size */
    kq_voter_set applied; /* the set r->voters was last built from */
    raft_voter_change vc;
    /* Leader at kraft.version 0 (upgrade.c): the static voters with what
     * their UpdateRaftVoter told (directory id, endpoint, kraft.version
     * range), Kafka's LeaderState.volatileVoters, for an upgrade to 1. */
    kq_voter_set volatile_voters;
    /* Follower at kraft.version 0: the epoch whose leader took our
     * UpdateRaftVoter (-1 none yet). */
    int32_t updated_epoch;
    bool join_is_update; /* the request on the join slot is an UpdateRaftVoter */
    /* auto-join (autojoin.c): the request out to the leader, if any */
    bool join_inflight;
    int64_t join_deadline_ms;
    int64_t join_next_ms;
};

/* prng.c */
uint64_t raft_prng_next(raft *r);
/* Uniform in [0, bound); 0 when bound is 0. */
uint32_t raft_prng_below(raft *r, uint32_t bound);

/* epoch_cache.c */
void raft_ec_append(raft_epoch_cache *ec, int32_t epoch, int64_t start_offset);
void raft_ec_truncate(raft_epoch_cache *ec, int64_t offset);
int32_t raft_ec_last_epoch(const raft_epoch_cache *ec);
/* Epoch of the batch holding offset (0 when none). */
int32_t raft_ec_epoch_of(const raft_epoch_cache *ec, int64_t offset);
/* Largest epoch <= epoch and the offset where it ends (log_end for the last
 * one); (0, 0) when there is none. */
void raft_ec_end_for(const raft_epoch_cache *ec, int32_t epoch, int64_t log_end,
                     int32_t *found_epoch, int64_t *end_offset);

/* actions.c */
raft_action *raft_out_push(raft_output *out, enum raft_action_type type);
/* True while more than RAFT_ACTIONS_RESERVE slots are free. */
bool raft_out_has_room(raft *r, const raft_output *out);
/* The log now ends at offset (lower): end, flushed, epoch cache follow. */
void raft_note_end(raft *r, raft_output *out, int64_t offset);
/* Refetching data lost to corruption (raft_log_state.repair_end_offset). */
static inline bool raft_repairing(const raft *r)
{
    return r->repair_end > r->flushed_offset;
}
void raft_out_send(raft_output *out, const raft_msg *msg);
void raft_out_reason(raft_output *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void raft_wake(raft_output *out, int64_t at_ms);

/* directory.c: directory ids (issue 20 item 6, KIP-853's ReplicaKey). */
bool raft_dir_set(const kq_uuid *id);
bool raft_dir_checks(const raft *r); /* off with no own id or the mutant */
/* The remembered id of voter id (NULL: not a voter). */
kq_uuid *raft_voter_dir(raft *r, int32_t id);
/* The directory id a request to voter id names (Vote, BeginQuorumEpoch):
 * the voter set's entry, or the one remembered in static mode (zero). */
kq_uuid raft_peer_dir(raft *r, int32_t id);
/* With the voter set in the log (KIP-853): a request names this node with
 * another directory id (Kafka's isValidVoterKey fails): INVALID_VOTER_KEY. */
bool raft_dir_other_key(const raft *r, const kq_uuid *dir);
/* Emits STORE_QSTATE for the current q now. */
void raft_store_qstate(raft *r, raft_output *out);
/* A voter's own request named its directory id: remembered if unknown. */
void raft_dir_learn(raft *r, raft_output *out, int32_t id, const kq_uuid *dir);
/* Leader: a voter's fetch with its directory id; false while it must not
 * count toward the high watermark (a replaced directory catching up). */
bool raft_dir_fetch_counts(raft *r, raft_output *out, raft_peer *p, const kq_uuid *dir,
                           int64_t fetch_offset);
/* The new directory caught up with a leader (or leads): it may vote. */
void raft_dir_caught_up(raft *r, raft_output *out);

/* quorum.c: transitions. Each stores the quorum state first if it changed. */
int raft_majority(const raft *r);
raft_peer *raft_voter(raft *r, int32_t id);
/* The voter, bootstrap server or observer entry (a leader outside our
 * set, KIP-853) of id. */
raft_peer *raft_peer_of(raft *r, int32_t id);
/* Every peer with an outbound slot: the voters, the bootstrap servers,
 * then the observers (a follower's leader outside its set is kept there). */
static inline int raft_peer_count(const raft *r)
{
    return r->voter_count + r->contact_count + r->observer_count;
}
static inline raft_peer *raft_peer_at(raft *r, int i)
{
    if (i < r->voter_count)
        return &r->voters[i];
    i -= r->voter_count;
    return i < r->contact_count ? &r->contacts[i] : &r->observers[i - r->contact_count];
}
void raft_become_unattached(raft *r, raft_output *out, int32_t epoch, const char *why);
void raft_become_voted(raft *r, raft_output *out, int32_t epoch, int32_t candidate);
void raft_become_candidate(raft *r, raft_output *out, const char *why);
/* Pre-vote (KIP-996): asks for votes for epoch+1 without leaving the epoch. */
void raft_become_prospective(raft *r, raft_output *out, const char *why);
/* A voter's timer expired: prospective, or candidate at once when alone. */
void raft_start_election(raft *r, raft_output *out, const char *why);
void raft_become_follower(raft *r, raft_output *out, int32_t epoch, int32_t leader,
                          const char *why);
void raft_become_leader(raft *r, raft_output *out);
void raft_become_resigned(raft *r, raft_output *out, const int32_t *successors,
                          int successor_count, const char *why);
int64_t raft_election_timeout(raft *r);
/* Arms a follower's fetch timer: the configured timeout, plus for voters a
 * jitter in [0, election_timeout_ms / 2) from the core's PRNG. */
int64_t raft_fetch_timeout(raft *r);
/* Applies what a response says about the leader and epoch; returns true if
 * the epoch moved (the response is then stale for the caller). */
bool raft_observe_leader(raft *r, raft_output *out, int32_t leader_id, int32_t epoch);

/* outbound.c */
/* Sends a request to peer unless one is in flight or it backs off. */
bool raft_request(raft *r, raft_output *out, raft_peer *peer, raft_msg *msg);
bool raft_can_request(raft *r, const raft_peer *peer, const raft_output *out);
/* True if a request that response_type answers is in flight to peer and was
 * sent in the current epoch. */
bool raft_request_pending(const raft *r, const raft_peer *peer,
                          enum raft_msg_type response_type);
/* Marks the slot answered; false (and no change) unless it was pending. */
bool raft_request_done(raft *r, raft_peer *peer, enum raft_msg_type response_type);
void raft_request_failed(raft *r, raft_peer *peer);
void raft_requests_expire(raft *r);
void raft_requests_wake(raft *r, raft_output *out);
void raft_peers_reset(raft *r);

/* election.c */
void raft_on_vote_request(raft *r, const raft_msg *m, raft_output *out);
void raft_on_vote_response(raft *r, const raft_msg *m, raft_output *out);
void raft_poll_candidate(raft *r, raft_output *out);
void raft_poll_unattached(raft *r, raft_output *out);
void raft_poll_prospective(raft *r, raft_output *out);

/* leader.c */
void raft_leader_on_elected(raft *r, raft_output *out);
void raft_leader_update_hw(raft *r, raft_output *out);
void raft_poll_leader(raft *r, raft_output *out);
void raft_poll_resigned(raft *r, raft_output *out);
void raft_on_client_append(raft *r, const raft_event *ev, raft_output *out);
void raft_on_shutdown(raft *r, raft_output *out);
void raft_poll_shutdown(raft *r, raft_output *out);
void raft_on_begin_epoch_response(raft *r, const raft_msg *m, raft_output *out);
void raft_on_end_epoch_response(raft *r, const raft_msg *m, raft_output *out);
int64_t raft_leader_serve_end(const raft *r);
int raft_successors_by_progress(raft *r, int32_t *ids);
/* Appends one control batch the leader builds (record_build_control)
 * taking records offsets; false when the output had no room. */
bool raft_leader_append_control(raft *r, raft_output *out, const record_control_args *c,
                                int records);

/* fetch.c */
void raft_on_fetch_request(raft *r, const raft_msg *m, raft_output *out);
void raft_parked_service(raft *r, raft_output *out);
raft_peer *raft_observer(raft *r, int32_t id, bool create);
/* A follower's fetch target (its leader), among the voters or the observers. */
raft_peer *raft_fetch_peer(raft *r, int32_t id, bool create);
/* The high watermark answers and the status tell: -1 from a leader whose
 * epoch has not committed yet (Kafka's LeaderState). */
int64_t raft_told_hw(const raft *r);

/* follower.c */
/* How long a flush may be out before a follower sends a keepalive fetch at
 * its flushed end, and how often it repeats one: a quarter of the fetch
 * timeout, so that a multi-second fsync costs neither side its contact. */
static inline int64_t raft_flush_keepalive_ms(const raft *r)
{
    return r->cfg.fetch_timeout_ms / 4 > 0 ? r->cfg.fetch_timeout_ms / 4 : 1;
}
void raft_poll_follower(raft *r, raft_output *out);
void raft_maybe_fetch(raft *r, raft_output *out);
void raft_on_fetch_response(raft *r, const raft_msg *m, raft_output *out);
void raft_on_begin_epoch_request(raft *r, const raft_msg *m, raft_output *out);
void raft_on_end_epoch_request(raft *r, const raft_msg *m, raft_output *out);
void raft_follower_update_hw(raft *r, raft_output *out);

/* snapshot.c */
/* Kafka's validateOffsetAndEpoch: the fetcher must take the latest snapshot. */
bool raft_fetch_needs_snapshot(const raft *r, int64_t fetch_offset, int32_t last_epoch);
void raft_on_fetch_snapshot_request(raft *r, const raft_msg *m, raft_output *out);
void raft_on_fetch_snapshot_response(raft *r, const raft_msg *m, raft_output *out);
bool raft_snapshot_answer_valid(const raft_outbound *req,
                                const raft_snapshot_id *id);
/* Not while a flush is out, and never below the high watermark. */
bool raft_snapshot_can_begin(const raft *r, const raft_outbound *req, const raft_snapshot_id *id);
void raft_snapshot_begin(raft *r, raft_output *out, const raft_snapshot_id *id);
/* Drops a transfer in progress (ABORT), e.g. when the leader changes. */
void raft_snapshot_drop(raft *r, raft_output *out);
bool raft_snapshot_request(raft *r, raft_output *out, raft_peer *p);
void raft_on_snapshot_installed(raft *r, const raft_event *ev, raft_output *out);
void raft_on_snapshots(raft *r, const raft_event *ev);

/* voters.c (KIP-853): the voter history and the set in force. */
bool raft_voters_dynamic(const raft *r); /* the set in force came from the log */
bool raft_is_voter_replica(const raft *r, int32_t id, const kq_uuid *dir);
/* Rebuilds r->voters (and is_voter) from the set in force. */
void raft_voters_apply(raft *r, raft_output *out);
/* Whether one more entry fits (entries below the high watermark fold). */
bool raft_voters_room(raft *r);
void raft_voters_push(raft *r, raft_output *out, const raft_voter_entry *e);
/* The log now ends at end_offset: entries at or above it are dropped. */
void raft_voters_truncate(raft *r, raft_output *out, int64_t end_offset);
/* A snapshot replaced the log: its entry (NULL: none) is the history. */
void raft_voters_reset(raft *r, raft_output *out, const raft_voter_entry *e);
/* The entries the KRaftVersion / Voters records of whole batches make,
 * into entries (RAFT_VOTER_HISTORY_MAX); -1 and why when they do not
 * parse or do not fit. */
int raft_voters_scan(raft *r, const uint8_t *batch, size_t len, raft_voter_entry *entries,
                     const char **why);

/* The set in force came from the bootstrap checkpoint (offset -1): the
 * next leader copies it into the log. */
bool raft_voters_from_bootstrap(const raft *r);
/* The Voters record in force is below the high watermark (or static). */
bool raft_voters_committed(const raft *r);

/* autojoin.c (controller.quorum.auto.join.enable) */
void raft_poll_auto_join(raft *r, raft_output *out);
void raft_on_auto_join_answer(raft *r, const raft_msg *m);
/* An auto-join request could not be sent or answered. */
void raft_auto_join_failed(raft *r);

/* upgrade.c (KIP-853): kraft.version 0 -> 1, UpdateRaftVoter at 0. */
void raft_upgrade_on_elected(raft *r);
void raft_on_upgrade_kraft(raft *r, const raft_msg *m, raft_output *out);
/* UpdateRaftVoter at kraft.version 0: NONE for a static voter (its key,
 * endpoint and range kept for an upgrade), else VOTER_NOT_FOUND. */
int16_t raft_upgrade_note_voter(raft *r, const kq_voter *v);
/* A follower voter at kraft.version 0 tells each new leader its key and
 * endpoint (Kafka's pollFollowerAsVoter); false: nothing to send. */
bool raft_upgrade_update_request(raft *r, raft_msg *m);

/* reconfig.c (KIP-853): AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter. */
void raft_on_voter_change_request(raft *r, const raft_msg *m, raft_output *out);
/* Appends set as the new Voters record (with a KRaftVersion record first
 * when new_kraft_version >= 0) and makes the change pending, answered once
 * committed. False: no room now. */
bool raft_reconfig_append(raft *r, raft_output *out, const raft_msg *m, const kq_voter_set *set,
                          int16_t new_kraft_version);
/* Each step: an add whose replica caught up is appended; a change is
 * answered once committed, timed out, or when leadership is lost. */
void raft_reconfig_poll(raft *r, raft_output *out);

/* raft.c */
void raft_set_hw(raft *r, raft_output *out, int64_t hw);
void raft_truncate(raft *r, raft_output *out, int64_t offset);
int64_t raft_fetch_position(const raft *r);

#endif
