/* Shared state of the consumer-group handlers (issue 12), private to the
 * src/handler/group_*.c files. The handlers own a classic group coordinator
 * (kq/group.h) only while this node leads, one per epoch; JoinGroup and
 * SyncGroup wait in a bounded table keyed by the coordinator's tokens;
 * OffsetCommit becomes one control batch (kq/group_offsets.h) appended
 * through the Raft core and answered once the high watermark and the
 * offsets table pass it. */
#ifndef KQ_GROUP_HANDLERS_H
#define KQ_GROUP_HANDLERS_H

#include "handler_internal.h"
#include "kq/group.h"
#include "kq/group_offsets.h"

/* A JoinGroup or SyncGroup the coordinator has not answered yet. */
typedef struct group_pending {
    bool in_use;
    uint32_t generation; /* of the token naming this entry */
    enum group_answer_kind kind;
    void *slot;
    int16_t version;
    int32_t correlation_id;
    char group_id[KQ_GROUP_NAME_BYTES_MAX]; /* for the leader's member list */
} group_pending;

/* One partition of an OffsetCommit and its outcome. */
typedef struct commit_result {
    int topic;          /* its topic's index in the request (groups the answer) */
    kq_slice name;      /* into commit_pending.names (v2-9) */
    kq_uuid id;         /* v10 */
    int32_t partition;
    int16_t error;
    bool appended;      /* in the batch: answered by the append's outcome */
} commit_result;

/* An OffsetCommit whose batch is being appended or waits to commit. */
typedef struct commit_pending {
    void *slot;
    int16_t version;
    int32_t correlation_id;
    int32_t epoch;        /* leader epoch it was appended in */
    int64_t last_offset;  /* of its batch */
    int64_t deadline_ms;
    int count;
    commit_result *results; /* malloc'd, count entries */
    char *names;            /* malloc'd topic names the results point into */
} commit_pending;

/* An OffsetCommit's request object while the executor appends its batch
 * (kq/request.h): back through groups_commit_executed. */
typedef struct commit_request {
    kq_request req;
    commit_pending pending;
} commit_request;

#define GROUP_COMMIT_QUEUE_CAP HANDLER_GROUP_PENDING_MAX

/* Encodes and sends an API's answer with error (a held answer that cannot
 * be sent: NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE). */
typedef void groups_error_fn(handler *h, void *slot, const wire_request_header *hdr,
                             int16_t error);

/* An encoded answer held until the membership change it reveals commits
 * (group_persist.c, issue 24). */
typedef struct group_held {
    void *slot;
    wire_request_header hdr; /* client_id not kept */
    groups_error_fn *error_answer;
    uint64_t need_seq;  /* the coordinator's change seq to be committed */
    int64_t deadline_ms;
    uint8_t *frame;     /* the response frame, 4-byte size first */
    size_t len;
    struct group_held *next;
} group_held;
/* One entry of a DeleteGroups answer (a group) or an OffsetDelete answer
 * (a partition), issue 24. */
typedef struct admin_result {
    int topic;          /* OffsetDelete: its topic's index in the request */
    kq_slice name;      /* the group id / the topic name (into admin_pending.names) */
    int32_t partition;  /* OffsetDelete */
    int16_t error;
    bool appended;      /* its tombstones are in the batch: the append's outcome answers */
} admin_result;

/* A DeleteGroups or OffsetDelete whose tombstones are being appended or
 * wait to commit (group_admin.c). */
typedef struct admin_pending {
    void *slot;
    int16_t api_key;
    int16_t version;
    int32_t correlation_id;
    int16_t error;        /* OffsetDelete's top-level error */
    int32_t epoch;        /* leader epoch it was appended in */
    int64_t last_offset;  /* of its batch */
    int64_t deadline_ms;
    /* DeleteGroups: the groups' membership tombstones (group_persist.c)
     * must commit too: the coordinator's change seq, of the coordinator
     * made coord_made-th (0: nothing to wait for). */
    uint64_t hold_seq;
    uint32_t coord_made;
    int count;
    admin_result *results; /* malloc'd, count entries */
    char *names;           /* malloc'd strings the results point into */
} admin_pending;

/* Its request object while the executor appends (kq/request.h): back
 * through groups_admin_executed. */
typedef struct admin_request {
    kq_request req;
    admin_pending pending;
} admin_request;

struct handler_groups {
    group_coord *coord;   /* NULL unless leading (in coord_epoch) */
    int32_t coord_epoch;
    int64_t wake_at_ms;   /* the coordinator's; INT64_MAX: none */
    group_pending pending[HANDLER_GROUP_PENDING_MAX];
    int pending_count;
    uint32_t generation;  /* of the latest token handed out */
    /* The batch of the OffsetCommit at the executor (one at a time: the
     * executor hands every request back before the next frame). */
    kq_writer batch;
    /* Appended commits waiting for the high watermark, in append order. */
    commit_pending queue[GROUP_COMMIT_QUEUE_CAP];
    uint32_t head, tail;
    /* Group limits hit: logged once per KQ_GROUP_LIMIT_LOG_INTERVAL_MS. */
    int64_t limit_logged_ms;
    bool limit_logged;
    uint64_t limit_suppressed;
    /* Offset expiry (group_offset_expiry.c). */
    int64_t expiry_due_ms;        /* next retention check; 0: at the first tick */
    bool expiry_open;             /* the tombstone batch decided, not yet appended */
    kq_request expiry_req;        /* its request object (no client) */
    bool expiry_inflight;         /* appended, not yet applied by the offsets table */
    int32_t expiry_epoch;
    int64_t expiry_last_offset;
    int expiry_count;             /* records in expiry_batch */
    kq_writer expiry_batch;
    /* Membership through the log (group_persist.c, issue 24). */
    uint32_t coords_made;         /* member ids differ between coordinators */
    group_store_batch persist_take; /* the records of the take at the executor */
    kq_writer persist_batch;      /* its control batch */
    kq_request persist_req;       /* its request object (no client) */
    bool persist_inflight;        /* taken: at the executor or waiting to commit */
    int32_t persist_epoch;        /* appended in (-1: not yet) */
    int64_t persist_last_offset;
    uint64_t persist_taken_seq;   /* every change up to this seq is taken */
    uint64_t persist_committed_seq; /* ... and up to this one committed */
    uint64_t hold_seq;            /* the answer being encoded waits for this seq (0: none) */
    group_held *held_head, *held_tail; /* in hold (and deadline) order */
    int held_count;
    uint64_t held_bytes;
    /* DeleteGroups / OffsetDelete (group_admin.c, issue 24): the batch at
     * the executor (one at a time, as batch) and the appended requests
     * waiting for the high watermark, in append order. */
    kq_writer admin_batch;
    admin_pending admin_queue[HANDLER_GROUP_ADMIN_PENDING_MAX];
    uint32_t admin_head, admin_tail;
};

_Static_assert((GROUP_COMMIT_QUEUE_CAP & (GROUP_COMMIT_QUEUE_CAP - 1)) == 0,
               "the commit queue's capacity is a power of two");
_Static_assert(HANDLER_GROUP_PENDING_MAX <= 0xffff, "a token holds the entry in 16 bits");

/* group_coordinator.c */
/* Whether group requests may be served: KAFKA_NONE (then the coordinator
 * exists), NOT_COORDINATOR (not the leader), COORDINATOR_LOAD_IN_PROGRESS
 * (the offsets of this epoch are not all applied yet) or
 * COORDINATOR_NOT_AVAILABLE (out of memory). */
int16_t groups_gate(handler *h);
/* The same checks without making the coordinator (it may stay NULL). */
int16_t groups_ready(handler *h);
/* Takes an entry for a JoinGroup/SyncGroup; 0 when the table is full. */
uint64_t groups_pending_add(handler *h, handler_request *req, enum group_answer_kind kind,
                            const char *group_id);
/* Answers every answer of out and remembers its wake-up time. */
void groups_deliver(handler *h, const group_output *out);
/* A NUL-terminated copy of s in the request's arena (NULL for a null
 * string); false when s holds a NUL byte or memory runs out. */
bool groups_cstr(handler *h, kq_slice s, const char **out);
/* A group id the offsets table can hold ("" is not one). */
bool groups_id_storable(const char *group_id);
/* Requests that cannot be decoded close the connection. */
void groups_malformed(handler *h, handler_request *req, const char *what);

/* Logs (rate-limited) a request refused at a group limit, naming the
 * limit, the principal and the address. */
void groups_log_limit(handler *h, void *slot, const char *api, const char *group_id,
                      const char *limit);

/* group_coordinator.c: drops the coordinator (this epoch's, loaded again
 * from the store at the next request), answering what waits with error. */
void groups_coord_drop(handler *h, int16_t error);

/* group_persist.c (issue 24) */
/* Whether membership goes through the log (the executor gave a store). */
bool groups_persisting(const handler *h);
/* The change seq an answer about group_id (NULL: any change) must wait
 * for, 0 when it is committed (or nothing is persisted). */
uint64_t groups_persist_seq(handler *h, const char *group_id);
/* handler_finish_response for an answer encoded in h->out, held while
 * h->groups->hold_seq is not committed (error_answer answers instead if
 * the hold fails or is refused). */
void groups_finish(handler *h, void *slot, const wire_request_header *hdr,
                   groups_error_fn *error_answer);
groups_error_fn groups_join_error, groups_sync_error;
/* Within a frame that handed nothing over: takes what changed now, as the
 * frame's HANDLER_APPEND (else it waits for handler_take_request). */
void groups_persist_now(handler *h);
void groups_persist_progress(handler *h, const raft_status *st);
void groups_persist_tick(handler *h, int64_t now_ms);
int64_t groups_persist_next_deadline(const handler *h);
/* Answers every held answer with error and forgets the takes. */
void groups_persist_reset(handler *h, int16_t error);
void groups_persist_free(handler *h);

/* group_offset_expiry.c */
void groups_expiry_tick(handler *h, int64_t now_ms);

/* group_join_sync.c: encodes and sends the answer a to its entry p. */
void groups_answer(handler *h, const group_pending *p, const group_answer *a);
/* The same for an error before the coordinator saw the request. */
void groups_answer_error(handler *h, void *slot, const wire_request_header *hdr,
                         enum group_answer_kind kind, int16_t error);

/* group_admin.c (issue 24): DeleteGroups and OffsetDelete wait for their
 * tombstones as OffsetCommit does. */
void groups_admin_init(handler *h);
void groups_admin_free(handler *h);
void groups_admin_progress(handler *h, const raft_status *st);
void groups_admin_expire(handler *h, int64_t now_ms);
int64_t groups_admin_deadline(const handler *h);
/* Whether one more request may wait (else COORDINATOR_NOT_AVAILABLE,
 * decided before anything is deleted). */
bool groups_admin_room(const handler *h);
/* p's results allocated (count of them, names bytes of strings); false
 * when memory runs out. */
bool groups_admin_alloc(admin_pending *p, int count, size_t names);
/* Hands p over with the count tombstones in h->groups->admin_batch, or,
 * with none, answers it at once. */
void groups_admin_submit(handler *h, admin_pending *p, int count);
/* Answers p (its appended entries with error) and frees it. */
void groups_admin_finish(handler *h, admin_pending *p, int16_t error);

/* group_offset_commit.c */
void groups_commits_progress(handler *h, const raft_status *st);
void groups_commits_expire(handler *h, int64_t now_ms);
void groups_commits_free(handler *h);

#endif
