/* Shared state of the request handlers (private to src/handler). */
#ifndef KQ_HANDLER_INTERNAL_H
#define KQ_HANDLER_INTERNAL_H

#include "kq/buf.h"
#include "kq/handler.h"
#include "kq/kafka_errors.h"
#include "kq/wire.h"
#include "kq/wire_raft_common.h"

typedef struct handler_request {
    void *slot;
    wire_request_header header;
    uint8_t *frame; /* the whole request, for relaying */
    size_t len;
    size_t body_offset; /* where the body starts in frame */
} handler_request;

/* Hands req (its decision filled) to the executor as the frame's decision
 * kind (handler.c); it comes back through handler_request_done. */
void handler_hand_over(handler *h, kq_request *req, enum handler_decision_kind kind);
/* The executor's result of a Produce's append (produce.c). */
void produce_executed(handler *h, kq_request *req);

/* client_id of requests one node relays to the leader: never relayed again. */
#define HANDLER_FORWARD_CLIENT_ID "kq-forwarded"


/* A Raft RPC received from a peer, waiting for the core's answer. */
typedef struct raft_pending {
    bool in_use;
    uint32_t generation;
    void *slot;
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    bool fetch_topic_by_id;
} raft_pending;

typedef struct produce_partition_result {
    char topic[256];
    int32_t index;
    int16_t error;
    int64_t base_offset;
    bool appended; /* waits for the commit rule */
    const char *message; /* static text for error_message (v8+), or NULL */
} produce_partition_result;

/* A produce request waiting until its offsets are flushed (acks=1) or below
 * the high watermark (acks=-1). */
typedef struct produce_pending {
    kq_request req; /* slot, header, phase, the append and its result */
    int append_index; /* which partition result the append is for; -1 none */
    int16_t acks;
    int32_t epoch;            /* leader epoch it was appended in */
    int64_t required_offset;  /* flushed offset / HW must reach this */
    int64_t deadline_ms;
    int partition_count;
    produce_partition_result *partitions; /* malloc'd */
} produce_pending;

typedef struct produce_queue {
    produce_pending *items;
    uint32_t head, tail, cap; /* ring; cap is a power of two */
} produce_queue;

/* A consumer fetch parked for long polling: the frame is kept and handled
 * again when the high watermark moves or the wait ends. */
typedef struct fetch_parked {
    bool in_use;
    void *slot;
    uint8_t *frame;
    size_t len;
    int64_t deadline_ms;
    int64_t wait_from_hw;
} fetch_parked;

/* A ListOffsets waiting for its search (list_offsets.c): the frame is kept
 * and handled again with the results. */
typedef struct time_search_parked {
    uint64_t token; /* 0: free */
    void *slot;
    uint8_t *frame;
    size_t len;
} time_search_parked;

/* The consumer-group handlers' state (group_handlers.h). */
typedef struct handler_groups handler_groups;

/* sasl_limits.c: a SASL handshake waiting for its SaslAuthenticate, and a
 * failed login's answer held for connection.failed.authentication.delay.ms. */
typedef struct sasl_pending_entry {
    struct handler_sasl *s;
    uint64_t addr_hash; /* of addr, to count per address */
    int64_t started_ms;
    char addr[KQ_SASL_ADDRESS_BYTES_MAX];
} sasl_pending_entry;

typedef struct sasl_delayed {
    bool in_use;
    bool close; /* close instead of answering (after SaslHandshake v0) */
    void *slot;
    uint8_t *data; /* malloc'd answer */
    size_t len;
    int64_t due_ms;
} sasl_delayed;

struct handler {
    handler_services svc;
    kq_arena arena;
    kq_writer out;     /* response being encoded */
    kq_writer records; /* records read from the log for a fetch */
    raft_pending raft_pending[HANDLER_RAFT_PENDING_MAX];
    uint32_t raft_generation;
    produce_queue produce_acks_all;
    produce_queue produce_acks_one;
    fetch_parked parked[HANDLER_FETCH_PARKED_MAX];
    int parked_count;
    /* The frame being handled and its decision (filled by the handle_*). */
    handler_decision *decision;
    /* Requests handed to the executor and not yet back (kq/request.h):
     * 0 whenever a frame, a tick or progress comes in. */
    int requests_out;
    /* A read of flushed data failed: the executor must stop the node. */
    bool read_failed;
    char read_failure[160];
    /* Client listeners the peers reported (by index in svc.nodes). */
    handler_endpoint peer_clients[HANDLER_NODES_MAX];
    bool peer_client_known[HANDLER_NODES_MAX];
    /* ... and per listener name (index in svc.client_listeners). */
    handler_endpoint peer_listeners[HANDLER_NODES_MAX][KQ_CONFIG_LISTENERS_MAX];
    bool peer_listener_known[HANDLER_NODES_MAX][KQ_CONFIG_LISTENERS_MAX];
    int sasl_sessions; /* sasl.c: connections holding SASL state */
    sasl_pending_entry sasl_pending[KQ_SASL_PENDING_MAX];
    int sasl_pending_count;
    sasl_delayed sasl_delayed[KQ_SASL_FAILED_DELAYED_MAX];
    int sasl_delayed_count;
    int64_t sasl_evict_logged_ms; /* evictions logged at most once per HANDLER_DENIAL_LOG_MS */
    uint64_t sasl_evict_unlogged;
    /* authorize.c: denial log lines, rate-limited per operation */
    int64_t denials_logged_ms[HANDLER_OP_COUNT];
    uint64_t denials_unlogged[HANDLER_OP_COUNT];
    handler_groups *groups; /* group_coordinator.c */
    struct handler_txns *txns; /* txn_coordinator.c */
    /* list_offsets.c: requests parked for a search, and the results being
     * answered (NULL on a first pass). */
    time_search_parked searches[HANDLER_TIME_SEARCHES_PARKED_MAX];
    int search_count;
    uint64_t search_token;
    const handler_time_search *search_result;
    int search_rc;
};

/* sasl.c */
typedef struct handler_sasl handler_sasl;
/* The slot's connection, its principal the SASL one once authenticated. */
void handler_get_conn(handler *h, void *slot, handler_conn *out);
bool handler_sasl_gate(handler *h, handler_request *req, const handler_conn *conn);
/* A raw token after SaslHandshake v0: true when the frame was one. */
bool handler_sasl_raw_token(handler *h, void *slot, const uint8_t *frame, size_t len);
void handle_sasl_handshake(handler *h, handler_request *req, kq_reader *r);
void handle_sasl_authenticate(handler *h, handler_request *req, kq_reader *r);

/* authorize.c */
bool handler_acl_allows(const handler_acl *acl, const char *principal, enum handler_op op);
/* Kafka's CLUSTER_ACTION, whether the authorizer is on or not (a SASL
 * quorum listener asks it either way): a super user or one listed for it. */
bool handler_acl_cluster_action(const handler_acl *acl, const char *principal);
/* Whether slot's principal may do op; a denial is logged (what: the API). */
bool handler_authorized(handler *h, void *slot, enum handler_op op, const char *what);

/* Where clients of conn's listener reach svc.nodes[i] (Metadata,
 * DescribeCluster brokers, FindCoordinator); conn NULL: the client
 * listener's. */
const handler_endpoint *handler_broker_endpoint(const handler *h, int i, const handler_conn *conn);
/* A peer's DescribeCluster asking for this node's endpoint on one listener
 * name (peer_endpoints.c): that endpoint, else NULL. */
#define HANDLER_ENDPOINT_CLIENT_ID_PREFIX "kq-endpoint/"
const handler_endpoint *handler_endpoint_asked(const handler *h, const handler_request *req,
                                               const handler_conn *conn);

void handler_note_read_failure(handler *h, int64_t offset, int rc);

/* Starts a response: resets the writer and writes the response header. */
/* Empties h->out, keeping room for the frame size in front. */
void handler_reset_response(handler *h);
void handler_begin_response(handler *h, const wire_request_header *hdr);
/* After begin: grows h->out once for an answer carrying records_bytes of
 * records (a size hint: h->out starts empty after a large answer was handed
 * over whole, and would otherwise grow by doubling, copying as it goes). */
void handler_size_answer(handler *h, size_t records_bytes);
void handler_finish_response(handler *h, void *slot);

void handle_api_versions(handler *h, handler_request *req, kq_reader *r);
void handle_metadata(handler *h, handler_request *req, kq_reader *r);
void handle_produce(handler *h, handler_request *req, kq_reader *r);
/* A Fetch frame as dispatched (handle_fetch with the request's own frame). */
void handle_fetch_request(handler *h, handler_request *req, kq_reader *r);
void handle_fetch(handler *h, handler_request *req, kq_reader *r, uint8_t *frame, size_t len,
                  bool may_park);
void handle_list_offsets(handler *h, handler_request *req, kq_reader *r);
void list_offsets_destroy(handler *h);
void handle_init_producer_id(handler *h, handler_request *req, kq_reader *r);
void init_producer_id_executed(handler *h, kq_request *req);
void handle_describe_quorum(handler *h, handler_request *req, kq_reader *r);
void handle_describe_cluster(handler *h, handler_request *req, kq_reader *r);

/* Consumer groups (group_*.c). */
bool groups_create(handler *h);
void groups_destroy(handler *h);
/* The executor's result of an OffsetCommit's append. */
void groups_admin_executed(handler *h, kq_request *req);
void groups_commit_executed(handler *h, kq_request *req);
void groups_on_progress(handler *h, const raft_status *st);
void groups_on_tick(handler *h, int64_t now_ms);
/* Offset expiry's tombstone batch (group_offset_expiry.c): decided on a
 * tick, handed to the executor, its outcome. */
kq_request *groups_expiry_take(handler *h);
void groups_expiry_executed(handler *h, kq_request *req);
/* Group membership's batch (group_persist.c, issue 24): taken from the
 * coordinator's changes, handed to the executor, its outcome. */
kq_request *groups_persist_take(handler *h);
void groups_persist_executed(handler *h, kq_request *req);
int64_t groups_next_deadline(const handler *h);
void handle_find_coordinator(handler *h, handler_request *req, kq_reader *r);
void handle_join_group(handler *h, handler_request *req, kq_reader *r);
void handle_sync_group(handler *h, handler_request *req, kq_reader *r);
void handle_heartbeat(handler *h, handler_request *req, kq_reader *r);
void handle_leave_group(handler *h, handler_request *req, kq_reader *r);
void handle_describe_groups(handler *h, handler_request *req, kq_reader *r);
void handle_list_groups(handler *h, handler_request *req, kq_reader *r);
void handle_offset_commit(handler *h, handler_request *req, kq_reader *r);
void handle_offset_fetch(handler *h, handler_request *req, kq_reader *r);
void handle_raft_request(handler *h, handler_request *req, kq_reader *r);
/* AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter (KIP-853; raft_voters.c). */
void handle_add_raft_voter(handler *h, handler_request *req, kq_reader *r);
/* update_features.c: UpdateFeatures kraft.version (KIP-853). */
void handle_update_features(handler *h, handler_request *req, kq_reader *r);
void update_features_encode_response(handler *h, const raft_pending *p, const raft_msg *msg);
/* The core's RAFT_MSG_VOTER_CHANGE_RESPONSE, in the API p was asked in. */
void raft_voters_encode_response(handler *h, const raft_pending *p, const raft_msg *msg);
/* Auto-join's requests to the leader and their answers (raft_voters.c). */
void raft_voters_encode_request(handler *h, kq_writer *w, wire_request_header *hdr,
                                const raft_msg *msg);
bool raft_voters_decode_response(handler *h, kq_reader *r, enum raft_msg_type request_type,
                                 int16_t api_version, raft_msg *out);
void handle_remove_raft_voter(handler *h, handler_request *req, kq_reader *r);
void handle_update_raft_voter(handler *h, handler_request *req, kq_reader *r);
/* The transaction APIs (issue 23): txn_apis.c, txn_offset_commit.c,
 * txn_describe.c. */
void handle_add_partitions_to_txn(handler *h, handler_request *req, kq_reader *r);
void handle_add_offsets_to_txn(handler *h, handler_request *req, kq_reader *r);
void handle_end_txn(handler *h, handler_request *req, kq_reader *r);
void handle_txn_offset_commit(handler *h, handler_request *req, kq_reader *r);
void handle_describe_transactions(handler *h, handler_request *req, kq_reader *r);
void handle_list_transactions(handler *h, handler_request *req, kq_reader *r);
/* Replica fetch (replica id >= 0) decoded by handle_fetch. */
struct wire_fetch_request;
void handle_replica_fetch(handler *h, handler_request *req, const struct wire_fetch_request *f);

/* The last stable offset at high watermark hw (fetch.c; issue 23). */
int64_t handler_lso(const handler *h, int64_t hw);

void produce_on_progress(handler *h, const raft_status *st);
void produce_on_tick(handler *h, int64_t now_ms);
int64_t produce_next_deadline(const handler *h);
void fetch_parked_on_progress(handler *h, bool expire_all);
void fetch_parked_on_tick(handler *h, int64_t now_ms);
int64_t fetch_parked_next_deadline(const handler *h);

/* Registers a Raft request waiting for the core; returns its token (never 0). */
uint64_t raft_pending_add(handler *h, handler_request *req, bool fetch_topic_by_id);
/* The waiting request of token, now released (NULL: stale or answered). */
raft_pending *raft_pending_take(handler *h, uint64_t token);

/* raft_rpc.c, shared with fetch_snapshot.c. Answers a Raft request at once
 * with a top-level error. */
void reply_raft_error(handler *h, handler_request *req, int16_t error);
/* quorum_auth.c: issue 9's and 19's rules (quorum listener, voter
 * certificate, CLUSTER_ACTION): whether req may speak for voter claimed_id
 * (relay: for any voter); a refusal is logged. */
bool quorum_identity_allowed(handler *h, handler_request *req, int32_t claimed_id, bool relay);
/* The same for a Raft request, answered CLUSTER_AUTHORIZATION_FAILED when
 * refused. */
bool quorum_request_allowed(handler *h, handler_request *req, int32_t claimed_id);
/* raft_rpc.c: our cluster id, else INCONSISTENT_CLUSTER_ID. */
bool cluster_id_checked(handler *h, handler_request *req, kq_slice id);
/* Hands msg (from a peer's request) to the core: HANDLER_RAFT_RECEIVE. */
void step_request(handler *h, handler_request *req, raft_msg *msg, bool by_id);

/* fetch_snapshot.c: FetchSnapshot (KIP-630) <-> raft_msg. */
void handle_fetch_snapshot(handler *h, handler_request *req, kq_reader *r);
/* Encodes the answer to p (h->out already holds the response header). */
void fetch_snapshot_encode_response(handler *h, const raft_pending *p, const raft_msg *msg,
                                    const uint8_t *chunk, size_t len, int64_t size,
                                    int16_t read_error);
/* Sets hdr's key and version, writes header and body of the core's request. */
void fetch_snapshot_encode_request(handler *h, const raft_msg *msg, wire_request_header *hdr,
                                   kq_writer *w);
/* The body of a peer's answer (after its header) into a RECEIVE msg. */
bool fetch_snapshot_decode_response(const handler *h, kq_reader *r, int16_t version, kq_arena *arena,
                                    raft_msg *out);

/* Endpoint of node id (NULL if unknown). */
const handler_endpoint *handler_endpoint_of(const handler *h, int32_t node_id);
/* This node's quorum listener's name (services' controller_listener),
 * PLAINTEXT when none was given. */
const char *handler_controller_listener(const handler *h);
/* The replicated partition's topic (handler_services.topic_name): by name,
 * by id, and its name and id to answer with. */
bool handler_is_metadata_topic(const handler *h, kq_slice name);
bool handler_is_metadata_topic_id(const handler *h, const kq_uuid *id);
kq_slice handler_topic(const handler *h);
/* The NodeEndpoints entry (tagged, v1+) of a Vote, BeginQuorumEpoch,
 * EndQuorumEpoch or FetchSnapshot answer naming leader_id: 1 with *ne
 * filled, or 0 (no leader, v0, or its endpoint unknown). As
 * KafkaRaftClient's answers: a Kafka node told of a leader outside its
 * voter set cannot follow it without (QuorumState.transitionToFollower
 * refuses empty endpoints). */
int32_t handler_leader_node_endpoint(const handler *h, int32_t leader_id, int16_t version,
                                     wire_raft_node_endpoint *ne);

/* produce_check.c: the attribute rules over every batch of one partition's
 * records (issue 19); KAFKA_NONE, or INVALID_RECORD with its message. */
struct record_set_summary;
struct record_batch_header;
/* produce_shape.c: with produce.raft.record.check, records that Kafka's Raft
 * reader would refuse are INVALID_RECORD (*message says why). */
int16_t produce_check_raft_shape(const handler *h, const uint8_t *records, size_t len,
                                 const char **message);
int16_t produce_check_batches(const handler *h, const struct record_set_summary *sum,
                              const struct record_batch_header *first, const char **message);

#endif
