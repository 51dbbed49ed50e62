/* Private state of the listener and its connections, shared by the files of
 * src/net/server*.c: server.c (listener, lifetime, idle sweep), server_read.c
 * (frames in, the node-wide request memory budget), server_turns.c (frames
 * per loop turn, net_shared) and server_write.c (slots, ordered gathered
 * writes, the per-connection write queue). */
#ifndef KQ_NET_SERVER_INTERNAL_H
#define KQ_NET_SERVER_INTERNAL_H

#include "kq/limits.h"
#include "kq/net.h"


/* A streamed response at a slot (server_write.c): what was gathered. */
typedef struct net_stream {
    net_stream_source src;
    uint32_t count;
    uint32_t piece;      /* the next piece */
    uint64_t piece_done; /* bytes of it gathered */
    size_t frame_pos;    /* bytes of the slot's frame gathered */
    size_t need_bytes;   /* the largest unit the source asked room for */
    net_stream_piece pieces[];
} net_stream;

struct net_slot {
    net_stream *stream; /* NULL: data is the whole response */
    net_conn *conn;
    bool in_use;
    bool done;
    bool close_after;
    uint8_t *data; /* 4-byte size prefix + response */
    size_t len;
    uint64_t stamp; /* net_slot_stamp */
};

/* A gathered write of completed responses (server_write.c), or for TLS the
 * plaintext being encrypted (server_tls.c). */
typedef struct write_req {
    uv_write_t req;
    net_conn *conn;
    int count;
    uint64_t bytes;
    int chunks; /* of those buffers: chunks of a streamed response */
    uint8_t *owned[WRITE_BUFS_MAX];
    size_t lens[WRITE_BUFS_MAX];
} write_req;

typedef struct net_turns net_turns;

struct net_conn {
    uv_tcp_t tcp;
    net_server *server;
    uint8_t *rbuf; /* frames being received; rcap is charged to the budget */
    size_t rlen;
    size_t rcap;
    net_slot slots[NET_SLOTS_PER_CONN];
    uint32_t head; /* oldest slot not yet written */
    uint32_t tail; /* next slot to hand out */
    uint32_t outstanding; /* handed out, not completed (plus callback holds) */
    uint32_t writes_in_flight;
    uint64_t write_queued_bytes; /* done slots not yet written + in uv_write */
    uint32_t stream_chunks_in_flight; /* chunks of a streamed response gathered, not written */
    const char *gather_error; /* why conn_gather failed (NULL: out of memory) */
    bool handle_closed;
    bool closing;
    bool reading;
    bool paused_backlog; /* slots full or write queue over its limit, or the budget */
    bool paused_budget;  /* of those: the server-wide response budget refused */
    bool authenticated;  /* net_slot_authenticated: the SASL receive bound is lifted */
    bool waiting_memory; /* on the server's memory wait list */
    bool flush_queued;
    bool close_when_written;
    bool close_requested; /* a slot asked to close: no further frame is dispatched */
    size_t memory_need_bytes; /* while waiting: growth of rbuf asked for */
    uint64_t active_ms; /* loop time of the last read, write or completion */
    size_t idle_write_queue_size; /* libuv's write queue at the last idle sweep */
    net_conn *flush_next;
    net_conn *prev, *next; /* the server's live connections */
    net_conn *mem_prev, *mem_next; /* the memory wait list */
    /* Frames per loop turn (NET_FRAMES_PER_TURN_MAX): those dispatched in
     * turn turn_seen of server->turns; deferred: on its list, resumed next
     * turn. */
    uint64_t turn_seen;
    uint32_t turn_frames;
    bool deferred;
    net_conn *defer_prev, *defer_next;
    char peer[64];
    void *user; /* net_slot_conn_user */
    /* TLS (server_tls.c); tls NULL: plaintext. */
    kq_tls_conn *tls;
    bool tls_handshaking;  /* counted in the server's tls_handshakes */
    bool tls_in_full;      /* the TLS input is full: reading waits for plaintext pulled */
    bool tls_pump_queued;  /* pull plaintext at the next loop check */
    uint64_t accepted_ms;
    uint64_t tls_cipher_in_flight; /* ciphertext inside uv_writes */
    write_req *tls_plain;  /* responses being encrypted */
    int tls_plain_index;   /* buffer of tls_plain, and the offset in it */
    size_t tls_plain_offset;
    char *principal;       /* net_slot_tls_principal */
    kq_conn_addr addr;     /* the peer's address, for the limits */
    bool admitted;         /* counted in the server's pool */
    bool completed_request; /* answered one request (evicted after the fresh ones) */
    kq_conn_member member; /* in the pool's eviction index (kq/conn_evict.h) */
    bool tls_counted_ip;   /* counted in the server's tls_per_ip */
    /* The response budget's class and the frames-per-turn set of the
     * connection: its listener's, until a connection of a shared listener
     * proves itself a quorum peer (net_slot_promote_quorum): then
     * KQ_BUDGET_QUORUM and its server's quorum_turns. */
    enum kq_budget_class budget_class;
    net_turns *turns;
    bool promoted;
};

/* Frames per loop turn of a set of connections (server_turns.c): every
 * client connection of the listeners sharing a net_shared, or one quorum
 * listener's. A turn runs from one check phase of its owner (a server of
 * the set) to the next. */
struct net_turns {
    uint64_t turn;
    uint32_t frames;     /* dispatched in this turn by the set */
    uint32_t frames_max; /* 0: no total (the quorum's class) */
    net_server *owner;   /* whose check phase starts each turn (NULL: the next to run) */
    net_conn *defer_head, *defer_tail; /* waiting for the next turn, oldest first */
    uint64_t full;       /* connections deferred because frames reached frames_max */
};

/* The request memory budget (server_read.c) and client turns of a node. */
struct net_shared {
    uint64_t request_bytes_max;  /* queued.max.request.bytes */
    uint64_t request_bytes;      /* every connection's rcap */
    uint64_t request_bytes_peak;
    uint64_t request_waits;
    uint32_t conns_waiting;      /* on the wait list */
    net_conn *mem_head, *mem_tail; /* waiting for request memory, oldest first */
    uint32_t memory_holders;         /* connections with a read buffer (rcap > 0) */
    uint32_t memory_holders_waiting; /* of those: on the memory wait list */
    uint64_t first_read_bytes;       /* buffers of at most one read step */
    net_conn *memory_escape;         /* the one connection grown past the budget */
    uint64_t memory_logged_ms; /* rate limit of the "budget reached" line */
    bool memory_logged;
    net_turns client_turns;
    uint32_t promoted_open; /* promoted connections not yet closed */
};

struct net_server {
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_check_t flush_check;
    uv_idle_t flush_idle; /* keeps the poll phase from blocking while flushes are queued */
    uv_timer_t idle_timer;
    net_server_config config; /* zeros replaced by the defaults */
    net_conn *flush_list;
    net_conn *conns;
    net_shared *shared;  /* config.shared, or own_shared */
    net_shared *own_shared; /* freed with the server */
    net_turns *turns;    /* shared->client_turns, or quorum_turns */
    /* A quorum listener's connections; on a client-class listener, those
     * promoted (net_slot_promote_quorum). Never held by a total. */
    net_turns quorum_turns;
    net_server_stats stats;
    bool stopped;
    int handles_open; /* after stop: own handles still closing */
    uv_timer_t tls_timer; /* the handshake deadline sweep */
    uint8_t *tls_scratch; /* ciphertext of one read, fed at once */
    uint32_t tls_handshakes;
    kq_addr_counts tls_per_ip; /* handshakes in progress per address */
    uv_timer_t accept_timer;   /* the EMFILE/ENFILE back-off */
    bool accept_paused;
    bool accept_pending;       /* a connection waits in libuv for the back-off's end */
    uint64_t budget_released_seen; /* kq_budget.released at the last resume sweep */
    uint32_t paused_budget_count;  /* connections with paused_budget set */
};

/* server.c */
void conn_close(net_conn *c, const char *why);
void conn_maybe_free(net_conn *c);
void conn_touch(net_conn *c);

/* server_read.c */
void conn_start_reading(net_conn *c);
/* Starts or stops reading as the connection's state says it should. */
void conn_update_reading(net_conn *c);
/* Dispatches the whole frames buffered, as far as slots and the write queue
 * allow; then fits the buffer to what is left. */
void conn_parse(net_conn *c);
/* Called when a slot or write-queue byte was freed: dispatches buffered
 * frames and reads again if the connection was paused on its backlog. */
void conn_resume_backlog(net_conn *c);
/* Returns the connection's read buffer to the budget (once its handle
 * closed: a frame handed to on_frame stays valid for the whole call). */
void conn_release_buffer(net_conn *c);
/* Leaves the memory wait list (on close). */
void conn_memory_unwait(net_conn *c);
bool conn_backlog_full(net_conn *c);
/* Frames larger than this close the connection (SASL before authentication). */
int32_t conn_frame_bytes_max(const net_conn *c);
/* The budget freed memory: connections paused on it are read again if it
 * now lets them (from the loop's check phase). */
void server_resume_budget(net_server *s);
void conn_set_paused_budget(net_conn *c, bool paused);

/* server_turns.c */
/* Sets up s->shared and s->turns (false: out of memory). */
bool server_turns_init(net_server *s);
/* The server stops: another server of its set starts the turns. */
void server_turns_stop(net_server *s);
/* A new loop turn when s owns its set's (from the check phase): the
 * connections deferred in the last one dispatch their next frames, oldest
 * first, within the set's total. */
void server_resume_deferred(net_server *s);
/* Counts a frame dispatched on c (this turn's per connection and total). */
void conn_turn_count(net_conn *c);
/* No further frame of c this turn (its own or its set's total reached):
 * c waits on the deferred list for the next turn. */
bool conn_turn_defer(net_conn *c);
/* Leaves the deferred list (on close). */
void conn_undefer(net_conn *c);
/* c leaves its set for its server's quorum_turns (promotion): no longer
 * counted in nor held by the clients' total; deferred, it waits for the
 * quorum set's next turn instead. */
void conn_turns_move_to_quorum(net_conn *c);

/* Makes room in the read buffer for the next read (the budget permitting);
 * false when the connection now waits for memory or is out of it. */
bool conn_reserve_read(net_conn *c);
void conn_queue_flush(net_conn *c);

/* server_tls.c */
/* At accept: false when the connection was refused (and is closing). */
bool conn_tls_accept(net_conn *c);
void conn_tls_alloc(net_conn *c, uv_buf_t *buf);
void conn_tls_on_read(net_conn *c, ssize_t n);
/* Pulls decrypted plaintext into the read buffer and parses it. */
void conn_tls_pump_in(net_conn *c);
/* Encrypts completed responses in order, within the ciphertext bound. */
void conn_tls_flush(net_conn *c);
void conn_tls_release(net_conn *c);
void server_tls_start(net_server *s);
/* The connection leaves the handshake counts (done, failed or closed). */
void conn_tls_handshake_end(net_conn *c);

/* server_write.c */
void conn_flush(net_conn *c);
bool conn_gather(net_conn *c, write_req **out, uv_buf_t *bufs, bool *stop_after);
void write_req_free(write_req *wr);
void server_on_check(uv_check_t *h);
void server_on_idle(uv_idle_t *h);
/* Frees the responses of slots never written (connection gone). */
void conn_free_slots(net_conn *c);
/* The slot at the head is a streamed response still being gathered. */
bool conn_streaming(const net_conn *c);

#endif
