/* The Raft core: Kafka's Raft variant (KIP-595) as a pure state machine.
 *
 * It does no I/O, reads no clock and starts no thread. The daemon and the
 * deterministic simulator drive it the same way: feed one event (with the
 * current time) to raft_step(), then carry out the returned actions in order.
 *
 * Two contracts bind whoever drives it:
 *  - Every action after a RAFT_ACTION_STORE_QSTATE in one output is carried
 *    out only after that quorum state is durable ("durable before visible").
 *  - RAFT_EVENT_FLUSHED reports an offset only once every byte below it is on
 *    stable storage. The core counts only flushed offsets: the leader never
 *    serves or commits above its own flushed end offset and a follower never
 *    fetches from above its own (the seed change, KAFKA-10533).
 *    A TRUNCATE may come while a FLUSH is still out (a follower's keepalive
 *    fetch during a slow flush learned of a divergence): the FLUSHED of that
 *    flush must not report more than the cut (storage's truncation floor).
 */
#ifndef KQ_RAFT_H
#define KQ_RAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h" /* kq_uuid */
#include "kq/limits.h"
#include "kq/voter_set.h"


enum raft_role {
    RAFT_ROLE_UNATTACHED = 0,
    RAFT_ROLE_VOTED,
    RAFT_ROLE_CANDIDATE,
    RAFT_ROLE_LEADER,
    RAFT_ROLE_FOLLOWER,
    RAFT_ROLE_RESIGNED,
    /* KIP-996: asking for pre-votes for epoch+1 without leaving its epoch */
    RAFT_ROLE_PROSPECTIVE,
};
const char *raft_role_name(enum raft_role role);

/* Test-only switches that re-create known bugs so the simulator can prove it
 * catches them. The daemon always passes 0. */
enum raft_mutant {
    RAFT_MUTANT_SKIP_FLUSH = 1u << 0,      /* count appended, unflushed data (pre-fix seed) */
    RAFT_MUTANT_VOTE_NO_LOG_CHECK = 1u << 1,/* grant votes without the up-to-date check */
    RAFT_MUTANT_HW_COUNTS_OBSERVER = 1u << 2,/* observers count towards the majority */
    RAFT_MUTANT_HW_ANY_EPOCH = 1u << 3,     /* advance HW before an entry of this epoch commits */
    /* grant a pre-vote while still following a live leader (KIP-996 check) */
    RAFT_MUTANT_PREVOTE_IGNORES_LEADER_CONTACT = 1u << 4,
    /* a follower's HW covers its whole flushed log, also the part the
     * leader has not confirmed (a tail of its own from an epoch it led) */
    RAFT_MUTANT_FOLLOWER_HW_UNVERIFIED = 1u << 5,
    /* directory ids ignored (issue 20 item 6): a replaced directory votes
     * and counts as its predecessor */
    RAFT_MUTANT_IGNORE_DIRECTORY_ID = 1u << 6,
    /* KIP-853 reconfiguration (issue 20): a leader changes the voter set
     * before it has committed an entry of its own epoch (the single-server
     * change bug, Ongaro 2015) */
    RAFT_MUTANT_CHANGE_BEFORE_EPOCH_COMMIT = 1u << 7,
    /* ... while an earlier change is still uncommitted */
    RAFT_MUTANT_TWO_CHANGES_IN_FLIGHT = 1u << 8,
    /* a removed voter's fetch still counts toward the high watermark */
    RAFT_MUTANT_HW_COUNTS_REMOVED_VOTER = 1u << 9,
    /* a new voter is added without having caught up as an observer */
    RAFT_MUTANT_ADD_BEFORE_CAUGHT_UP = 1u << 10,
    /* a new leader's Fetch answers tell the HW it knew as a follower before
     * its epoch commits (Kafka's tell -1: a Kafka follower that knew more
     * throws on a high watermark going back) */
    RAFT_MUTANT_TELL_HW_BEFORE_EPOCH_COMMIT = 1u << 11,
};

/* KIP-853: one step of the voter history. From offset on (-1: from the
 * bootstrap checkpoint, before the log), kraft.version is kraft_version
 * and, if has_voters, the voters are voters. The latest entry is in force,
 * committed or not, as in Kafka (VoterSetHistory); a truncation below an
 * entry's offset reverts it. */
typedef struct raft_voter_entry {
    int64_t offset;
    int16_t kraft_version;
    bool has_voters;
    kq_voter_set voters;
} raft_voter_entry;

typedef struct raft_config {
    int32_t node_id;
    /* The static voters (quorum.voters / controller.quorum.voters), in
     * force while the voter history holds no voter set (kraft.version 0).
     * 0: none given (a formatted kraft.version 1 directory). */
    int32_t voter_ids[RAFT_VOTERS_MAX];
    int voter_count;
    uint32_t election_timeout_ms;     /* quorum.election.timeout.ms */
    uint32_t fetch_timeout_ms;        /* quorum.fetch.timeout.ms */
    uint32_t election_backoff_max_ms; /* quorum.election.backoff.max.ms */
    uint32_t request_timeout_ms;      /* quorum.request.timeout.ms */
    uint32_t retry_backoff_ms;        /* quorum.retry.backoff.ms */
    uint32_t fetch_max_wait_ms;       /* long-poll wait a follower asks for (Kafka: 500) */
    uint32_t fetch_max_bytes;         /* per follower fetch */
    /* controller.quorum.fetch.snapshot.max.bytes: one FetchSnapshot chunk
     * (asked by a follower, granted at most by a leader); 0: 1 MiB. */
    uint32_t fetch_snapshot_max_bytes;
    /* quorum.append.linger.ms: a leader with unflushed appends waits this
     * long after the first of them before it starts the fsync covering
     * them, so that one fsync covers more (0: at once). Followers never
     * wait: the leader's high watermark waits for their flush. */
    uint32_t append_linger_ms;
    uint64_t random_seed;
    /* controller.quorum.bootstrap.servers (KIP-853): how many; the core
     * names them -2, -3, ... (raft_bootstrap_id) and an observer that
     * knows no leader fetches from them. 0: it asks the voters. */
    int bootstrap_count;
    /* controller.quorum.auto.join.enable (KIP-853/KIP-1186): an observer of
     * a kraft.version 1 quorum that follows a leader asks it to add
     * `local` (this node's id, directory id and controller endpoint), or
     * first to remove an entry of its id with another directory id. */
    bool auto_join;
    kq_voter local;
    /* This node's log directory id (KIP-853; meta.properties' directory.id
     * or the one kept in the quorum state); all zero: none, no checks. */
    kq_uuid directory_id;
    uint32_t mutants; /* enum raft_mutant bits; 0 outside the simulator */
} raft_config;

/* Durable election state (the quorum-state file). -1 means none. */
typedef struct raft_quorum_state {
    int32_t epoch;
    int32_t voted_id;
    int32_t leader_id;
    /* Issue 20 item 6 (a replaced log directory is not its old self):
     * voter_directory_ids[i] is the directory id remembered for
     * config.voter_ids[i], learnt from that voter's own requests (all zero:
     * not known yet). new_directory: this directory got its id at its first
     * start with an empty log and no quorum state (a fresh cluster, or a
     * wiped disk): it grants no vote to a candidate with a non-empty log
     * until it has caught up with a leader's high watermark. */
    kq_uuid voter_directory_ids[RAFT_VOTERS_MAX];
    bool new_directory;
    /* This node's own directory id, kept here for a directory that has no
     * meta.properties (raft_create sets it from config.directory_id). */
    kq_uuid directory_id;
} raft_quorum_state;

/* A snapshot (KIP-630): the state of the log below end_offset; epoch is
 * the epoch of the batch at end_offset - 1. end_offset -1: none. */
typedef struct raft_snapshot_id {
    int64_t end_offset;
    int32_t epoch;
} raft_snapshot_id;

typedef struct raft_epoch_entry {
    int32_t epoch;
    int64_t start_offset;
} raft_epoch_entry;

/* What the core knows about the log when it starts (after recovery, when the
 * whole log is flushed). */
typedef struct raft_log_state {
    int64_t end_offset;
    const raft_epoch_entry *epochs; /* ascending, from the batches' leader epochs */
    int epoch_count;
    /* Repair (issue 8): storage found corruption below its recovery point
     * and truncated to the last good batch; the log once held up to
     * repair_end_offset durably, its last batch in repair_last_epoch. Until
     * it has fetched and flushed that far again the node votes as if it
     * still had that end and does not stand for election, so that it never
     * helps elect a leader lacking data it held. 0: no repair. */
    int64_t repair_end_offset;
    int32_t repair_last_epoch;
    /* Snapshots (KIP-630). The log starts at start_offset (0: from the
     * beginning); when it is above 0 there is a snapshot ending exactly
     * there (Kafka's SnapshotAtLogStart), start_snapshot, whose epoch is
     * the epoch before the first batch. latest_snapshot is the newest
     * snapshot (end_offset -1: none), what a follower below the log start
     * is sent. Zero-initialised callers mean "no snapshot" only when both
     * end offsets are set to -1 or start_offset is 0. */
    int64_t start_offset;
    raft_snapshot_id start_snapshot;
    raft_snapshot_id latest_snapshot;
    /* KIP-853: the voter history, ascending by offset: the state the
     * snapshot at the log start holds (or Kafka's bootstrap checkpoint,
     * offset -1), then each KRaftVersion and Voters record of the log.
     * Empty: kraft.version 0 with the static voters. */
    const raft_voter_entry *voter_history;
    int voter_history_count;
} raft_log_state;

/* ---- Messages (our own structs; handler/raft_rpc.c maps them to the wire) */

enum raft_msg_type {
    RAFT_MSG_VOTE_REQUEST = 1,
    RAFT_MSG_VOTE_RESPONSE,
    RAFT_MSG_BEGIN_EPOCH_REQUEST,
    RAFT_MSG_BEGIN_EPOCH_RESPONSE,
    RAFT_MSG_END_EPOCH_REQUEST,
    RAFT_MSG_END_EPOCH_RESPONSE,
    RAFT_MSG_FETCH_REQUEST,
    RAFT_MSG_FETCH_RESPONSE,
    RAFT_MSG_FETCH_SNAPSHOT_REQUEST,  /* KIP-630 FetchSnapshot (API 59) */
    RAFT_MSG_FETCH_SNAPSHOT_RESPONSE,
    /* KIP-853 (issue 20): AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter,
     * answered by the leader with RAFT_MSG_VOTER_CHANGE_RESPONSE. */
    RAFT_MSG_ADD_VOTER_REQUEST,
    RAFT_MSG_REMOVE_VOTER_REQUEST,
    RAFT_MSG_UPDATE_VOTER_REQUEST,
    RAFT_MSG_VOTER_CHANGE_RESPONSE,
    /* UpdateFeatures kraft.version (KIP-853): a static quorum's voters move
     * into the log; answered with RAFT_MSG_VOTER_CHANGE_RESPONSE. */
    RAFT_MSG_UPGRADE_KRAFT_REQUEST,
};


typedef struct raft_vote_request {
    int32_t candidate_epoch;
    int32_t candidate_id;
    int32_t last_epoch;
    int64_t last_epoch_end_offset;
    kq_uuid candidate_directory_id; /* the candidate's own (zero: none) */
    kq_uuid voter_directory_id;     /* the receiver's, as the candidate knows it */
    /* KIP-996 pre-vote: asks whether the voter would grant a vote in
     * candidate_epoch; answering it changes no state on the voter. */
    bool pre_vote;
} raft_vote_request;

/* Responses carry two error levels as on the wire: a top-level error and a
 * partition error; the leader id/epoch are the responder's view (-1 none). */
typedef struct raft_vote_response {
    int16_t error;
    int16_t partition_error;
    int32_t leader_id;
    int32_t leader_epoch;
    bool vote_granted;
} raft_vote_response;

typedef struct raft_begin_epoch_request {
    int32_t leader_epoch;
    int32_t leader_id;
    kq_uuid voter_directory_id; /* the receiver's, as the leader knows it */
} raft_begin_epoch_request;

typedef struct raft_epoch_response { /* BeginQuorumEpoch and EndQuorumEpoch */
    int16_t error;
    int16_t partition_error;
    int32_t leader_id;
    int32_t leader_epoch;
} raft_epoch_response;

typedef struct raft_end_epoch_request {
    int32_t leader_epoch;
    int32_t leader_id;
    int32_t preferred_successors[RAFT_VOTERS_MAX];
    int preferred_count;
} raft_end_epoch_request;

typedef struct raft_fetch_request {
    int32_t replica_id;
    int32_t current_leader_epoch;
    int64_t fetch_offset;
    int32_t last_fetched_epoch;
    int32_t max_wait_ms;
    int32_t max_bytes;
    kq_uuid replica_directory_id; /* the fetcher's own (zero: none) */
    /* KIP-1166 (Fetch v18): the fetcher's high watermark, -1 when it knows
     * none; INT64_MAX when it does not say (older versions, consumers). */
    int64_t high_watermark;
} raft_fetch_request;

typedef struct raft_fetch_response {
    int16_t error;
    int16_t partition_error;
    int64_t high_watermark;
    int32_t leader_id;
    int32_t leader_epoch;
    /* Set (epoch >= 0) when the fetcher's log diverges: truncate to end_offset. */
    int32_t diverging_epoch;
    int64_t diverging_end_offset;
    /* Outbound (from a leader): whoever sends it fills the records by reading
     * the log from read_offset, at most read_max_bytes, never at or past
     * read_end_offset (the leader's flushed end). read_offset == read_end_offset
     * means no records.
     * Inbound (to a follower): records/records_len are the batches received. */
    int64_t read_offset;
    int64_t read_end_offset;
    int32_t read_max_bytes;
    const uint8_t *records;
    size_t records_len;
    /* Set (end_offset > 0) when the fetcher must fetch this snapshot
     * instead (its offset is below the leader's log start, or its last
     * epoch diverges below it): KafkaRaftClient's SnapshotId. */
    raft_snapshot_id snapshot_id;
} raft_fetch_response;

typedef struct raft_fetch_snapshot_request {
    int32_t replica_id;
    int32_t current_leader_epoch;
    raft_snapshot_id snapshot_id;
    int64_t position;  /* byte offset in the snapshot file */
    int32_t max_bytes;
    kq_uuid replica_directory_id; /* the fetcher's own (zero: none) */
} raft_fetch_snapshot_request;

typedef struct raft_fetch_snapshot_response {
    int16_t error;
    int16_t partition_error;
    int32_t leader_id;
    int32_t leader_epoch;
    raft_snapshot_id snapshot_id;
    /* Outbound (from a leader): whoever sends it reads the snapshot file
     * from position, at most read_max_bytes, and fills size, bytes and
     * bytes_len, or sets partition_error to SNAPSHOT_NOT_FOUND (no such
     * file) or POSITION_OUT_OF_RANGE (position beyond its size).
     * Inbound (to a follower): size is the whole file's, bytes the chunk
     * that starts at position. */
    int64_t size;
    int64_t position;
    int32_t read_max_bytes;
    const uint8_t *bytes;
    size_t bytes_len;
} raft_fetch_snapshot_response;

typedef struct raft_add_voter_request {
    kq_voter voter;          /* id, directory id, endpoint */
    bool ack_when_committed; /* KIP-1186; false: answer once appended */
    int32_t timeout_ms;
} raft_add_voter_request;

typedef struct raft_remove_voter_request {
    int32_t voter_id;
    kq_uuid directory_id;
} raft_remove_voter_request;

typedef struct raft_update_voter_request {
    int32_t current_leader_epoch;
    kq_voter voter; /* the sender's id, directory id, endpoint, kraft range */
} raft_update_voter_request;

typedef struct raft_upgrade_kraft_request {
    int16_t level;      /* the kraft.version asked for */
    bool validate_only;
} raft_upgrade_kraft_request;

typedef struct raft_voter_change_response {
    int16_t error;
    const char *message; /* static text, NULL: none */
} raft_voter_change_response;

typedef struct raft_msg {
    enum raft_msg_type type;
    int32_t from; /* sender node id (a fetch from a consumer never reaches the core) */
    int32_t to;   /* destination node id */
    /* Requests arriving at the core carry the token the driver uses to route
     * the answer; responses the core emits carry the same token back. Requests
     * the core sends have token 0; responses arriving at the core have 0. */
    uint64_t token;
    union {
        raft_vote_request vote_request;
        raft_vote_response vote_response;
        raft_begin_epoch_request begin_epoch_request;
        raft_epoch_response begin_epoch_response;
        raft_end_epoch_request end_epoch_request;
        raft_epoch_response end_epoch_response;
        raft_fetch_request fetch_request;
        raft_fetch_response fetch_response;
        raft_fetch_snapshot_request fetch_snapshot_request;
        raft_fetch_snapshot_response fetch_snapshot_response;
        raft_add_voter_request add_voter_request;
        raft_remove_voter_request remove_voter_request;
        raft_update_voter_request update_voter_request;
        raft_upgrade_kraft_request upgrade_kraft_request;
        raft_voter_change_response voter_change_response;
    } u;
} raft_msg;

/* ---- Events */

enum raft_event_type {
    RAFT_EVENT_TICK = 1,       /* time passed; nothing else */
    RAFT_EVENT_RECEIVE,        /* a request or a response arrived */
    RAFT_EVENT_SEND_FAILED,    /* an outbound request to msg.to could not be delivered */
    RAFT_EVENT_FLUSHED,        /* everything below flushed_offset is durable */
    RAFT_EVENT_CLIENT_APPEND,  /* append client batches (leader only) */
    RAFT_EVENT_SHUTDOWN,       /* graceful shutdown requested */
    /* The log was cut lower than a TRUNCATE asked, at log_end_offset (the
     * start of the batch holding the offset asked: a peer's DivergingEpoch
     * end inside one of our batches, as Kafka truncates). */
    RAFT_EVENT_LOG_TRUNCATED,
    /* The node's snapshots or log start changed (a snapshot was made
     * durable, retention advanced the log start): snapshots.start_offset,
     * start_snapshot and latest_snapshot as in raft_log_state. */
    RAFT_EVENT_SNAPSHOTS,
    /* The outcome of a SNAPSHOT_INSTALL: ok, and then the log is empty and
     * starts at snapshot_id.end_offset (everything durable); or not ok
     * (the file failed validation and was dropped): fetch again. */
    RAFT_EVENT_SNAPSHOT_INSTALLED,
};

typedef struct raft_event {
    enum raft_event_type type;
    int64_t now_ms;
    raft_msg msg;            /* RECEIVE; SEND_FAILED uses type and to */
    int64_t flushed_offset;  /* FLUSHED */
    int64_t log_end_offset;  /* LOG_TRUNCATED */
    struct {                 /* CLIENT_APPEND: one or more v2 batches, already validated */
        const uint8_t *records;
        size_t len;
        int32_t offset_count; /* total offsets the batches take (sum of lastOffsetDelta+1) */
    } append;
    struct {                 /* SNAPSHOTS */
        int64_t start_offset;
        raft_snapshot_id start_snapshot;
        raft_snapshot_id latest_snapshot;
    } snapshots;
    struct {                 /* SNAPSHOT_INSTALLED */
        bool ok;
        raft_snapshot_id snapshot_id;
        /* The snapshot's KRaftVersion and Voters records (KIP-853), as an
         * entry at snapshot_id.end_offset - 1; NULL: it holds none. */
        const raft_voter_entry *voters;
    } installed;
} raft_event;

/* ---- Actions */

enum raft_action_type {
    RAFT_ACTION_STORE_QSTATE = 1, /* make qstate durable before anything after it */
    RAFT_ACTION_TRUNCATE,         /* drop the log at and above offset */
    RAFT_ACTION_APPEND,           /* append batches */
    RAFT_ACTION_FLUSH,            /* start an fsync covering everything appended so far */
    RAFT_ACTION_SEND,             /* send msg (a request, or a response by token) */
    /* Follower fetching a snapshot (KIP-630): write chunk bytes at position
     * of the snapshot's .part file (position 0 starts a new one). */
    RAFT_ACTION_SNAPSHOT_WRITE,
    /* The .part file is complete: validate it, make it durable, replace the
     * log (and producer state) by it, then report SNAPSHOT_INSTALLED. Never
     * emitted by a leader (Kafka's LeaderNeverLoadSnapshot), never while a
     * flush is out. */
    RAFT_ACTION_SNAPSHOT_INSTALL,
    RAFT_ACTION_SNAPSHOT_ABORT,   /* drop the .part file of snapshot_id */
};

typedef struct raft_action {
    enum raft_action_type type;
    raft_quorum_state qstate; /* STORE_QSTATE */
    int64_t offset;           /* TRUNCATE: new end offset. FLUSH: end offset to cover */
    struct {                  /* APPEND */
        const uint8_t *records; /* borrowed: valid until the next raft_step */
        size_t len;
        /* Leader appends (base_offset >= 0): rewrite each batch's BaseOffset
         * (consecutively from base_offset) and PartitionLeaderEpoch (epoch);
         * follower appends (base_offset == -1): write the batches as they are. */
        int64_t base_offset;
        int32_t epoch;
    } append;
    raft_msg msg; /* SEND */
    struct {      /* SNAPSHOT_WRITE / INSTALL / ABORT */
        raft_snapshot_id id;
        int64_t position;
        const uint8_t *bytes; /* borrowed: valid until the next raft_step */
        size_t len;
    } snapshot;
} raft_action;

typedef struct raft_output {
    raft_action actions[RAFT_ACTIONS_MAX];
    int action_count;
    int64_t wake_at_ms;        /* call raft_step with a TICK no later than this */
    /* CLIENT_APPEND result: error (KAFKA_NOT_LEADER_OR_FOLLOWER, ...) or the
     * base offset assigned to the first batch. */
    int16_t append_error;
    int64_t append_base_offset;
    /* The high watermark moved up: records below it are committed. */
    bool high_watermark_changed;
    int64_t high_watermark;
    bool role_changed;         /* role, epoch or leader changed; see raft_status */
    /* The voter set in force changed (raft_get_voters): peers' endpoints. */
    bool voters_changed;
    bool shutdown_complete;    /* graceful shutdown finished: the driver may exit */
    /* A fetched batch at this offset failed its CRC and was dropped (-1
     * none); the driver logs it. */
    int64_t rejected_batch_offset;
    char reason[96];           /* why the role changed, for the log line */
} raft_output;

typedef struct raft_replica_status {
    int32_t replica_id;
    kq_uuid directory_id;      /* zero: unknown (DescribeQuorum v2) */
    int64_t log_end_offset;    /* -1 unknown */
    int64_t last_fetch_ms;     /* -1 unknown */
    int64_t last_caught_up_ms; /* -1 unknown */
} raft_replica_status;

typedef struct raft_status {
    enum raft_role role;
    int32_t epoch;
    int32_t leader_id;
    int32_t voted_id;
    int64_t high_watermark;   /* -1 unknown */
    int64_t log_end_offset;
    int64_t flushed_offset;
    int64_t repair_end_offset; /* > flushed_offset while repairing, else 0 */
    int64_t log_start_offset;
    raft_snapshot_id latest_snapshot; /* end_offset -1: none */
    bool fetching_snapshot;    /* a follower transferring a snapshot */
    /* Leader only: every voter (itself included) and observer it has seen. */
    raft_replica_status voters[RAFT_VOTERS_MAX];
    int voter_count;
    raft_replica_status observers[RAFT_OBSERVERS_MAX];
    int observer_count;
} raft_status;

typedef struct raft raft;

/* Creates a core from its configuration, the durable quorum state and the
 * recovered log. Returns NULL on an invalid configuration (node not a voter is
 * allowed: it is an observer). Step it with a TICK right away: the first
 * output carries any start-up actions (a single voter elects itself there). */
raft *raft_create(const raft_config *config, const raft_quorum_state *qstate,
                  const raft_log_state *log, int64_t now_ms);
void raft_destroy(raft *r);

/* Feeds one event; fills out (which it clears first). */
void raft_step(raft *r, const raft_event *event, raft_output *out);

void raft_get_status(const raft *r, raft_status *status);
bool raft_is_voter(const raft *r, int32_t node_id);
/* The id the core gives bootstrap server i (Kafka: -2 - i). */
static inline int32_t raft_bootstrap_id(int i)
{
    return -2 - i;
}
/* The voter set in force and kraft.version (KIP-853); static voters have
 * no directory ids or endpoints. */
const kq_voter_set *raft_voters(const raft *r);
int16_t raft_kraft_version(const raft *r);
/* The voter history's entry in force at offset (the state a snapshot
 * ending at offset + 1 holds); false when the history is empty there
 * (kraft.version 0, static voters). */
bool raft_voters_at(const raft *r, int64_t offset, raft_voter_entry *out);

#endif
