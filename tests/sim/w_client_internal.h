/* The simulated clients' private state and the helpers shared by
 * w_client.c (producers, consumers, the forger), w_client_group.c (the
 * offset committers) and w_client_member.c (their group membership). */
#ifndef SIM_W_CLIENT_INTERNAL_H
#define SIM_W_CLIENT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/limits.h"
#include "kq/wire_produce.h"
#include "w_check.h"
#include "w_client.h"

#define WC_INFLIGHT_MAX 16
#define WC_BATCH_RECORDS_MAX 3
#define WC_ACKS_ZERO_INFLIGHT_MAX 4
#define WC_PACE_MIN_MS 5
#define WC_PACE_MAX_MS 50
#define WC_RESTART_PPM 10000      /* of producer actions: a restarted producer */
#define WC_BURST_PPM 300000       /* of restarts: a burst of InitProducerId */
#define WC_BURST_MIN 3
#define WC_BURST_MAX 10
#define WC_GZIP_PPM 100000        /* of batches */
#define WC_LEADER_PPM 800000      /* of requests: to the current leader */
#define WC_FETCH_EPOCH_PPM 500000 /* of fetches: with the last leader epoch seen */
#define WC_TIMESTAMP_BASE_MS INT64_C(1600000000000)
#define WC_VALUE_CLIENT_SHIFT 56
#define WC_VALUE_SEQ_MASK ((UINT64_C(1) << WC_VALUE_CLIENT_SHIFT) - 1)
#define WC_FETCH_MAX_BYTES (1 << 20)
#define WC_ARENA_BYTES_MAX ((size_t)16 << 20)
#define WC_TXN_TIMEOUT_MS 60000

enum wc_op {
    WC_OP_PRODUCE = 1,
    WC_OP_INIT_PID,
    WC_OP_FETCH,
    WC_OP_FORGE,
    WC_OP_OFFSET_COMMIT, /* group clients (w_client_group.c) */
    WC_OP_OFFSET_FETCH,
    WC_OP_FIND_COORDINATOR,
    WC_OP_JOIN_GROUP, /* group members (w_client_member.c) */
    WC_OP_SYNC_GROUP,
    WC_OP_HEARTBEAT,
    WC_OP_HOSTILE_PRODUCE, /* w_client_hostile.c */
    WC_OP_LIST_OFFSETS, /* consumers (w_client_offsets.c) */
    WC_OP_VOTER_CHANGE, /* the operator (w_client_operator.c) */
    WC_OP_TXN, /* a transactional producer's step (w_client_txn.c) */
    WC_OP_TXN_OFFSET_FETCH, /* ... reading its group back */
    WC_OP_DELETE_GROUPS, /* group clients deleting their group (w_client_admin.c) */
    WC_OP_OFFSET_DELETE,
    WC_OP_CG_HEARTBEAT, /* KIP-848 members (w_client_consumer.c) */
};

/* A request sent and not yet answered (exactly one w_client_on_response). */
typedef struct wc_inflight {
    bool used;
    enum wc_op op;
    uint64_t ref;
    int16_t version;
    int32_t corr;
    int node;
    int16_t acks;          /* Produce */
    uint64_t batch_gen;    /* Produce: the batch it carries */
    int64_t fetch_offset;  /* Fetch */
    int64_t commit_value;  /* OffsetCommit: the offset it commits */
    w_offsets_floor floor; /* OffsetFetch: what it must see (w_check.h) */
    bool final_fetch;      /* OffsetFetch: the end-of-run one */
    bool all_topics;       /* OffsetFetch: a null topic list (every topic) */
    bool ack_committed;    /* AddRaftVoter: AckWhenCommitted */
    int32_t txn_inst;      /* transactional producers: the instance that sent it */
    int16_t txn_key;       /* ... the API of its step */
    int64_t sent_ms;       /* when wc_send sent it */
    uint32_t member_inc;   /* group members: the member id it names (0: none) */
    int32_t generation;    /* ... and the generation */
    int delete_handle;     /* DeleteGroups / OffsetDelete: the checker's (w_check.h) */
    bool extra_partitions; /* OffsetDelete: also an unknown partition and topic */
    int32_t cm_inst;       /* KIP-848 members: the process instance that sent it */
    int32_t cm_epoch;      /* ... the member epoch it carried */
} wc_inflight;

/* A transactional producer's state (w_client_txn.c, issue 23). */
enum wcx_step {
    WCX_INIT = 0,    /* InitProducerId */
    WCX_BEGIN,       /* AddPartitionsToTxn */
    WCX_PRODUCE,     /* its batches, one at a time */
    WCX_ADD_OFFSETS, /* AddOffsetsToTxn */
    WCX_COMMIT_OFFSETS, /* TxnOffsetCommit */
    WCX_END,         /* EndTxn, the decision kept across retries */
};
#define WCX_VALUES_MAX 15 /* 5 batches of up to WC_BATCH_RECORDS_MAX */
typedef struct wc_txn {
    int tid;               /* "tx<tid>"; a zombie twin shares its twin's */
    char tid_s[16];
    char group[16];        /* "t<tid>": its transactional offset commits */
    enum wcx_step step;
    int32_t inst;          /* instance: a restart ignores the old one's answers */
    int node;              /* the node it believes coordinates; -1 none */
    int32_t timeout_ms;
    int64_t next_at;       /* backoff */
    uint32_t txn_no;       /* transactions begun (in the values) */
    uint32_t rec_no;       /* records of the current one */
    int batches_left;
    bool with_offsets;
    bool commit;           /* the decision */
    int64_t offset_value;  /* TxnOffsetCommit's offset, unique per group */
    uint64_t values[WCX_VALUES_MAX]; /* acknowledged in this transaction */
    int value_n;
} wc_txn;

/* A KIP-848 consumer member's state (w_client_consumer.c, issue 24): one
 * process instance of a Java-like consumer with group.protocol=consumer. */
#define WCN_TP_MAX 8
typedef struct wc_cmember {
    int32_t inst;          /* restarts make a new instance (old answers ignored) */
    int16_t version;       /* its ConsumerGroupHeartbeat version (0 or 1) */
    int32_t epoch;         /* member epoch; 0: (re)joining */
    int32_t interval_ms;   /* the heartbeat interval answered */
    int32_t rebalance_timeout_ms;
    const char *assignor;  /* server assignor asked for; NULL: the group's */
    bool subscribed;       /* to __cluster_metadata (else to a topic none has) */
    bool full;             /* the next heartbeat carries every field */
    bool sub_changed;      /* ... its subscription */
    bool owned_changed;    /* ... its owned partitions */
    w_cg_tp owned[WCN_TP_MAX]; /* what it consumes */
    int owned_n;
    bool reconciling;      /* revoking, then taking target */
    w_cg_tp target[WCN_TP_MAX];
    int target_n;
    w_cg_from target_from; /* the answer that gave target */
    int64_t target_sent_ms; /* ... to the heartbeat sent then */
    int64_t revoked_at;    /* its revocation is done then */
    int64_t next_hb_at;
    bool left;             /* left the group; joins again at rejoin_at */
    int64_t rejoin_at;
    char instance_id[16];  /* a static member's group.instance.id ("i<idx>"), else "" */
    uint64_t coord;        /* the coordinator of its last answer NONE (w_net_coord_id) */
    int64_t last_ok_sent_ms; /* ... to the heartbeat sent then */
} wc_cmember;

/* An offset committer's state (w_client_group.c). */
typedef struct wc_group {
    char group_id[16];    /* "g<idx>" */
    int coord_node;       /* the node it believes coordinates its group; -1 none */
    bool find_first;      /* ask FindCoordinator before the next request */
    int64_t last_value;   /* last offset it tried to commit; -1 none */
    bool caught_up;       /* issue 24: commits near the committed end, metadata null */
    int commits_acked;
    bool final_wanted;    /* the end-of-run OffsetFetch is due */
    bool final_answered;  /* ... and answered NONE */
    /* members (W_CLIENT_GROUP_MEMBER, w_client_member.c) */
    char member_id[KQ_GROUP_NAME_BYTES_MAX]; /* "" until the coordinator names it */
    int32_t generation;   /* of the last JoinGroup answered; -1 none */
    bool stable;          /* joined and synced: it commits with its generation */
    uint32_t member_inc;  /* its member id's incarnation (0: none; issue 24's check) */
    uint32_t next_inc;
    int64_t inc_since_ms; /* when it learned that member id */
    int64_t heartbeat_at; /* when the next Heartbeat is due */
    /* deletions (w_client_admin.c, issue 24) */
    bool deleter;         /* it sends DeleteGroups / OffsetDelete now and then */
    int64_t quiet_until;  /* after a deletion: no commit before */
    bool retired;         /* after a deletion: no commit ever again */
    int subscription;     /* a member's topics: WCA_SUB_* */
    /* The client whose offsets checks (w_check_groups.c) and commit values
     * this client shares: itself, or a KIP-848 group's first member. */
    int slot;
    wc_cmember cm;        /* W_CLIENT_CONSUMER_MEMBER */
} wc_group;

/* A member's ConsumerProtocolSubscription (w_client_admin.c). */
enum { WCA_SUB_META = 0, WCA_SUB_OTHER, WCA_SUB_UNREADABLE };

/* The operator's change (w_client_operator.c). */
typedef struct wc_operator {
    bool active;        /* a change is going on */
    w_op_kind kind;
    int32_t id;
    kq_uuid dir;
    bool confirm;       /* acknowledged on append (AddRaftVoter v1): a retry must find it */
    int target;         /* the node it believes leads */
    int64_t next_at;    /* after a backoff */
    int attempts;
} wc_operator;

/* The one acks=-1/1 batch a producer has out (acks=0 batches are not kept). */
typedef struct wc_batch {
    bool live;       /* built and neither acknowledged nor given up */
    uint64_t gen;
    uint64_t values[WC_BATCH_RECORDS_MAX];
    int count;
    int64_t producer_id;   /* -1 when not idempotent */
    int32_t base_sequence; /* -1 when not idempotent */
    int attempts;
    kq_writer bytes; /* the encoded batch, resent unchanged */
} wc_batch;

struct w_client {
    int idx;
    w_client_kind kind;
    bool stop_new;
    char client_id[32];
    uint64_t value_seq;
    uint64_t next_ref;
    int32_t next_corr;
    wc_inflight inflight[WC_INFLIGHT_MAX];
    int inflight_n;
    int hint_node;        /* from NOT_LEADER_OR_FOLLOWER, used once; -1 none */
    int32_t known_epoch;  /* leader epoch from a hint; -1 none */
    kq_arena arena;       /* decoded responses */
    kq_writer frame;      /* request being encoded */
    /* producers */
    int16_t acks;
    int64_t producer_id;  /* -1 until InitProducerId settles */
    int16_t producer_epoch;
    int32_t next_sequence;
    int init_left;        /* InitProducerId requests still to send */
    int64_t init_got;     /* newest id answered during this (re)start; -1 none */
    uint64_t batch_gen;
    wc_batch batch;
    /* consumers */
    int64_t fetch_offset;
    /* group clients (w_client_group.c) */
    wc_group group;
    /* flood clients (w_client_flood.c) */
    int64_t flood_until;  /* its connections close then */
    bool flood_closed;
    int connflood_addrs;  /* connection floods: addresses it uses (w_client_connflood.c) */
    wc_operator op;       /* the operator (w_client_operator.c) */
    wc_txn txn;           /* transactional producers (w_client_txn.c) */
    bool read_committed;  /* consumers: Fetch isolation_level 1 */
};

const char *wc_error_name(int16_t e);
int wc_count_op(const w_client *c, enum wc_op op);
/* Starts c->frame with a request header; returns the correlation id. */
int32_t wc_begin(w_client *c, int16_t key, int16_t version);
/* Sends c->frame to f->node and records f as in flight. */
void wc_send(w_world *w, w_client *c, const wc_inflight *f, int32_t timeout_ms);
/* A reader over the body of an answer, after its header (correlation id
 * checked); the arena is reset for the body's decoder. */
bool wc_open_response(w_world *w, w_client *c, const wc_inflight *f, int16_t key,
                      const uint8_t *bytes, size_t len, kq_reader *r);
/* Whether the body decoded (rc 0) and took every byte; w_fail otherwise. */
bool wc_body_ok(w_world *w, const w_client *c, const wc_inflight *f, int16_t key,
                const kq_reader *r, int rc);

/* ---- w_client_group.c */
void wc_group_init(w_world *w, w_client *c);
/* The node it believes coordinates its group; after a failure, the next. */
int wc_group_target(w_world *w, w_client *c);
void wc_group_rotate(w_world *w, w_client *c);
/* A W_EV_CLIENT of a group client. */
void wc_act_group(w_world *w, w_client *c);
/* The outcome of one of its requests (bytes NULL: failed). */
void wc_on_group_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                          size_t len);

/* ---- w_client_flood.c */
void wcf_init(w_world *w, w_client *c);
void wcf_act(w_world *w, w_client *c);

/* ---- w_client_connflood.c (issue 19 item 2) */
void wcc_init(w_world *w, w_client *c);
void wcc_act(w_world *w, w_client *c);

/* ---- w_client_member.c */
/* A member's JoinGroup/SyncGroup/Heartbeat as due; true when it may commit
 * (always for a simple consumer). */
bool wcm_act(w_world *w, w_client *c);
void wcm_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len);
/* It must join again: keep_id keeps its member id (REBALANCE_IN_PROGRESS,
 * ILLEGAL_GENERATION), else it starts as a new member (UNKNOWN_MEMBER_ID).
 * Another coordinator keeps the member (issue 24). */
void wcm_reset(w_client *c, bool keep_id);
/* Whether a member is refused a commit with e (it then rejoins). */
bool wcm_commit_refused(w_world *w, w_client *c, const wc_inflight *f, int16_t e);

/* ---- w_client_admin.c (issue 24) */
void wca_init(w_world *w, w_client *c);
/* A deletion in flight, or its quiet time: no commit now. */
bool wca_holds_commits(const w_world *w, const w_client *c);
/* Sends a DeleteGroups or OffsetDelete now and then; true if it did. */
bool wca_act(w_world *w, w_client *c);
void wca_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len);
/* The member's JoinGroup metadata (ConsumerProtocolSubscription). */
kq_slice wca_subscription(const w_client *c);

/* ---- w_client_consumer.c (KIP-848 members, issue 24) */
/* Member of group c<slot>, whose first member is client `slot`. */
void wcn_init(w_world *w, w_client *c, int slot);
/* Its heartbeats as due (joins, leaves, restarts, reconciliation); true
 * when it may commit (a member holding the partition). */
bool wcn_act(w_world *w, w_client *c);
void wcn_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len);
/* Whether a commit or OffsetFetch of the current instance is refused with
 * e as a member's (STALE_MEMBER_EPOCH: the next heartbeat catches up;
 * UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH: it joins again). */
bool wcn_refused(w_world *w, w_client *c, const wc_inflight *f, int16_t e);

/* ---- w_client_hostile.c (issue 19) */
void wch_act(w_world *w, w_client *c);
void wch_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len);

/* ---- w_client_operator.c (KIP-853) */
void wcop_act(w_world *w, w_client *c);
void wcop_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                      size_t len);

/* ---- w_client.c, shared with w_client_txn.c */
/* A new batch of 1-3 fresh values (transactional for a W_CLIENT_TXN). */
bool wc_build_batch(w_world *w, w_client *c, int32_t base_sequence);
void wc_send_produce(w_world *w, w_client *c, const kq_writer *batch, uint64_t gen);
bool wc_decode_produce(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                       size_t len, wire_produce_partition_response *out);
int32_t wc_sequence_add(int32_t seq, int32_t n);

/* ---- w_client_txn.c (issue 23) */
void wcx_init(w_world *w, w_client *c, int tid);
void wcx_act(w_world *w, w_client *c);
void wcx_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len);

/* w_client_offsets.c: ListOffsets by timestamp (fetch_offset holds the
 * timestamp asked). */
void wco_send_list_offsets(w_world *w, w_client *c);
void wco_on_list_offsets(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                         size_t len);

#endif
