/* The simulated world: whole servers (the real executor, handlers, storage,
 * producer state, wire codec and Raft core of src/) on simulated disks
 * (sim_fs.h) and a simulated network that carries the real encoded Kafka
 * frames, with simulated Kafka clients, all driven by one event queue, one
 * clock and one seeded PRNG. Nothing reads a real clock or socket; a seed
 * replays a run exactly. */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/budget.h"
#include "kq/conn_limits.h"
#include "kq/exec.h"
#include "kq/raft.h"
#include "prng.h"
#include "scheduler.h"
#include "sim_fs.h"

#define SIM_NODES_MAX 8
#define SIM_CLIENTS_MAX 19 /* 18 drawn by add_clients, the operator */
#define SIM_LOG_DIR "/data"
/* Connections a connection flood may hold into one node, from at most
 * W_CONNFLOOD_ADDRS_MAX addresses (w_client_connflood.c): more than any
 * world's max.connections (16-48). */
#define W_CONNFLOOD_CONNS_MAX 128
#define W_CONNFLOOD_ADDRS_MAX 64

enum w_ev {
    W_EV_TIMER = 1,      /* node's exec timer (gen = timer generation) */
    W_EV_FLUSH_SYNC,     /* node's flush job reaches the disk (gen = incarnation) */
    W_EV_FLUSH_DONE,     /* ... and completes */
    W_EV_REQUEST,        /* a request frame arrives at a node (ptr: w_msg) */
    W_EV_RESPONSE,       /* a response frame arrives at the requester (ptr: w_msg) */
    W_EV_REQ_TIMEOUT,    /* the requester gives up (arg: request id) */
    W_EV_CLIENT,         /* a client acts (node = client index) */
    W_EV_RESUME,         /* a paused node is stepped again */
    W_EV_SNAP_RUN,       /* node's snapshot job writes its file (gen = incarnation) */
    W_EV_SNAP_DONE,      /* ... and completes */
    W_EV_SEARCH_DONE,    /* node's search job arg runs and completes (gen = incarnation) */
};

/* A frame in flight: a request to node `to` or its answer back. */
typedef struct w_msg {
    uint64_t req_id;
    int to;            /* node index (requests) */
    uint8_t *bytes;
    size_t len;
    /* A response to a client, charged to node held_node's response budget
     * (incarnation held_inc) until it arrives; held_node -1: not charged. */
    int held_node;
    uint64_t held_inc;
    int held_client;
} w_msg;

/* An outstanding request: exactly one outcome (response or failure). */
typedef struct w_req {
    uint64_t id;
    bool in_use;
    bool done;
    bool from_client;
    int from;          /* node index, or client index */
    uint64_t from_inc; /* requester incarnation (nodes) */
    int to;
    uint64_t tag;      /* exec's tag (peer requests) */
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    uint64_t client_ref; /* the client's own reference */
    uint64_t conn_serial; /* clients: the connection it was sent on (w_conn.c) */
    /* Vote requests, noted by the checker when they leave */
    bool vote;
    bool vote_pre;
    int32_t vote_epoch;
    int32_t vote_candidate;
    /* The request or its answer was lost or delayed past every timeout
     * (voter-fetch-timely counts only fetches on a healthy link). */
    bool net_fault;
    /* Client requests: the group coordinator the answering node held
     * (w_net_coord_id; 0 none) and when it answered (group-exclusive). */
    uint64_t answer_coord;
    int64_t answered_ms;
} w_req;

/* What the executor holds as a slot: a request delivered to a node. */
typedef struct w_slot {
    uint64_t req_id;
    int node;
    uint64_t inc;
    bool answered;
    bool from_client; /* a client connection: not a quorum listener */
    int from;             /* the client's index, or the peer's node index */
    uint64_t conn_serial; /* the connection it came on */
} w_slot;

/* One simulated TCP connection into a node, admitted by one of its pools
 * (the shipped kq/conn_limits.h, set up by kq_conn_pools_init as in the
 * daemon; w_conn.c). */
typedef struct w_conn {
    kq_conn_member member; /* in its pool's eviction index */
    kq_conn_addr addr;
    bool open;
    bool peer;          /* a server's, on the controller listener */
    bool controller;    /* a client's on the controller listener (the operator's) */
    int8_t node;        /* the node it goes into */
    int8_t client;      /* clients: the client's index; -1 none */
    int8_t flood_addr;  /* connection floods: the address's index; -1 none */
    uint64_t serial;    /* unique per opening: requests of an earlier one fail */
    int outstanding;    /* requests read or waiting to be read, unanswered */
} w_conn;

typedef struct w_node {
    int idx;
    int32_t id;
    bool voter;
    bool running;     /* an executor exists */
    bool refused;     /* the last start refused (corrupt log) */
    bool crash_pending; /* died inside a call (fatal or crash point) */
    bool fatal;       /* the crash was a fail-stop */
    bool paused;
    int64_t paused_until;
    uint64_t inc;
    sim_fs *fs;
    kq_exec *x;
    kq_log_flush_job *job;
    bool job_synced;
    int job_rc;
    struct exec_snapshot_job *snap_job; /* handed out by the executor, not done */
    struct exec_search_job *search_jobs[EXEC_TIME_SEARCHES_RUNNING_MAX]; /* out, not done */
    bool snap_ran;
    int snap_rc;
    int snap_fault_rc; /* the resource fault injected into its snapshot job, 0 none */
    uint64_t timer_gen;
    int64_t timer_due;
    w_slot **slots;   /* delivered, unanswered */
    int slot_n, slot_cap;
    uint32_t crash_ppm; /* chance of dying before each action */
    bool slow_disk;     /* every fsync takes 1-8 s */
    bool disk_faulted;  /* a storage fault was armed: reads may fail */
    bool corrupted;     /* a bit was flipped in its durable log */
    /* Its disk was replaced (w_node_replace_disk): the producer-id floor
     * kept there is gone, so it starts from the daemon's millisecond
     * wall-clock base rather than the coarse one (finding: the floor is
     * not replicated; a clock stepped back would repeat ids). */
    bool disk_replaced;
    /* controller.quorum.auto.join.enable for its next incarnations (the
     * reconfig scenario's disk replacement, KIP-1186). */
    bool auto_join;
    /* Its directory id as formatted (meta.properties, w_format.c); zero
     * in a world of static voters (unformatted disks). */
    kq_uuid dir;
    /* The directory its last replaced disk had and what that disk had
     * flushed: the copy the leader counted until the set drops it. */
    kq_uuid lost_dir;
    int64_t lost_flushed;
    bool shutting_down;
    bool shutdown_done;
    int restarts;
    int64_t last_flushed; /* storage's flushed offset, last seen alive */
    int64_t checked_flushed; /* flushed-is-durable: last offset compared */
    uint64_t checked_inc;
    /* The response budget of this incarnation (kq/budget.h, the shipped
     * decisions): every client response is charged from the moment it is
     * answered until it arrives (a client that never reads: for good);
     * held[] is what each client's connection holds; requests the budget
     * does not let be read wait in deferred, in order (w_net.c). */
    kq_budget budget;
    uint64_t held[SIM_CLIENTS_MAX];
    bool conn_open[SIM_CLIENTS_MAX];
    w_msg **deferred;
    int deferred_n, deferred_cap;
    /* Connections (w_conn.c): the pools of this incarnation, one client
     * connection per client, one peer connection from each node, and a
     * connection flood's. */
    kq_conn_pool client_pool, controller_pool;
    w_conn client_conns[SIM_CLIENTS_MAX];
    w_conn peer_conns[SIM_NODES_MAX];
    w_conn flood_conns[W_CONNFLOOD_CONNS_MAX];
} w_node;

typedef struct w_link {
    bool cut;          /* one-way: from -> to drops everything */
} w_link;

struct w_client;
struct w_check;

typedef struct w_params {
    uint64_t seed;
    int voters;
    int observers;
    uint32_t raft_mutants;
    uint32_t mutants;
    uint64_t checks;   /* enabled checks (bit per enum w_check_id) */
    bool verbose;
} w_params;

typedef struct w_world {
    w_params p;
    int n;
    sim_prng rng;
    sim_sched sched;
    int64_t now;
    w_node nodes[SIM_NODES_MAX];
    exec_config cfg;   /* template; node_id, seed set per node */
    w_link links[SIM_NODES_MAX][SIM_NODES_MAX];
    w_req *reqs;
    size_t req_cap;
    uint64_t next_req;
    /* network faults */
    uint32_t loss_ppm, dup_ppm, tail_ppm, reset_ppm;
    /* disk */
    int64_t flush_min_ms, flush_max_ms;
    bool slow_disks; /* fsync latency tail (hundreds of ms, rarely seconds) */
    uint32_t snap_fault_ppm; /* chance a snapshot job's file fails (ENOSPC, EMFILE) */
    /* connections: every node's max.connections (16-48; per address the
     * daemon's default share), the last connection serial handed out */
    uint32_t max_connections;
    uint64_t conn_serial;
    /* clients */
    struct w_client *clients[SIM_CLIENTS_MAX];
    int client_n;
    bool clients_on;
    /* The disks are formatted at kraft.version 1 (w_format.c): the voters
     * come from the bootstrap checkpoint, none are configured. */
    bool kraft1;
    kq_voter_set boot_voters; /* the bootstrap checkpoint's */
    struct w_check *check;
    uint64_t events;
    int64_t same_ms_events, last_event_ms;
    bool failed;
    char fail_msg[768];
    int current_node; /* node whose code is running (log lines), -1 none */
    /* The answer being delivered to a client (w_client_on_response): its
     * w_req's answer_coord and answered_ms. */
    uint64_t answer_coord;
    int64_t answer_ms;
} w_world;

bool w_world_init(w_world *w, const w_params *p);
void w_world_free(w_world *w);
bool w_fail(w_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void w_trace(w_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool w_schedule(w_world *w, int64_t at, enum w_ev type, int node, uint64_t gen, int64_t arg,
                void *ptr);

/* ---- nodes (w_node.c) */
bool w_node_start(w_world *w, int idx);
enum w_crash { W_CRASH_POWER_LOSS = 1, W_CRASH_PROCESS_KILL };
void w_node_crash(w_world *w, int idx, enum w_crash kind);
void w_node_shutdown(w_world *w, int idx); /* graceful; stops once done or timed out */
void w_node_pause(w_world *w, int idx, int64_t ms);
/* The stopped node's disk is replaced by an empty one (issue 20 item 6):
 * log, snapshots and quorum state (with its directory id) are gone. */
void w_node_replace_disk(w_world *w, int idx);
bool w_node_status(const w_world *w, int idx, raft_status *st);
/* ---- kraft.version 1 worlds (w_format.c, KIP-853): every disk formatted as
 * Kafka's StorageTool does (meta.properties with a directory id from the
 * world's PRNG, the bootstrap checkpoint naming the first w->p.voters nodes
 * with their directory ids and controller endpoints); the executor gets no
 * static voters. Before the first start. */
void w_format_world(w_world *w);
/* Node idx's (empty) disk formatted with a new directory id and a
 * bootstrap checkpoint naming voters (NULL: the world's first): it starts
 * as an observer. */
void w_format_node(w_world *w, int idx, const kq_voter_set *voters);
bool w_node_alive(const w_world *w, int idx);
/* Crashes pending from inside a call (fatal, crash point). */
void w_node_reap(w_world *w);
void w_node_on_event(w_world *w, const sim_event *ev);

/* ---- network (w_net.c) */
/* A client sends a request frame to node `to`; the client gets exactly one
 * w_client_on_response (bytes NULL on failure). Returns the request id. */
uint64_t w_net_client_send(w_world *w, int client, int to, const uint8_t *frame, size_t len,
                           uint64_t client_ref, int32_t timeout_ms);
bool w_net_peer_send(w_world *w, int from, int32_t to_id, int32_t corr, const uint8_t *frame,
                     size_t len, uint64_t tag);
void w_net_reply(w_world *w, w_slot *slot, const uint8_t *data, size_t len, bool close);
/* The group coordinator node idx holds now (node, incarnation, Raft epoch
 * in one number; 0 none): what a client answer records (group-exclusive). */
uint64_t w_net_coord_id(const w_world *w, int idx);
void w_net_on_event(w_world *w, const sim_event *ev);
/* A node died: its slots vanish and its requests fail when they time out. */
void w_net_node_down(w_world *w, int idx);
void w_net_partition(w_world *w, const bool *side_a); /* cut both ways between sides */
void w_net_cut_one_way(w_world *w, int from, int to);
void w_net_heal(w_world *w);
void w_net_reset(w_world *w, int from, int to);
int w_node_index(const w_world *w, int32_t id);
/* The answer to a client slot may hold this many of want bytes of log data. */
uint64_t w_net_slot_grant(w_world *w, const w_slot *slot, uint64_t want);
/* The client's requests in flight on its connection of serial into node
 * fail now (the connection closed under them). */
void w_net_fail_conn(w_world *w, int client, int node, uint64_t serial);
/* Node idx (re)starts: a fresh response budget. */
void w_net_node_up(w_world *w, int idx);
/* Requests of client waiting at node for the budget to let them be read. */
int w_net_client_backlog(const w_world *w, int client, int node);
/* Client's connections close: what they held is freed. */
void w_net_client_close(w_world *w, int client);
/* The simulated nodes' response budget (queued.max.response.bytes) and
 * per-connection bound: small, so that two clients that never read reach
 * it with a few KiB of log. */
#define W_BUDGET_BYTES (64u << 10)
#define W_BUDGET_CONN_BYTES (48u << 10)

/* ---- connections (w_conn.c): admitted or refused by the node's pools */
/* Addresses: client idx, node idx (its peer connections), a connection
 * flood's address k. */
kq_conn_addr w_addr_client(int idx);
kq_conn_addr w_addr_peer(int idx);
kq_conn_addr w_addr_flood(int k);
/* The node's pools for a new incarnation / its connections gone with it
 * (and its own connections into the other nodes closed). */
void w_conn_node_up(w_world *w, int idx);
void w_conn_node_down(w_world *w, int idx);
/* Client's connection into a running node, opened (admitted) if needed;
 * NULL: refused. */
w_conn *w_conn_client(w_world *w, int client, int node);
/* Node from's connection into running node to (its controller listener);
 * NULL: refused. */
w_conn *w_conn_peer(w_world *w, int from, int to);
/* The pool c is counted in (kq_conn_pool_of_listener, as the daemon). */
kq_conn_pool *w_conn_pool(w_world *w, const w_conn *c);
/* A connection flood opens one more connection into a running node from
 * its address k; false when refused or it holds W_CONNFLOOD_CONNS_MAX. */
bool w_conn_flood_open(w_world *w, int node, int k);
/* Closes c (released from its pool; a client's requests on it fail). */
void w_conn_close(w_world *w, w_conn *c);
/* A request read / answered (src/net's touch). */
void w_conn_on_read(w_conn *c);
void w_conn_on_answered(w_conn *c);
/* Whether an open connection may be closed now (nothing being handled,
 * no answer to a client on its way). */
bool w_conn_idle(const w_world *w, const w_conn *c);

/* ---- the event loop (w_world.c) */
bool w_run_event(w_world *w);
bool w_run_for(w_world *w, int64_t ms);
bool w_run_until(w_world *w, bool (*pred)(w_world *w, void *ctx), void *ctx, int64_t ms);
/* Running node leading the highest epoch, or -1. */
int w_current_leader(const w_world *w);

#endif
