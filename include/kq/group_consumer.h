/* KIP-848 consumer groups (group type "consumer") beside the classic ones of
 * kq/group.h, in the same coordinator (group_coord) and the same group-id
 * namespace: Kafka's GroupMetadataManager (consumerGroupHeartbeat,
 * consumerGroupDescribe), ConsumerGroup and CurrentAssignmentBuilder as a
 * pure state machine.
 *
 * As in kq/group.h: no I/O, no clock, no wire format. Every string in a
 * request is NUL-terminated; pointers in a response or a view point into the
 * coordinator and stay valid until the next call that takes a non-const
 * group_coord *. Timers (session timeouts, revocation timeouts) run in
 * group_tick(), whose output's wake_at_ms covers consumer groups too.
 *
 * The classic entry points of kq/group.h see consumer groups: a JoinGroup,
 * SyncGroup, Heartbeat or LeaveGroup naming a consumer group is served by it
 * (KIP-848 online migration, group.consumer.migration.policy) or answered
 * with Kafka's error; group_at()/group_describe() list it (group_summary's
 * type and state_name); group_delete() and group_offsets_may_expire() apply
 * Kafka's rules to it; group_validate_offset_commit() checks member epochs.
 */
#ifndef KQ_GROUP_CONSUMER_H
#define KQ_GROUP_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/group.h"

/* Member epochs a heartbeat may carry besides the current one (KIP-848). */
#define GROUP_CONSUMER_JOIN_EPOCH 0
#define GROUP_CONSUMER_LEAVE_EPOCH (-1)
#define GROUP_CONSUMER_STATIC_LEAVE_EPOCH (-2)

/* ConsumerGroup.ConsumerGroupState: Kafka's names via the function below
 * ("Empty", "Assigning", "Reconciling", "Stable", "Dead"). */
enum group_consumer_state {
    GROUP_CONSUMER_EMPTY = 0,
    GROUP_CONSUMER_ASSIGNING,
    GROUP_CONSUMER_RECONCILING,
    GROUP_CONSUMER_STABLE,
    GROUP_CONSUMER_DEAD,
};
const char *group_consumer_state_name(enum group_consumer_state state);

/* A member's reconciliation state (Kafka's MemberState): "stable",
 * "unrevoked_partitions", "unreleased_partitions", "unknown". */
enum group_member_state {
    GROUP_MEMBER_STABLE = 0,
    GROUP_MEMBER_UNREVOKED_PARTITIONS,
    GROUP_MEMBER_UNRELEASED_PARTITIONS,
    GROUP_MEMBER_UNKNOWN,
};
const char *group_member_state_name(enum group_member_state state);

/* ---- topic metadata (the caller's: the coordinator reads no metadata) */
typedef struct group_topic {
    const char *name;     /* < KQ_TOPIC_NAME_BYTES_MAX bytes */
    uint8_t id[16];       /* the topic id (Uuid) */
    int32_t partition_count;
} group_topic;

/* Replaces the topics the assignors see (copied; at most
 * KQ_GROUP_CONSUMER_TOPICS_MAX topics, KQ_GROUP_CONSUMER_PARTITIONS_MAX
 * partitions in all: false and nothing changed past them). A consumer group
 * whose subscribed topics changed (a topic created, deleted or grown) bumps
 * its group epoch at its next heartbeat, as Kafka's subscription metadata
 * refresh. Call it once after group_coord_create() and whenever the
 * metadata changes. */
bool group_consumer_set_topics(group_coord *coord, const group_topic *topics, int topic_count);

/* ---- ConsumerGroupHeartbeat (API 68) */
/* Partitions of one topic, by topic id. In a request topic_name is ignored;
 * in a response or a view it names the topic ("" when the id is unknown).
 * Partitions are sorted ascending in responses and views. */
typedef struct group_topic_partitions {
    uint8_t topic_id[16];
    const char *topic_name;
    const int32_t *partitions;
    int partition_count;
} group_topic_partitions;

typedef struct group_consumer_heartbeat_request {
    int16_t version;          /* ConsumerGroupHeartbeat version: 0 or 1 */
    const char *group_id;
    /* v1: the client's UUID, never "". v0: "" with epoch 0 asks the
     * coordinator to make one (answered in the response's member_id). */
    const char *member_id;
    int32_t member_epoch;     /* 0 join, -1 leave, -2 static leave, else current */
    const char *instance_id;  /* NULL: none / unchanged */
    const char *rack_id;      /* NULL: unchanged */
    int32_t rebalance_timeout_ms;  /* -1: unchanged */
    /* Subscribed topic names: subscribed_topic_count -1 means null
     * (unchanged); otherwise that many names (0 is an empty list). */
    const char *const *subscribed_topic_names;
    int subscribed_topic_count;
    /* v1: NULL unchanged. Answered INVALID_REQUEST ("SubscribedTopicRegex is
     * not supported yet.", as group-coordinator/ at the mirrored commit). */
    const char *subscribed_topic_regex;
    const char *server_assignor;   /* NULL: unchanged / group default */
    /* Owned partitions: owned_count -1 means null (unchanged). */
    const group_topic_partitions *owned;
    int owned_count;
    const char *client_id;    /* from the request header */
    const char *client_host;  /* the connection's address, as group.h */
} group_consumer_heartbeat_request;

typedef struct group_consumer_heartbeat_response {
    enum kafka_error error;
    const char *error_message;  /* NULL when none */
    const char *member_id;      /* NULL when none (an error before a member) */
    int32_t member_epoch;
    int32_t heartbeat_interval_ms;
    /* has_assignment false: null (unchanged); true: the member's whole
     * current assignment, assignment_count topics (0 = none assigned). */
    bool has_assignment;
    const group_topic_partitions *assignment;
    int assignment_count;
    /* Whether this call changed persistent group state (kq/group_consumer.h
     * state the persist hooks write): false for a heartbeat that changed
     * nothing. */
    bool changed;
    /* A limit refused it: its name (static) for the handler's log line. */
    const char *limit;
    /* Answers this call gave to classic members' pending JoinGroup or
     * SyncGroup requests (KIP-848 online migration), and when to call
     * group_tick() next (wake_at_ms), as kq/group.h's outputs. Never NULL. */
    const group_output *output;
} group_consumer_heartbeat_response;

/* Serves one ConsumerGroupHeartbeat: Kafka's checks
 * (throwIfConsumerGroupHeartbeatRequestIsInvalid: INVALID_REQUEST,
 * UNSUPPORTED_ASSIGNOR; GROUP_ID_NOT_FOUND for a classic group that cannot be
 * upgraded; GROUP_MAX_SIZE_REACHED; UNKNOWN_MEMBER_ID; FENCED_MEMBER_EPOCH;
 * UNRELEASED_INSTANCE_ID; FENCED_INSTANCE_ID), then the member update, the
 * group epoch bump, the target assignment and the member's reconciliation.
 * *out is filled in every case (error NONE on success). */
void group_consumer_heartbeat(group_coord *coord, const group_consumer_heartbeat_request *req,
                              int64_t now_ms, group_consumer_heartbeat_response *out);

/* ---- ConsumerGroupDescribe (API 69) */
typedef struct group_consumer_summary {
    const char *group_id;
    enum group_consumer_state state;
    int32_t group_epoch;
    int32_t assignment_epoch;
    const char *assignor_name; /* the group's assignor ("uniform", "range") */
    int member_count;
} group_consumer_summary;

typedef struct group_consumer_member_view {
    const char *member_id;
    const char *instance_id;   /* NULL for a dynamic member */
    const char *rack_id;       /* NULL when none */
    int32_t member_epoch;
    const char *client_id;
    const char *client_host;
    const char *const *subscribed_topic_names;
    int subscribed_topic_count;
    const char *subscribed_topic_regex; /* NULL when none */
    const group_topic_partitions *assignment;
    int assignment_count;
    const group_topic_partitions *target_assignment;
    int target_assignment_count;
    int8_t member_type;        /* ConsumerGroupDescribe v1: 0 classic, 1 consumer */
    enum group_member_state state;
} group_consumer_member_view;

/* GROUP_ID_NOT_FOUND when there is no such group or it is a classic group
 * (*message then says which: the static "Group not found." / "Group is not
 * a consumer group."; Kafka's messages name the group, "Group %s not
 * found." / "Group %s is not a consumer group."). */
enum kafka_error group_consumer_describe(const group_coord *coord, const char *group_id,
                                         group_consumer_summary *out, const char **message);
/* The index-th member (0 <= index < member_count), false past the end. */
bool group_consumer_member_at(const group_coord *coord, const char *group_id, int index,
                              group_consumer_member_view *out);

/* ---- OffsetCommit / TxnOffsetCommit / OffsetFetch checks for both types */
typedef struct group_commit_check {
    const char *group_id;
    const char *member_id;     /* "" none */
    const char *instance_id;   /* NULL/"" none */
    int32_t generation;        /* the generation id (consumer group: member epoch) */
    int16_t api_version;       /* OffsetCommit or TxnOffsetCommit version */
    bool transactional;        /* TxnOffsetCommit */
} group_commit_check;

/* Classic group: as group_validate_offset_commit(). Consumer group (Kafka's
 * ConsumerGroup.validateOffsetCommit): generation < 0 is accepted (an admin
 * commit) only when the group is Empty; an unknown member id
 * UNKNOWN_MEMBER_ID; a consumer-protocol member committing with OffsetCommit
 * below v9 UNSUPPORTED_VERSION; a generation other than the member epoch
 * STALE_MEMBER_EPOCH (ILLEGAL_GENERATION for a classic member of the group
 * and for TxnOffsetCommit). No group: NONE with *group_exists false when
 * generation < 0 with "" member id; otherwise GROUP_ID_NOT_FOUND at
 * OffsetCommit v9+, ILLEGAL_GENERATION before and for TxnOffsetCommit.
 * group_validate_offset_commit() applies the consumer group rules as v9. */
enum kafka_error group_validate_commit(const group_coord *coord, const group_commit_check *check,
                                       bool *group_exists);

/* OffsetFetch v9+: consumer group as Kafka's ConsumerGroup.validateOffsetFetch
 * (member_id NULL, the request's null, with member_epoch < 0: NONE; an
 * unknown member UNKNOWN_MEMBER_ID; another epoch STALE_MEMBER_EPOCH, or
 * ILLEGAL_GENERATION for a classic member); classic or no group: NONE. */
enum kafka_error group_validate_offset_fetch(const group_coord *coord, const char *group_id,
                                             const char *member_id, int32_t member_epoch);

/* Whether group_id is a consumer group a member of which subscribes to
 * topic (Kafka's ModernGroup.isSubscribedToTopic: OffsetDelete answers
 * GROUP_SUBSCRIBED_TO_TOPIC; KIP-496 expiry keeps such offsets). False for
 * classic or unknown groups. */
bool group_consumer_subscribes_to(const group_coord *coord, const char *group_id,
                                  const char *topic);

/* ---- simulator check */
/* No partition is in two members' (assigned u pending-revocation) sets of
 * one consumer group. false with a reason in why (NUL-terminated) when one
 * is. */
bool group_consumer_check_exclusive(const group_coord *coord, char *why, size_t why_len);

#endif
