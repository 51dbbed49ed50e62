/* Request handlers: decode a Kafka request frame, act on it through the Raft
 * core and the log, encode the answer. Handlers never touch sockets: replies
 * go through the reply functions the daemon provides, keyed by an opaque
 * slot. Requests that cannot be answered at once (acks=-1 produce, long-poll
 * fetch, Raft RPCs) wait in bounded tables here until progress or deadline. */
#ifndef KQ_HANDLER_H
#define KQ_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/group.h"
#include "kq/group_offsets.h"
#include "kq/group_store.h"
#include "kq/txn.h"
#include "kq/limits.h"
#include "kq/log.h"
#include "kq/producer_state.h"
#include "kq/raft.h"
#include "kq/request.h"


typedef struct handler_endpoint {
    int32_t node_id;
    char host[256];
    uint16_t port;
} handler_endpoint;

/* What the transport knows of the connection a request came on. */
typedef struct handler_conn {
    /* A listener that speaks for the quorum: one named in
     * controller.listener.names, or the only listener when none is named.
     * Raft RPCs and replica Fetch are refused anywhere else. */
    bool quorum_listener;
    /* Who the connection authenticated as ("User:name", from its TLS
     * certificate or SASL); NULL: User:ANONYMOUS (Kafka's name for an
     * unauthenticated client). */
    const char *principal;
    /* The listener proves voters by certificate (mutual TLS with a voter
     * principal list): Raft RPCs and replica fetches are taken only for
     * voter_id, the voter the certificate's principal belongs to (-1:
     * none, so all are refused). */
    bool voter_proof_required;
    int32_t voter_id;
    /* A SASL listener (SASL_PLAINTEXT, SASL_SSL): until the connection
     * authenticates it gets only ApiVersions and the SASL APIs. mechanisms
     * is a bit set of 1 << enum kq_sasl_mech; session is the connection's
     * cell for the handlers' SASL state (freed by handler_conn_closed). */
    bool sasl_listener;
    uint32_t sasl_mechanisms;
    void **session;
    /* This node's endpoint on the connection's listener (issue 19 item
     * 13): Metadata, DescribeCluster and FindCoordinator name the node by
     * the listener they were asked on, as Kafka's brokers do per listener
     * name. NULL or port 0: the node's client endpoint (a controller
     * listener, or the voter endpoint of a seed-style single listener). */
    const handler_endpoint *advertised;
    /* The listener's name (NULL: unknown), to name the peers by their
     * endpoints on the listener of the same name when they told us. */
    const char *listener_name;
} handler_conn;

/* This node's endpoint on one of its client listeners, by name. */
typedef struct handler_listener_endpoint {
    char name[KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
    handler_endpoint endpoint;
} handler_listener_endpoint;

/* Operations the authorizer allows per principal (issue 9). */
enum handler_op {
    HANDLER_OP_PRODUCE = 0, /* Produce, InitProducerId (idempotent write) */
    HANDLER_OP_CONSUME,     /* Fetch (consumers), the group APIs */
    HANDLER_OP_DESCRIBE,    /* Metadata topics, ListOffsets, DescribeQuorum,
                             * DescribeCluster, FindCoordinator */
    /* Kafka's CLUSTER_ACTION on the cluster (issue 19): the Raft RPCs,
     * replica Fetch, FetchSnapshot and a relayed DescribeQuorum. Implies
     * nothing else and is implied by nothing but super.users. */
    HANDLER_OP_CLUSTER_ACTION,
    /* Kafka's DELETE on a group (issue 24): DeleteGroups, OffsetDelete.
     * Implies describe, as Kafka's DELETE implies DESCRIBE. */
    HANDLER_OP_DELETE,
    HANDLER_OP_COUNT
};

/* A minimal allow-list authorizer: when enabled, a principal may do op only
 * if it is a super user or listed for op. An entry "User:*" matches every
 * principal. The strings belong to the caller and outlive the handlers. */
typedef struct handler_acl {
    bool enabled;
    const char *const *super_users;
    int super_user_count;
    const char *const *allowed[HANDLER_OP_COUNT];
    int allowed_count[HANDLER_OP_COUNT];
} handler_acl;

/* What the handlers read and the outputs they use. Handlers decide; they
 * never step the core or touch the log's write path: whatever changes state
 * comes back to the executor (kq/exec.h) as a handler_decision. */
/* A range of the log streamed into an answer at frame position at. */
typedef struct handler_stream_piece {
    size_t at;
    kq_log_range range;
} handler_stream_piece;

typedef struct handler_services {
    void *ctx;
    const raft *raft;   /* read-only: raft_get_status */
    kq_log *log;        /* reads only */
    int32_t node_id;
    const char *cluster_id;
    /* The replicated partition (quorum.topic.name, partition 0, and
     * quorum.topic.id; issue 22). NULL: __cluster_metadata and its id. */
    const char *topic_name;
    kq_uuid topic_id;
    /* produce.raft.record.check: refuse client records Kafka's Raft reader
     * would refuse (produce_shape.c). */
    bool raft_record_check;
    /* The name of our controller listener (controller.listener.names):
     * BeginQuorumEpoch and EndQuorumEpoch v1 name our endpoint by it in
     * LeaderEndpoints, and a Kafka follower looks the leader up by its own
     * controller listener's name (FollowerState.leaderNode). NULL or "":
     * "PLAINTEXT". */
    const char *controller_listener;
    handler_endpoint nodes[HANDLER_NODES_MAX]; /* every voter, with its listener */
    int node_count;
    /* This node's advertised client listener, what Metadata names it by
     * (port 0: its voter endpoint, as with a single listener). */
    handler_endpoint client_endpoint;
    handler_listener_endpoint client_listeners[KQ_CONFIG_LISTENERS_MAX];
    int client_listener_count;
    int32_t frame_bytes_max;
    uint32_t mutants;   /* enum kq_mutant (simulator only) */
    int64_t (*now_ms)(void *ctx);
    /* Outputs: complete a client slot exactly once. */
    void (*reply)(void *ctx, void *slot, const uint8_t *data, size_t len);
    /* Optional (NULL: reply copies every answer): completes slot with a
     * whole frame, its 4-byte size first, that the callee now owns (and
     * frees). Used for answers of at least HANDLER_RESPONSE_TAKE_BYTES_MIN,
     * so that a follower's fetch answer is not copied once more. */
    void (*reply_take)(void *ctx, void *slot, uint8_t *frame, size_t len);
    void (*reply_none)(void *ctx, void *slot);
    void (*reply_close)(void *ctx, void *slot, const char *why);
    const char *(*slot_peer)(void *ctx, void *slot);
    const handler_acl *acl; /* NULL: everything is allowed */
    const struct kq_cred_store *sasl_credentials; /* kq/auth.h; NULL: no SASL listener */
    /* connection.failed.authentication.delay.ms: a failed SASL login is
     * answered this much later (sasl_limits.c); 0: at once. */
    int32_t failed_auth_delay_ms;
    /* The connection of slot (NULL: every connection is a quorum one). */
    void (*slot_conn)(void *ctx, void *slot, handler_conn *out);
    /* Optional (NULL: want): how many of want bytes of log data a Fetch
     * answer to slot may hold, a consumer's or a replica's (the transport's
     * response budget, kq/budget.h); fewer bytes, never an error. */
    uint64_t (*slot_grant)(void *ctx, void *slot, uint64_t want);
    /* Optional: slot's connection has authenticated (SASL): the transport
     * lifts its pre-authentication frame bound (sasl.server.max.receive.size). */
    void (*slot_authenticated)(void *ctx, void *slot);
    /* Optional: a quorum request from replica_id on slot's connection was
     * accepted (a Raft RPC, replica Fetch or FetchSnapshot that passed
     * quorum_request_allowed and the cluster id check). The transport may
     * give that connection the quorum's reserved resources (issue 19: a
     * listener shared by clients and peers); called for every such request,
     * it acts at most once per connection. */
    void (*slot_quorum_accepted)(void *ctx, void *slot, int32_t replica_id);
    /* Optional (NULL: such a connection is closed at its next frame):
     * closes the connection whose handler_conn.session cell is session once
     * what was answered on it left, dispatching none of its frames (a SASL
     * handshake evicted or expired, sasl_limits.c). handler_conn_closed
     * follows later, never from within the call. */
    void (*session_close)(void *ctx, void **session, const char *why);
    /* Optional (NULL: Fetch answers are read and sent whole): completes
     * slot with an answer whose log data is streamed (issue 19). frame is
     * the answer without that data, its 4-byte size first counting the
     * pieces too, owned by the callee; pieces[i].range's bytes belong at
     * frame position pieces[i].at (ascending); the callee copies pieces. */
    void (*reply_stream)(void *ctx, void *slot, uint8_t *frame, size_t len,
                         const struct handler_stream_piece *pieces, uint32_t count);
    /* Answers with less log data than this are sent whole (0: the limit
     * KQ_FETCH_STREAM_INLINE_BYTES_MAX). */
    uint32_t fetch_stream_min_bytes;
    /* Consumer groups (issue 12): the committed offsets the executor keeps
     * (read only here: commits go through HANDLER_APPEND as control
     * batches), and the coordinator's settings (max_size 0: Kafka's
     * defaults, group_config_default). */
    const group_offsets *offsets;
    /* Transactions (issue 23): the transaction table the executor keeps
     * (read only here: changes go through HANDLER_APPEND as batches). */
    const txn_table *txns;
    /* Group membership (issue 24): the group store the executor keeps
     * (read only here: changes go through handler_take_request as
     * KQ_CONTROL_GROUP batches); a new coordinator is loaded from it. */
    const group_store *groups;
    group_config group;
    /* Transactions (issue 23): Kafka's transaction.max.timeout.ms,
     * transactional.id.expiration.ms and
     * transaction.abort.timed.out.transaction.cleanup.interval.ms (0: the
     * defaults in include/kq/limits.h). The table itself is txns. */
    int32_t txn_max_timeout_ms;
    int64_t txn_id_expiration_ms;
    int64_t txn_abort_interval_ms;
} handler_services;

typedef struct handler handler;

handler *handler_create(const handler_services *services);
void handler_destroy(handler *h);

enum handler_decision_kind {
    HANDLER_DONE = 0,     /* answered, closed, parked or waiting: nothing to do */
    HANDLER_APPEND,       /* carry out request (KQ_REQUEST_APPEND), then handler_request_done */
    HANDLER_RAFT_RECEIVE, /* step the core with RECEIVE msg (its token routes the answer) */
    HANDLER_FORWARD,      /* relay frame to leader_id; answer with handler_forward_answer */
    HANDLER_PRODUCER_ID,  /* carry out request (KQ_REQUEST_PRODUCER_ID), then handler_request_done */
    HANDLER_TIME_SEARCH,  /* search the log off the loop: handler_time_search_result */
};

/* ListOffsets by timestamp (-3 max timestamp, or the first batch whose max
 * timestamp is >= t) as a search of [from, limit) that the executor runs
 * off the loop (issue 19): kq_log_search_run with handler_time_search_batch
 * over a copy of this, then handler_time_search_result with it. */
typedef struct handler_time_search {
    uint64_t token; /* the parked request */
    int64_t from, limit;
    int count;
    int64_t timestamp[HANDLER_TIME_SEARCH_TARGETS_MAX];
    int64_t found_offset[HANDLER_TIME_SEARCH_TARGETS_MAX]; /* -1: none (yet) */
    int64_t found_timestamp[HANDLER_TIME_SEARCH_TARGETS_MAX];
} handler_time_search;
/* The batch visitor (pure, thread-safe: touches only search): 1 once
 * every target is settled, else 0. */
int handler_time_search_batch(void *search, const uint8_t *batch, size_t len);

typedef struct handler_forward {
    int32_t leader_id;
    uint8_t *frame; /* malloc'd; the executor frees it */
    size_t len;
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id; /* the client's, restored in the answer */
} handler_forward;

typedef struct handler_decision {
    enum handler_decision_kind kind;
    /* HANDLER_APPEND, HANDLER_PRODUCER_ID: the request to carry out and
     * complete once (kq/request.h), then hand back. */
    kq_request *request;
    raft_msg msg;
    handler_forward forward;
    handler_time_search search;
} handler_decision;

/* One inbound frame (request header + body); data may be modified in place.
 * Fills *decision; for HANDLER_APPEND and HANDLER_PRODUCER_ID the executor
 * completes decision->request and hands it back with handler_request_done
 * before the next frame (kq/request.h). */
void handler_on_frame(handler *h, void *slot, uint8_t *frame, size_t len,
                      handler_decision *decision);
/* A request the executor completed (phase KQ_REQUEST_EXECUTED) comes back:
 * the handler answers from its result. A Produce's answer waits per acks,
 * an OffsetCommit's until the high watermark and the offsets table pass it. */
void handler_request_done(handler *h, kq_request *req);

/* A search decided earlier (HANDLER_TIME_SEARCH) is done: rc 0 with the
 * results in s, or a negative errno (the request is answered with
 * KAFKA_STORAGE_ERROR, or NOT_LEADER_OR_FOLLOWER if leadership moved). May
 * come in any order, after other frames. */
void handler_time_search_result(handler *h, const handler_time_search *s, int rc);

/* The core asked to send msg (SEND action). Responses (token != 0) are
 * encoded and answered here; requests to peers are encoded into out (header
 * included) with the correlation id given; returns false if msg is neither. */
void handler_send_raft_response(handler *h, const raft_msg *msg);
bool handler_encode_raft_request(handler *h, const raft_msg *msg, int32_t correlation_id,
                                 uint8_t **data, size_t *len, int16_t *api_version);
/* A FETCH_SNAPSHOT_RESPONSE of the core (token != 0) answered with the chunk
 * the executor read from the snapshot file, as Fetch answers carry the
 * records read from the log: chunk/len the bytes read at the message's
 * position (copied; len <= INT32_MAX), size the whole file's size.
 * read_error (KAFKA_SNAPSHOT_NOT_FOUND for -ENOENT, KAFKA_POSITION_OUT_OF_RANGE
 * for -ERANGE, KAFKA_NONE when the read worked) becomes the partition error
 * when the core set none, and then no bytes are sent. handler_send_raft_response
 * given such a message sends the msg's own bytes, bytes_len and size. */
void handler_send_fetch_snapshot_response(handler *h, const raft_msg *msg, const uint8_t *chunk,
                                          size_t len, int64_t size, int16_t read_error);
/* How many of want bytes the answer to the Raft request behind token may
 * carry: the response budget's grant for its connection (kq/budget.h, the
 * quorum's class on the controller listener); 0 for a stale token. The
 * executor sizes a FetchSnapshot chunk with it before reading the file
 * (issue 19 item 13), as replica Fetch answers are sized. */
uint64_t handler_raft_grant(handler *h, uint64_t token, uint64_t want);
/* Decodes a peer's response frame to a request encoded above into a RECEIVE
 * msg. Returns false on a malformed frame. leader (NULL: not wanted) gets
 * the leader's endpoint a Fetch answer names (v16+ NodeEndpoints, KIP-853:
 * how an observer reaches a leader outside its voter set); node_id -1
 * when none. */
bool handler_decode_raft_response(handler *h, enum raft_msg_type request_type,
                                  int16_t api_version, const uint8_t *frame, size_t len,
                                  raft_msg *out, handler_endpoint *leader);

/* Client listeners of the other nodes (issue 9): with a controller
 * listener, a voter endpoint is not where clients should go. The executor
 * asks each peer with DescribeCluster (endpoint type brokers) on the
 * controller connection; the peer's own entry in the answer becomes its
 * broker endpoint in Metadata. Until then Metadata names the voter
 * endpoint. The encoded request is malloc'd (the caller frees it). */
/* listener: -1 asks for the peer's client endpoint; an index into
 * svc.client_listeners asks for its endpoint on the listener of that name
 * (the name rides in the client id, HANDLER_ENDPOINT_CLIENT_ID_PREFIX). */
bool handler_encode_endpoint_request(handler *h, int32_t correlation_id, int listener,
                                     uint8_t **data, size_t *len);
/* The node list (svc.nodes) replaced at run time: the executor's peer
 * table followed the voter set in force (KIP-853). What a peer reported of
 * its client listeners is kept while its voter endpoint is unchanged. */
void handler_set_nodes(handler *h, const handler_endpoint *nodes, int count);
/* Returns false on a malformed answer or one without node_id's entry. */
bool handler_note_peer_endpoint(handler *h, int32_t node_id, int listener, const uint8_t *frame,
                                size_t len);

/* Stamps the relayed frame of f with the correlation id it is sent under. */
void handler_forward_set_correlation_id(handler_forward *f, int32_t correlation_id);
/* A forwarded request's answer from the leader (frame NULL: it failed; the
 * client gets NOT_LEADER_OR_FOLLOWER so that it retries). */
void handler_forward_answer(handler *h, void *slot, const handler_forward *f,
                            const uint8_t *frame, size_t len);

/* A connection whose handler_conn.session cell was set has closed. */
void handler_conn_closed(handler *h, void *session);

/* Set once a read of flushed log data failed (EIO, a batch failing its
 * CRC): the executor stops the node. NULL while reads are fine. */
const char *handler_read_failure(const handler *h);

/* The core's high watermark or the log's flushed offset moved, or the role
 * changed: answer waiting produce, fetch and OffsetCommit requests that are
 * now satisfied; a lost lead or epoch drops the group coordinator (its
 * waiting JoinGroup/SyncGroup are answered NOT_COORDINATOR). */
void handler_on_progress(handler *h);
/* Earliest deadline of a waiting request (INT64_MAX if none) and expiry. */
int64_t handler_next_deadline(const handler *h);
void handler_on_tick(handler *h, int64_t now_ms);
/* After handler_on_tick: a request the server itself makes (the tombstones
 * of expired group offsets, an append) for the executor to carry out and
 * hand back with handler_request_done, as a frame's. NULL: none. */
kq_request *handler_take_request(handler *h);

/* Read-only view for the simulator's checkers (group-exclusive): the group
 * coordinator this node holds as leader, NULL when none, and the Raft epoch
 * it belongs to in *epoch. */
struct group_coord;
const struct group_coord *handler_group_coord(const handler *h, int32_t *epoch);

#endif
