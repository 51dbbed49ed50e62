/* Private state of an outbound peer channel, shared by peer.c (connect,
 * requests, frames, timeouts) and peer_tls.c (the TLS byte pump). */
#ifndef KQ_NET_PEER_INTERNAL_H
#define KQ_NET_PEER_INTERNAL_H

#include "kq/limits.h"
#include "kq/net.h"

#define PEER_READ_CHUNK (64 * 1024)

enum peer_state { PEER_IDLE, PEER_RESOLVING, PEER_CONNECTING, PEER_CONNECTED, PEER_CLOSING, PEER_BACKOFF };

typedef struct peer_request {
    int32_t correlation_id;
    uint8_t *data; /* size prefix + frame */
    size_t len;
    void *request_ctx;
    uint64_t deadline_ms;
    bool written; /* wholly handed to the socket (TLS: to the engine) */
    size_t sent;  /* TLS: bytes handed to the engine */
} peer_request;

struct net_peer {
    uv_loop_t *loop;
    net_peer_config config;
    char host[256];
    enum peer_state state;
    uv_tcp_t *tcp; /* heap: closed asynchronously */
    uv_connect_t connect_req;
    uv_getaddrinfo_t resolve_req;
    uv_timer_t timer;
    peer_request queue[PEER_QUEUE_MAX];
    uint32_t head, tail;
    uint8_t *rbuf;
    size_t rlen, rcap;
    bool destroyed;
    bool resolving; /* resolve_req in flight */
    int refs; /* timer, tcp handles and resolve still referencing p */
    uint64_t connect_deadline_ms;
    bool logged_down;
    kq_tls_conn *tls;     /* while connected over TLS */
    uint8_t *tls_scratch; /* one read's ciphertext (PEER_READ_CHUNK bytes) */
    net_peer_stats stats;
};

/* peer.c */
void peer_disconnect(net_peer *p, const char *why);
/* Makes room for a read of at least one chunk in rbuf; false on OOM. */
bool peer_reserve_read(net_peer *p);
/* Hands the whole response frames in rbuf to their requests; false when
 * the channel went down (or was destroyed) meanwhile. */
bool peer_parse(net_peer *p);
void peer_arm_timer(net_peer *p);

/* peer_tls.c */
/* After the TCP connect: starts the handshake; false when p disconnected. */
bool peer_tls_start(net_peer *p);
void peer_tls_alloc(net_peer *p, uv_buf_t *buf);
void peer_tls_on_read(net_peer *p, ssize_t n);
void peer_tls_write_pending(net_peer *p);
void peer_tls_end(net_peer *p);

#endif
