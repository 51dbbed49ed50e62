/* The classic consumer-group coordinator (Kafka's GroupCoordinator and
 * GroupMetadata for the "classic" protocol) as a pure state machine.
 *
 * It does no I/O, reads no clock, starts no thread and decodes no wire
 * format: requests come in as plain structs with the current time, answers
 * go out as plain structs. A JoinGroup or SyncGroup may not be answerable at
 * once: the caller passes a token with it, and the answer (token + result)
 * comes in the output of this or a later call, e.g. a group_tick() the caller
 * drives no later than the output's wake_at_ms.
 *
 * Every string in a request is NUL-terminated; "" is "none" for member ids
 * and NULL or "" is "none" for group.instance.id. Pointers in an output or a
 * view point into the coordinator and stay valid until the next call that
 * takes a group_coord * that is not const.
 *
 * Committed offsets are not kept here; group_validate_offset_commit() gives an
 * OffsetCommit handler Kafka's checks of group, member and generation.
 */
#ifndef KQ_GROUP_H
#define KQ_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/group_store.h"
#include "kq/kafka_errors.h"
#include "kq/limits.h"

enum group_state {
    GROUP_EMPTY = 0,
    GROUP_PREPARING_REBALANCE,
    GROUP_COMPLETING_REBALANCE,
    GROUP_STABLE,
    GROUP_DEAD,
};
/* Kafka's names: "Empty", "PreparingRebalance", ... (DescribeGroups). */
const char *group_state_name(enum group_state state);

/* A group's type (ListGroups v5 "classic" / "consumer"); consumer groups
 * (KIP-848) are in kq/group_consumer.h. */
enum group_type { GROUP_TYPE_CLASSIC = 0, GROUP_TYPE_CONSUMER = 1 };
const char *group_type_name(enum group_type type);

/* group.consumer.assignors entries (Kafka's names "uniform" and "range"). */
enum group_assignor { GROUP_ASSIGNOR_UNIFORM = 0, GROUP_ASSIGNOR_RANGE = 1 };
#define GROUP_ASSIGNORS_MAX 2
const char *group_assignor_name(enum group_assignor a);

/* group.consumer.migration.policy (KIP-848 online migration). */
enum group_migration_policy {
    GROUP_MIGRATION_BIDIRECTIONAL = 0,
    GROUP_MIGRATION_UPGRADE,
    GROUP_MIGRATION_DOWNGRADE,
    GROUP_MIGRATION_DISABLED,
};

typedef struct group_config {
    int32_t max_size;                  /* group.max.size, <= KQ_GROUP_MAX_SIZE_DEFAULT */
    int32_t min_session_timeout_ms;    /* group.min.session.timeout.ms */
    int32_t max_session_timeout_ms;    /* group.max.session.timeout.ms */
    int32_t initial_rebalance_delay_ms;/* group.initial.rebalance.delay.ms */
    uint64_t random_seed;              /* for member ids */
    /* Members + pending member ids per client host (0: unbounded). */
    int32_t members_per_connection_max;
    /* offsets.retention.minutes (as ms) and
     * offsets.retention.check.interval.ms: read by the handlers. */
    int64_t offsets_retention_ms;
    int64_t offsets_retention_check_interval_ms;
    /* Membership through the log (issue 24, kq/group_store.h): 0 keeps it
     * in memory only; else the bytes the coordinator may have in the group
     * store (the handlers: KQ_GROUP_STORE_BYTES_MAX). A join or assignment
     * past it is answered COORDINATOR_NOT_AVAILABLE; metadata or an
     * assignment over KQ_GROUP_STORE_METADATA/ASSIGNMENT_BYTES_MAX
     * INVALID_REQUEST. */
    uint64_t persist_bytes_max;
    /* KIP-848 consumer groups (kq/group_consumer.h), Kafka's keys: */
    int32_t consumer_session_timeout_ms;        /* group.consumer.session.timeout.ms */
    int32_t consumer_min_session_timeout_ms;    /* group.consumer.min.session.timeout.ms */
    int32_t consumer_max_session_timeout_ms;    /* group.consumer.max.session.timeout.ms */
    int32_t consumer_heartbeat_interval_ms;     /* group.consumer.heartbeat.interval.ms */
    int32_t consumer_min_heartbeat_interval_ms; /* group.consumer.min.heartbeat.interval.ms */
    int32_t consumer_max_heartbeat_interval_ms; /* group.consumer.max.heartbeat.interval.ms */
    int32_t consumer_max_size;                  /* group.consumer.max.size */
    /* group.consumer.assignors: the first is the default. */
    enum group_assignor consumer_assignors[GROUP_ASSIGNORS_MAX];
    int consumer_assignor_count;
    enum group_migration_policy consumer_migration_policy;
    uint32_t mutants; /* enum kq_mutant (kq/mutants.h); 0 outside the simulator */
} group_config;
/* Kafka's defaults. */
group_config group_config_default(void);

typedef struct group_coord group_coord;
group_coord *group_coord_create(const group_config *config);
void group_coord_destroy(group_coord *coord);

typedef struct group_protocol {
    const char *name;
    const uint8_t *metadata;
    size_t metadata_len;
} group_protocol;

typedef struct group_join_request {
    uint64_t token;
    const char *group_id;
    const char *member_id;   /* "" for a new member */
    const char *instance_id; /* group.instance.id, NULL/"" for a dynamic member */
    const char *client_id;
    const char *client_host;
    const char *protocol_type;
    const group_protocol *protocols; /* in the member's order of preference */
    int protocol_count;
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms; /* v0 has none: pass session_timeout_ms */
    bool require_known_member_id; /* JoinGroup v4+: MEMBER_ID_REQUIRED step */
} group_join_request;

typedef struct group_assignment {
    const char *member_id;
    const uint8_t *assignment;
    size_t assignment_len;
} group_assignment;

typedef struct group_sync_request {
    uint64_t token;
    const char *group_id;
    const char *member_id;
    const char *instance_id;
    int32_t generation;
    const char *protocol_type; /* v5+, NULL when absent */
    const char *protocol_name; /* v5+, NULL when absent */
    const group_assignment *assignments; /* the leader's; others pass none */
    int assignment_count;
} group_sync_request;

enum group_answer_kind { GROUP_ANSWER_JOIN = 1, GROUP_ANSWER_SYNC };

/* One answered JoinGroup or SyncGroup. A JOIN answer to the leader
 * (is_leader) lists the members through group_join_member_at(). */
typedef struct group_answer {
    uint64_t token;
    enum group_answer_kind kind;
    enum kafka_error error;
    int32_t generation;                 /* JOIN: -1 on error */
    char member_id[KQ_GROUP_NAME_BYTES_MAX];
    char leader_id[KQ_GROUP_NAME_BYTES_MAX];     /* JOIN */
    char protocol_type[KQ_GROUP_NAME_BYTES_MAX];
    char protocol_name[KQ_GROUP_NAME_BYTES_MAX];
    bool is_leader;                     /* JOIN */
    const uint8_t *assignment;          /* SYNC */
    size_t assignment_len;
    /* A limit refused it: its name (static), for the handlers' log line
     * (JoinGroup and SyncGroup answers carry no message); NULL otherwise. */
    const char *limit;
} group_answer;

typedef struct group_output {
    group_answer *answers;
    int answer_count;
    int64_t wake_at_ms; /* call group_tick no later than this; INT64_MAX: never */
} group_output;

/* The output is the coordinator's own and is overwritten by the next call. */
const group_output *group_join(group_coord *coord, const group_join_request *req, int64_t now_ms);
const group_output *group_sync(group_coord *coord, const group_sync_request *req, int64_t now_ms);
const group_output *group_tick(group_coord *coord, int64_t now_ms);

enum kafka_error group_heartbeat(group_coord *coord, const char *group_id, const char *member_id,
                                 const char *instance_id, int32_t generation, int64_t now_ms);

/* LeaveGroup (v3+: a batch; v0-2: one member by member id). */
typedef struct group_leave_member {
    const char *member_id;   /* "" with an instance id: leave by instance id */
    const char *instance_id;
    enum kafka_error error;  /* out */
} group_leave_member;
/* Returns the top-level error; fills each member's error. Answers to the
 * members' pending joins/syncs, and completed joins, are in *out. */
enum kafka_error group_leave(group_coord *coord, const char *group_id, group_leave_member *members,
                             int member_count, int64_t now_ms, const group_output **out);

/* Kafka's validateOffsetCommit: generation -1 with "" member id for a
 * simple consumer when the group is Empty or does not exist; otherwise
 * UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID / ILLEGAL_GENERATION /
 * REBALANCE_IN_PROGRESS (CompletingRebalance), COORDINATOR_NOT_AVAILABLE
 * (Dead). *group_exists says whether the group is known. */
enum kafka_error group_validate_offset_commit(const group_coord *coord, const char *group_id,
                                              const char *member_id, const char *instance_id,
                                              int32_t generation, bool *group_exists);

/* DescribeGroups / ListGroups. */
typedef struct group_summary {
    const char *group_id;
    /* A consumer group shows GROUP_EMPTY when Empty, GROUP_STABLE otherwise
     * (so that "state == GROUP_EMPTY" means the same for both types); its
     * real state is in state_name ("Assigning", ...). */
    enum group_state state;
    enum group_type type;
    const char *state_name;    /* Kafka's name of the group's state, either type */
    const char *protocol_type; /* "" when none */
    const char *protocol_name; /* "" unless CompletingRebalance or Stable */
    int32_t generation;        /* consumer group: the group epoch */
    int member_count;
    const char *leader_id;     /* consumer group: "" */
} group_summary;

typedef struct group_member_view {
    const char *member_id;
    const char *instance_id; /* NULL for a dynamic member */
    const char *client_id;
    const char *client_host;
    const uint8_t *metadata; /* of the group's protocol (none before one is chosen) */
    size_t metadata_len;
    const uint8_t *assignment;
    size_t assignment_len;
} group_member_view;

/* GROUP_ID_NOT_FOUND when there is no such group (DescribeGroups answers
 * such a group as Dead with no members) or it is a consumer group (Kafka's
 * describeGroups reads classic groups only: DescribeGroups v0-5 answers it
 * Dead, v6 GROUP_ID_NOT_FOUND "Group %s is not a classic group."; see
 * group_type_of()). group_at() lists both types. */
enum kafka_error group_describe(const group_coord *coord, const char *group_id, group_summary *out);
/* The index-th member (0 <= index < member_count), false past the end. */
bool group_member_at(const group_coord *coord, const char *group_id, int index,
                     group_member_view *out);
/* The same, as a leader's JoinGroup answer lists them (metadata of the
 * chosen protocol), for the group named in the answer. */
#define group_join_member_at group_member_at
int group_count(const group_coord *coord);
/* Whether group_id is a group (of either type), and its type. */
bool group_type_of(const group_coord *coord, const char *group_id, enum group_type *type);
/* The index-th group (0 <= index < group_count), false past the end. */
bool group_at(const group_coord *coord, int index, group_summary *out);

/* Whether the offsets of group_id may expire (Kafka's
 * offsetExpirationCondition): the group is unknown (a simple consumer's),
 * Empty with no pending member id (KIP-211), or Stable with protocol type
 * "consumer" and its members' subscriptions known (KIP-496: then only the
 * offsets of topics no member subscribes to, group_subscribes_to). Their
 * retention counts from *empty_since_ms, when an Empty group with a
 * protocol type became Empty (Kafka's currentStateTimestamp), else
 * (INT64_MIN) from each offset's commit timestamp. */
bool group_offsets_may_expire(const group_coord *coord, const char *group_id,
                              int64_t *empty_since_ms);
/* Whether a member of group_id subscribes to topic (Kafka's
 * isSubscribedToTopic; OffsetDelete answers GROUP_SUBSCRIBED_TO_TOPIC).
 * Classic groups: false for an unknown or Empty group or one whose
 * protocol type is not "consumer"; else whether a member's
 * ConsumerProtocolSubscription (of the chosen protocol) lists topic, and
 * true when one cannot be read (src/group/group_subscription.c). KIP-848
 * consumer groups: their members' subscribed topic names (the cgroup
 * module's to answer). */
bool group_subscribes_to(const group_coord *coord, const char *group_id, const char *topic);
/* One member's ConsumerProtocolSubscription metadata: 1 its topics
 * include topic, 0 they do not, -1 it does not parse (bounded by len). */
int group_subscription_lists(const uint8_t *metadata, size_t len, const char *topic);
/* Bytes of member metadata and assignments held (all groups, one group). */
uint64_t group_bytes(const group_coord *coord);
uint64_t group_bytes_of(const group_coord *coord, const char *group_id);

/* DeleteGroups: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP or NONE (removed; with
 * persistence its tombstone is taken by the next group_coord_take_changes). */
enum kafka_error group_delete(group_coord *coord, const char *group_id);

/* ---- membership through the log (issue 24; kq/group_store.h,
 * src/group/group_persist.c). With config.persist_bytes_max > 0 the
 * coordinator marks what the group store must learn: a rebalance begun
 * (PreparingRebalance), completed (CompletingRebalance, or Empty), the
 * leader's assignments (Stable), a static member replaced, a member
 * removed, a group deleted or forgotten; never a heartbeat. Each change
 * bumps a sequence number. */
uint64_t group_coord_change_seq(const group_coord *coord);
/* The seq of group_id's latest change (0: none since the coordinator was
 * made, or no such group). An answer revealing that change waits until a
 * take covering the seq is committed. */
uint64_t group_coord_group_seq(const group_coord *coord, const char *group_id);
/* Adds the records of what changed to b (tombstones of groups gone, then
 * whole groups while b holds less than KQ_GROUP_STORE_BATCH_BYTES_TARGET):
 * true when b holds records. *covered: every change up to this seq is in
 * b or an earlier take; *more: changes are left for another take. Those
 * taken count as written (a failed append must drop the coordinator). */
bool group_coord_take_changes(group_coord *coord, group_store_batch *b, uint64_t *covered,
                              bool *more);
/* Loads every group of the store (a new coordinator, once the store holds
 * only committed records): classic groups in their state with their
 * generation, protocol, leader and members (chosen protocol's metadata,
 * assignment), each member's session deadline now_ms + its session
 * timeout (as Kafka's load); PreparingRebalance waits for the members'
 * rejoins until now_ms + the largest rebalance timeout, CompletingRebalance
 * for their SyncGroup as long. Records it cannot load are skipped (counted
 * in the return: groups loaded). */
int group_coord_restore(group_coord *coord, const group_store *store, int64_t now_ms);

#endif
