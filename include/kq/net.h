/* Network edge on libuv: a listener whose connections carry size-prefixed
 * Kafka frames, and outbound peer channels to other quorum nodes.
 *
 * The net layer never decodes an API. Each inbound frame gets a response slot;
 * slots complete in any order but their bytes leave in request order (Kafka
 * clients match responses to requests by position). Completed responses are
 * gathered into one uv_write per loop turn.
 *
 * Memory a client can make the server hold is bounded (kq/limits.h): per
 * connection, reading pauses while its responses waiting to be written reach
 * write_queue_bytes_max; node-wide, read buffers for requests being
 * received stay within one request budget (queued.max.request.bytes, in the
 * net_shared of every listener), and responses waiting to be written within
 * one kq_budget shared by every listener (queued.max.response.bytes): past
 * it the connections holding the most stop being read, and net_slot_grant
 * cuts consumer Fetch answers; idle connections close after idle_ms
 * (connections.max.idle.ms). The event loop's time is bounded per turn:
 * NET_FRAMES_PER_TURN_MAX frames per connection, and
 * KQ_NET_CLIENT_FRAMES_PER_TURN_MAX over every client connection of the
 * listeners sharing a net_shared. */
#ifndef KQ_NET_H
#define KQ_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "kq/conn_limits.h"
#include "kq/budget.h"
#include "kq/tls.h"

#include "kq/limits.h" /* NET_SLOTS_PER_CONN, NET_FRAMES_PER_TURN_MAX */

typedef struct net_server net_server;
typedef struct net_conn net_conn;
typedef struct net_slot net_slot;

/* What the listeners of one node share (issue 19): the request memory
 * budget (queued.max.request.bytes: Kafka's is one per broker, not per
 * listener), with its wait list across listeners, and the client frames
 * dispatched per loop turn (KQ_NET_CLIENT_FRAMES_PER_TURN_MAX over every
 * connection of class KQ_BUDGET_CLIENT; the quorum's are never held by
 * it). Every server given it must run on the same loop. */
typedef struct net_shared net_shared;
/* request_bytes_max 0: KQ_QUEUED_REQUEST_BYTES_DEFAULT. NULL: out of memory. */
net_shared *net_shared_create(uint64_t request_bytes_max);
/* Once every server given it was stopped and its closes ran on the loop. */
void net_shared_destroy(net_shared *shared);
typedef struct net_shared_stats {
    uint64_t request_bytes_max;
    uint64_t request_bytes;      /* read buffers of every connection of every listener */
    uint64_t request_bytes_peak; /* the most they held together */
    uint64_t request_waits;      /* times a connection began to wait for request memory */
    uint32_t conns_waiting_memory;
    /* Client connections deferred to the next turn by the per-turn total. */
    uint64_t client_turns_full;
} net_shared_stats;
void net_shared_get_stats(const net_shared *shared, net_shared_stats *out);

/* Called for each whole inbound frame (without its size prefix). The frame is
 * valid only during the call but the callee may modify it in place. The
 * callee must eventually call net_slot_respond / net_slot_skip / net_slot_close
 * exactly once for slot. */
typedef void (*net_frame_fn)(void *ctx, net_slot *slot, uint8_t *frame, size_t len);

typedef struct net_server_config {
    const char *host;
    uint16_t port;
    int32_t frame_bytes_max; /* socket.request.max.bytes */
    /* The node's shared request budget and client turns (borrowed; it
     * outlives the server); NULL: the server's own, of request_bytes_max. */
    net_shared *shared;
    /* queued.max.request.bytes when shared is NULL: all connections' read
     * buffers together; 0 means KQ_QUEUED_REQUEST_BYTES_DEFAULT. A frame
     * grows with its bytes; one frame is admitted whenever no other
     * connection holds buffer memory, whatever this value. */
    uint64_t request_bytes_max;
    /* Per connection, responses not yet written past which reading pauses;
     * 0 means KQ_CONN_WRITE_QUEUE_BYTES_MAX. */
    uint64_t write_queue_bytes_max;
    /* The server-wide response budget (kq/budget.h), borrowed and shared by
     * every listener of the process (it outlives them); NULL: only the
     * per-connection bound. budget_class: KQ_BUDGET_QUORUM on the controller
     * listener (the quorum's reserved share), else KQ_BUDGET_CLIENT. */
    kq_budget *budget;
    enum kq_budget_class budget_class;
    /* sasl.server.max.receive.size: until net_slot_authenticated, a frame
     * larger than this closes the connection; 0: no such bound (not a SASL
     * listener). */
    int32_t unauthenticated_frame_bytes_max;
    /* connections.max.idle.ms; 0 means KQ_CONNECTION_IDLE_MS_DEFAULT,
     * negative never closes idle connections. */
    int64_t idle_ms;
    net_frame_fn on_frame;
    void *ctx;
    uint32_t tag; /* the caller's name for this listener: net_slot_listener_tag */
    /* A connection whose user cell (net_slot_conn_user) is set went away:
     * called once with the cell's value, after its last slot completed. */
    void (*on_conn_closed)(void *ctx, void *user);
    /* TLS (security protocol SSL): every connection runs through a
     * kq_tls_conn of this server context (borrowed; it outlives the
     * server); NULL is plaintext. The memory bounds above hold for the
     * plaintext after decryption; each connection's ciphertext is bounded
     * by kq/limits.h (KQ_TLS_CONN_CIPHER_*). At most KQ_TLS_HANDSHAKES_MAX
     * handshakes run at once (beyond: closed at accept, logged), each
     * abandoned after tls_handshake_timeout_ms (0: KQ_TLS_HANDSHAKE_TIMEOUT_MS).
     * The client certificate's subject maps to net_slot_tls_principal
     * through tls_principal_rules (borrowed; NULL: DEFAULT). */
    kq_tls_ctx *tls;
    const kq_tls_principal_rules *tls_principal_rules;
    uint32_t tls_handshake_timeout_ms;
    /* Connection admission (kq/conn_limits.h): the pool this listener's
     * connections count in (borrowed, shared by listeners, outlives the
     * server); NULL admits all. A refused connection is accepted and closed
     * at once. pool_name and pool_per_ip_name name the limits in log lines. After
     * accept fails with EMFILE/ENFILE, the listener takes no connection for
     * KQ_ACCEPT_BACKOFF_MS. TLS handshakes are also bounded per address
     * (KQ_TLS_HANDSHAKES_PER_IP_MAX). */
    kq_conn_pool *pool;
    const char *pool_name;        /* the total's name; NULL: "max.connections" */
    const char *pool_per_ip_name; /* NULL: "max.connections.per.ip" */
} net_server_config;

/* What the server holds now, and the most it held since it started. */
typedef struct net_server_stats {
    uint32_t connections;
    uint64_t request_bytes_buffered; /* read buffers of this listener's connections */
    uint64_t request_bytes_buffered_peak;
    uint64_t write_queued_bytes; /* responses not yet written, all connections */
    uint64_t write_queued_bytes_conn_peak; /* largest queue of one connection */
    uint32_t conns_waiting_memory; /* paused: the request budget reached */
    uint32_t conns_paused_backlog; /* paused: slots or write queue full, or the budget */
    uint32_t conns_paused_budget;  /* of those: the server-wide response budget */
    uint64_t conns_closed_idle;
    uint32_t tls_handshakes; /* TLS handshakes in progress */
    uint64_t tls_failures;   /* connections closed for a TLS error or timeout */
    /* Bytes read from and handed to the sockets (TLS: ciphertext). */
    uint64_t received_bytes;
    uint64_t sent_bytes;
    /* Connections closed at accept by the pool (total / per address), by
     * the TLS bounds (listener / per address), and accept failures for
     * want of descriptors (each starts a back-off). */
    uint64_t refused_max_connections;
    uint64_t refused_per_ip;
    uint64_t refused_tls_handshakes;
    uint64_t refused_tls_handshakes_per_ip;
    uint64_t accept_fd_exhausted;
    /* Connections of this listener closed to admit one from an address
     * holding fewer (the pool full; kq/conn_evict.h). */
    uint64_t evicted;
    /* Connections promoted to the quorum's class (net_slot_promote_quorum). */
    uint64_t promoted_quorum;
    /* ... not promoted: KQ_PROMOTED_CONNECTIONS_MAX were open already. */
    uint64_t promote_refused;
} net_server_stats;

net_server *net_server_start(uv_loop_t *loop, const net_server_config *config,
                             char *err, size_t errlen);
void net_server_stop(net_server *server);
void net_server_get_stats(const net_server *server, net_server_stats *out);

/* Sends the response bytes (header + body, without the size prefix, which
 * net adds) once all earlier slots of the connection completed. Copies data. */
void net_slot_respond(net_slot *slot, const uint8_t *data, size_t len);
/* The same with a whole frame (its 4-byte size first) the server now owns
 * and frees once written: no copy. */
void net_slot_respond_take(net_slot *slot, uint8_t *frame, size_t len);
/* A streamed response (issue 19): the bytes of piece i (len of them) go at
 * frame position at, ascending. net knows nothing of where they come from:
 * it reads them through the source as the socket drains, in chunks of
 * KQ_FETCH_STREAM_CHUNK_BYTES (or need, when read asks for more), at most
 * KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX of a connection at once, each
 * charged to the write queue (and the response budget) while in flight. */
typedef struct net_stream_piece {
    size_t at;
    uint64_t len;
} net_stream_piece;
typedef struct net_stream_source {
    void *ctx;
    /* The next bytes of piece into buf (at most cap): > 0 bytes, -ENOBUFS
     * with *need set when the next unit is larger than cap, or another
     * negative value (-ESTALE: the data went away), which closes the
     * connection. */
    ssize_t (*read)(void *ctx, uint32_t piece, uint8_t *buf, size_t cap, size_t *need);
    /* Called exactly once: the last byte was gathered or the connection went. */
    void (*release)(void *ctx);
} net_stream_source;
/* Completes the slot with frame (len bytes, its 4-byte size first counting
 * the pieces' bytes too; the server owns and frees it) and the pieces
 * (copied) read through source. */
void net_slot_respond_stream(net_slot *slot, uint8_t *frame, size_t len,
                             const net_stream_piece *pieces, uint32_t count,
                             net_stream_source source);
/* Completes the slot without a response (acks=0 produce). */
void net_slot_skip(net_slot *slot);
/* Completes the slot and closes the connection after earlier responses left
 * (bad frame / unsupported request). */
void net_slot_close(net_slot *slot, const char *why);
/* Closes the connection whose user cell (net_slot_conn_user) is user once
 * the answers to the frames already dispatched left; none of its frames is
 * dispatched any more (a SASL handshake evicted or expired). on_conn_closed
 * follows as for any close, later. */
void net_conn_close_user(void **user, const char *why);
/* Describes the peer ("127.0.0.1:53422") for log lines. */
const char *net_slot_peer(const net_slot *slot);
/* The tag of the listener the slot's connection was accepted on. */
uint32_t net_slot_listener_tag(const net_slot *slot);
/* A pointer-sized cell per connection for the layers above (a SASL
 * session): NULL when the connection opens; on_conn_closed gets it back. */
void **net_slot_conn_user(net_slot *slot);
/* The principal ("User:name") the connection's TLS client certificate maps
 * to through ssl.principal.mapping.rules, or NULL: not a TLS listener, or
 * no client certificate (Kafka's User:ANONYMOUS). */
const char *net_slot_tls_principal(const net_slot *slot);
/* A 64-bit cell of the slot for the layers above (zero when the slot is
 * handed out): the executor's request-latency stamp. */
uint64_t *net_slot_stamp(net_slot *slot);
/* True once the connection is gone (the response would be dropped). */
bool net_slot_orphaned(const net_slot *slot);
/* How many of want bytes of log data the answer to slot may hold under its
 * connection's write-queue bound and the response budget (kq/budget.h). */
uint64_t net_slot_grant(const net_slot *slot, uint64_t want);
/* The connection authenticated: frames up to frame_bytes_max from now on
 * (unauthenticated_frame_bytes_max no longer applies). */
void net_slot_authenticated(net_slot *slot);
/* The layers above accepted a quorum request on the slot's connection (a
 * listener shared by clients and peers, issue 19): the connection moves for
 * good to the quorum's class: the response budget's KQ_BUDGET_QUORUM (with
 * what it holds), its server's quorum turns (no longer counted in nor held
 * by KQ_NET_CLIENT_FRAMES_PER_TURN_MAX), and out of its pool's eviction (it
 * stays counted in the pool). True the first time only; false when the
 * connection is in the quorum's class already (a controller listener's),
 * closing, or KQ_PROMOTED_CONNECTIONS_MAX promoted connections of the node's
 * listeners are open (it then stays a client's). */
bool net_slot_promote_quorum(net_slot *slot);

/* ---- Outbound peer channels (one connection per remote node). */

typedef struct net_peer net_peer;
/* A whole response frame for a request sent with net_peer_send (correlation
 * matched), or len == 0 / frame == NULL when the request failed (connect error,
 * timeout, disconnect). */
typedef void (*net_peer_response_fn)(void *ctx, net_peer *peer, void *request_ctx,
                                     const uint8_t *frame, size_t len);

typedef struct net_peer_config {
    int32_t node_id;
    const char *host;
    uint16_t port;
    uint32_t request_timeout_ms;
    uint32_t retry_backoff_ms;
    int32_t frame_bytes_max;
    net_peer_response_fn on_response;
    void *ctx;
    /* TLS toward the peer's listener: a client context (borrowed; it
     * outlives the channel), NULL for plaintext. host is what the peer's
     * certificate is verified against. The handshake counts in the
     * requests' timeout. */
    kq_tls_ctx *tls;
} net_peer_config;

net_peer *net_peer_create(uv_loop_t *loop, const net_peer_config *config);
void net_peer_destroy(net_peer *peer);
/* Queues a request frame (header+body, no size prefix) whose correlation id
 * is correlation_id; copies data. Returns false when the queue is full or
 * the channel is backing off after a failure (the caller treats it as a
 * failed send and retries later). */
bool net_peer_send(net_peer *peer, int32_t correlation_id, const uint8_t *data, size_t len,
                   void *request_ctx);
int32_t net_peer_node_id(const net_peer *peer);
/* Bytes read from and handed to the channel's sockets since it was
 * created (TLS: ciphertext), over every reconnection. */
typedef struct net_peer_stats {
    uint64_t received_bytes;
    uint64_t sent_bytes;
} net_peer_stats;
void net_peer_get_stats(const net_peer *peer, net_peer_stats *out);

#endif
