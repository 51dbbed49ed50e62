/* The checker's state (private to w_check.c and w_final.c). */
#ifndef SIM_W_CHECK_INTERNAL_H
#define SIM_W_CHECK_INTERNAL_H

#include "kq/record.h"
#include "w_check.h"

typedef struct w_batch {
    int64_t base, last;
    uint64_t hash; /* of the whole batch as committed */
    bool control;  /* issue 24: runs of control batches (w_check_groups.c) */
} w_batch;

typedef struct w_acked {
    int client;
    int64_t offset;
    uint64_t value;
} w_acked;

typedef struct w_consumed {
    int64_t offset;
    uint64_t value;
} w_consumed;

/* A DeleteGroups or OffsetDelete of a committer's group (issue 24). */
typedef struct w_delete {
    int64_t sent_ms;
    int64_t done_ms; /* its outcome arrived (INT64_MAX: none yet, or it failed: unknown) */
    bool deleted;    /* answered NONE for the group / its partition */
} w_delete;

/* One offset committer's group (w_check_groups.c, w_check_deleted.c). */
typedef struct w_group_offsets {
    bool used;           /* the fields below are set */
    int64_t *sent;       /* every offset its client sent, ascending */
    int64_t *sent_ms;    /* when each was sent */
    int64_t *answered_ms; /* when its answer (any) arrived; INT64_MAX: none (unknown) */
    int64_t *log_pos;    /* its latest commit record in the committed log; -1 none */
    size_t sent_n, sent_cap;
    int64_t acked_max;   /* highest acknowledged; -1 none */
    int64_t fetched_max; /* highest answered to an OffsetFetch; -1 none */
    /* group-membership-kept (issue 24): the member as of its last request
     * answered NONE (incarnation 0: none), and when that request was sent */
    uint32_t member_inc;
    int32_t member_generation;
    int64_t member_good_sent_ms;
    /* deletions (issue 24): the client's, and the committed log's model of
     * its key (group, __cluster_metadata, 0) */
    w_delete *deletes;
    size_t delete_n, delete_cap;
    int64_t deleted_sent_ms; /* the latest delete answered NONE: when sent; INT64_MIN none */
    bool log_has;            /* the key holds a commit at the committed end */
    int64_t log_offset, log_ts;
    int32_t log_epoch;
    int64_t log_deleted_at;  /* the latest tombstone that removed it; -1 none */
} w_group_offsets;

struct w_check {
    uint64_t checks;
    int64_t hw_floor;           /* highest HW any leader reported */
    int32_t max_leader_epoch;
    int32_t *epoch_leader;      /* epoch -> leader id */
    size_t epoch_cap;
    int32_t node_epoch[SIM_NODES_MAX];
    int32_t leader_hw_epoch[SIM_NODES_MAX];
    int64_t leader_hw[SIM_NODES_MAX];
    int32_t checked_epoch[SIM_NODES_MAX]; /* epoch whose log was compared in full */
    /* Followers: the epoch and the batch boundary up to which their log
     * below their HW was compared with the committed record. */
    int32_t follower_epoch[SIM_NODES_MAX];
    int64_t follower_checked[SIM_NODES_MAX];
    int32_t *votes[SIM_NODES_MAX];        /* per voter: epoch -> candidate granted */
    size_t votes_cap[SIM_NODES_MAX];
    w_batch *committed;         /* committed batches, ascending */
    size_t committed_n, committed_cap;
    /* The 8-byte record values of the committed batches, as recorded
     * (retention may delete them from every log before the end). */
    w_consumed *committed_vals;
    size_t committed_val_n, committed_val_cap;
    int64_t committed_end;
    w_acked *acked;             /* acks=-1 successes, in the order answered */
    size_t acked_n, acked_cap;
    w_consumed *consumed;
    size_t consumed_n, consumed_cap;
    int64_t log_start[SIM_NODES_MAX]; /* each node's log start, last seen */
    /* told-hw-monotonic: per fetching node, the newest leader epoch and the
     * highest HW a Fetch answer told it */
    int32_t told_epoch[SIM_NODES_MAX];
    int64_t told_hw[SIM_NODES_MAX];
    int64_t *pids;              /* producer ids handed out */
    size_t pid_n, pid_cap;
    w_group_offsets groups[SIM_CLIENTS_MAX]; /* by client index */
    /* issue 19 (w_check_control.c): CRCs of the control batches clients sent */
    uint32_t *client_control;
    size_t client_control_n, client_control_cap;
    /* KIP-853 (w_check_voters.c): the operator's settled changes, by node
     * index: 1 (id, dir) is a voter, -1 it is not, 0 never changed */
    int8_t voter_expect[SIM_NODES_MAX];
    /* The set in force now and the one before its last change (acked-durable) */
    kq_voter_set set_cur, set_prev;
    bool set_cur_known, set_prev_known;
    kq_uuid voter_expect_dir[SIM_NODES_MAX];
    /* issue 19 item 4 (w_check_quorum.c): voters' fetches, created lazily */
    struct w_quorum_check *quorum;
    /* issue 23 (w_check_txn.c): the transactions of the committed record */
    struct w_txn_check *txn;
    /* issue 24 (w_check_cgroups.c): the consumer members' holdings, lazily */
    struct w_cg_check *cg;
};

/* w_check_quorum.c: voter-fetch-timely */
void w_check_quorum_on_fetch(w_world *w, int from, const w_req *req, int64_t offset);
void w_check_quorum_on_answer(w_world *w, const w_req *req, const uint8_t *frame, size_t len);
/* w_check_told_hw.c: a Fetch answer leaving for node req->from. */
/* The one partition of a Fetch answer frame (header included) without a
 * top-level error, decoded into arena; NULL otherwise. */
struct wire_fetch_partition_data;
const struct wire_fetch_partition_data *w_fetch_answer_partition(int16_t version,
                                                                 const uint8_t *frame, size_t len,
                                                                 kq_arena *arena);
void w_check_told_hw_on_answer(w_world *w, const w_req *req, const uint8_t *frame, size_t len);
void w_check_quorum_after_event(w_world *w);
void w_check_quorum_free(struct w_check *c);

bool w_inv_fail(w_world *w, enum w_check_id c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int64_t w_flushed(const w_world *w, int idx);
int w_voters_flushed_past(const w_world *w, int64_t offset);
int w_scan(w_world *w, int idx, int64_t from, int (*fn)(void *, const uint8_t *, size_t),
           void *ctx);
uint64_t w_hash(const uint8_t *p, size_t n);
int64_t w_durable_end(w_world *w, int idx);
void w_check_flushed_durable(w_world *w);

/* w_check_txn.c: a batch new to the committed record; frees its state. */
void w_check_txn_on_batch(w_world *w, const uint8_t *b, size_t len);
void w_check_txn_free(struct w_check *c);

/* w_check_groups.c: frees the groups' state; a group client's record
 * (created on first use). */
/* Whether every committed batch holding an offset in [from, to) is a
 * control batch (from < to <= the committed end); boundary: to is also a
 * batch's base or the committed end (issue 24, w_check_groups.c). */
bool w_check_control_only(const w_world *w, int64_t from, int64_t to, bool boundary);

/* w_check_groups.c: frees the groups' state. */
void w_check_groups_free(struct w_check *c);
w_group_offsets *w_check_group_of(w_world *w, int client);
/* The index of value in g->sent, or -1. */
int64_t w_check_sent_index(const w_group_offsets *g, int64_t value);

/* w_check_deleted.c (issue 24): deleted-stays-deleted. A batch new to the
 * committed record (the key's model); an OffsetFetch answered offset;
 * whether a deletion may have removed floor (an offset sent) by now. */
void w_check_deleted_on_batch(w_world *w, const uint8_t *b, size_t len);
void w_check_deleted_on_fetched(w_world *w, int client, const w_offsets_floor *floor,
                                int64_t offset, int node, bool final);
bool w_check_deleted_may_have(const w_world *w, const w_group_offsets *g, int64_t floor);

/* w_check_voters.c: change-after-epoch-commit and one-uncommitted-change
 * before each APPEND. */
void w_check_voters_on_append(w_world *w, int node, const raft_action *a);
/* After every event: the set in force and the one before (kraft.version 1). */
void w_check_voters_after_event(w_world *w);

/* w_check_control.c: no-client-control before each APPEND; frees its state. */
void w_check_control_on_append(w_world *w, int node, const raft_action *a);
void w_check_control_free(struct w_check *c);

/* w_metrics.c: every live node's metrics text, at the end of the run. */
void w_check_metrics(w_world *w, int leader, int64_t final_hw);

#endif
