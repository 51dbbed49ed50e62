/* KIP-848 consumer groups' state, shared by the consumer_*.c files of
 * src/group. Plain structs that a persistence layer can serialize: the
 * group epoch, the assignment epoch, the subscription metadata and, per
 * member, its identity, subscription, epochs, reconciliation state,
 * assigned partitions, partitions pending revocation and target
 * assignment. Timers (deadlines) are soft state. */
#ifndef KQ_CONSUMER_INTERNAL_H
#define KQ_CONSUMER_INTERNAL_H

#include "group_internal.h"
#include "kq/buf.h"
#include "kq/group_consumer.h"

/* One partition of one topic. */
typedef struct cpart {
    uint8_t id[16];
    int32_t p;
} cpart;

/* A set of partitions, sorted by (topic id, partition), no duplicates,
 * with its view (group_topic_partitions by topic, rebuilt on change). */
typedef struct cset {
    cpart *v;
    int n;
    int cap;
    group_topic_partitions *view;
    int view_n;
    int32_t *view_parts;
} cset;

/* A classic member of a consumer group (KIP-848 online migration). */
typedef struct cclassic {
    int32_t session_timeout_ms;
    char protocol_names[KQ_GROUP_PROTOCOLS_MAX][KQ_GROUP_NAME_BYTES_MAX];
    uint8_t *metadata[KQ_GROUP_PROTOCOLS_MAX];
    size_t metadata_len[KQ_GROUP_PROTOCOLS_MAX];
    int protocol_count;
    uint8_t *assignment; /* the last SyncGroup answer (ConsumerProtocolAssignment) */
    size_t assignment_len;
    int64_t join_deadline_ms;  /* INT64_MAX: none (Kafka's join timeout) */
    int64_t sync_deadline_ms;  /* INT64_MAX: none (Kafka's sync timeout) */
} cclassic;

typedef struct cmember {
    char id[KQ_GROUP_NAME_BYTES_MAX];
    char instance_id[KQ_GROUP_NAME_BYTES_MAX]; /* "" for dynamic */
    char rack_id[KQ_GROUP_NAME_BYTES_MAX];     /* "" none */
    char client_id[KQ_GROUP_NAME_BYTES_MAX];
    char client_host[KQ_GROUP_NAME_BYTES_MAX];
    int32_t rebalance_timeout_ms;
    char **topics; /* subscribed topic names, sorted, unique */
    int topic_count;
    int assignor; /* enum group_assignor, -1 none */
    int32_t member_epoch;
    int32_t previous_member_epoch;
    enum group_member_state state;
    cset assigned;
    cset revoking; /* partitions pending revocation */
    cset target;   /* the group's target assignment for this member */
    cclassic *classic; /* NULL: a consumer-protocol member */
    /* soft state */
    int64_t session_deadline_ms;
    int64_t rebalance_deadline_ms; /* INT64_MAX: none */
    int32_t rebalance_epoch;       /* fence if still at this epoch then */
    uint64_t bytes;                /* counted in the group and coordinator */
    bool dirty;                    /* persistent fields changed */
    uint64_t persist_charge;       /* its record in persist_bytes (consumer_persist.c) */
} cmember;

/* Subscription metadata: a subscribed topic that exists. */
typedef struct cmeta {
    char name[KQ_TOPIC_NAME_BYTES_MAX];
    uint8_t id[16];
    int32_t partitions;
} cmeta;

/* Which member holds a partition (assigned or pending revocation), and at
 * which epoch (ConsumerGroup.currentPartitionEpoch): open addressing. */
typedef struct cpslot {
    cpart key;
    int32_t epoch;
    int32_t owners; /* 0: empty; > 1 only under KQ_MUTANT_DOUBLE_ASSIGNMENT */
} cpslot;
typedef struct cpmap {
    cpslot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t count;
} cpmap;

typedef struct cgroup {
    int32_t group_epoch;
    int32_t assignment_epoch;
    enum group_consumer_state state;
    cmember **members; /* in join order */
    int member_count;
    int member_cap;
    cmeta *meta; /* sorted by name */
    int meta_count;
    uint64_t topics_gen; /* the coordinator's topics generation meta was made from */
    cpmap owned;
    bool dirty;
    /* Members removed since the last take of changes (their tombstones). */
    char (*gone)[KQ_GROUP_NAME_BYTES_MAX];
    int gone_count;
    int gone_cap;
    bool gone_lost; /* a tombstone could not be noted: rewrite the group */
} cgroup;

/* ---- consumer_set.c: partition sets */
int cp_cmp(const cpart *a, const cpart *b);
bool cs_contains(const cset *s, const uint8_t id[16], int32_t p);
/* false when out of memory (s unchanged). */
bool cs_add(cset *s, const uint8_t id[16], int32_t p);
void cs_remove(cset *s, const uint8_t id[16], int32_t p);
bool cs_copy(cset *dst, const cset *src);
bool cs_equal(const cset *a, const cset *b);
void cs_clear(cset *s);
void cs_free(cset *s);
/* Builds s from request topic-partitions (sorted, duplicates dropped). */
bool cs_from_request(cset *s, const group_topic_partitions *tp, int n);
/* Rebuilds s's view with names from topics (cannot fail: its arrays grow
 * with the set). */
void cs_view(cset *s, const ctopics *topics);
uint64_t cs_bytes(const cset *s);

/* ---- consumer_pmap.c: partition -> owner epoch */
int32_t cpm_epoch(const cpmap *m, const uint8_t id[16], int32_t p); /* -1: free */
/* Room for extra more partitions; false when out of memory. */
bool cpm_reserve(cpmap *m, size_t extra);
/* Adds s's partitions at epoch (room reserved first). A partition already
 * held is a bug unless allow_double (the double-assignment mutant). */
void cpm_add_set(cpmap *m, const cset *s, int32_t epoch, bool allow_double);
void cpm_remove_set(cpmap *m, const cset *s, int32_t epoch);
void cpm_free(cpmap *m);

/* ---- consumer_group.c: groups and members */
cgroup *cg_of(const ggroup *g); /* NULL unless a consumer group */
cgroup *cg_new(void);
void cg_free(group_coord *c, ggroup *g);
cmember *cg_member(const cgroup *cg, const char *member_id);
cmember *cg_static_member(const cgroup *cg, const char *instance_id);
cmember *cm_new(const char *member_id);
void cm_free(cmember *m);
/* m now uses the consumer protocol (Kafka's setClassicMemberMetadata(null)). */
void cm_drop_classic(cmember *m);
/* Adds m (owned by the group from now on) and its partitions; false when
 * out of memory (m still the caller's). */
bool cg_add_member(group_coord *c, ggroup *g, cmember *m);
/* Removes m, releasing its partitions, and frees it. */
void cg_remove_member(group_coord *c, ggroup *g, cmember *m);
/* Re-counts m's bytes in its group and the coordinator. */
void cg_account(group_coord *c, ggroup *g, cmember *m);
uint64_t cm_bytes(const cmember *m);
/* ConsumerGroup.maybeUpdateGroupState. */
void cg_update_state(group_coord *c, ggroup *g);
bool cm_reconciled_to(const cmember *m, int32_t epoch);
/* Replaces m's assigned and revoking sets, state and epochs, keeping the
 * partition map in step. false when out of memory (nothing changed). */
bool cg_set_assignment(group_coord *c, cgroup *cg, cmember *m, const cset *assigned,
                       const cset *revoking, enum group_member_state state, int32_t epoch,
                       int32_t previous_epoch);
/* Kafka's UUID-like member id (22 base64url characters). */
void cg_new_member_id(group_coord *c, char *out);
/* The assignor for a target assignment: most members' choice, else the
 * configured default. */
enum group_assignor cg_preferred_assignor(const group_coord *c, const cgroup *cg);
int32_t cg_session_timeout_ms(const group_coord *c, const cmember *m);

/* ---- consumer_topics.c: topic table and subscription metadata */
const ctopic *ct_by_name(const ctopics *t, const char *name);
const ctopic *ct_by_id(const ctopics *t, const uint8_t id[16]);
/* Recomputes cg's subscription metadata; true when it changed. false in
 * *ok when out of memory. */
bool cg_refresh_meta(group_coord *c, cgroup *cg, bool *ok);
/* The topic ids m subscribes to that exist in cg's metadata, sorted. */
int cg_member_topic_ids(const cgroup *cg, const cmember *m, uint8_t (*ids)[16], int max);
bool cg_views_rebuild(group_coord *c);

/* ---- consumer_target.c / consumer_assign_*.c: target assignment */
/* Input of an assignor: members in order with their subscribed topic ids
 * and previous targets; output: new targets (one cset per member). */
typedef struct cassign_member {
    const cmember *m;
    uint8_t (*ids)[16];
    int id_count;
    const cset *previous;
    cset next;
} cassign_member;
typedef struct cassign {
    cassign_member *members;
    int member_count;
    const cmeta *meta;
    int meta_count;
    bool homogeneous;
} cassign;
bool ca_uniform(cassign *a);
bool ca_range(cassign *a);
int32_t ca_partitions_of(const cassign *a, const uint8_t id[16]); /* -1: unknown */
/* Computes the target assignment at cg's group epoch into every member's
 * target; false when out of memory. */
bool cg_compute_target(group_coord *c, ggroup *g);

/* ---- consumer_reconcile.c: CurrentAssignmentBuilder */
/* Moves m towards its target; FENCED_MEMBER_EPOCH for an UNKNOWN member
 * that still owns partitions. owned NULL: not given. *changed when m
 * changed. */
enum kafka_error cm_reconcile(group_coord *c, ggroup *g, cmember *m, const cset *owned,
                              bool *changed);

/* ---- consumer_leave.c: leaving and fencing */
/* Removes m from g (Kafka's consumerGroupFenceMember) and bumps the group
 * epoch (or downgrades the group, consumer_classic.c). */
void cg_fence(group_coord *c, ggroup *g, cmember *m);

/* ---- consumer_timers.c */
void cg_tick(group_coord *c, ggroup *g);
int64_t cg_wake_at(const ggroup *g);

/* ---- consumer_member.c: a member's fields from a heartbeat */
uint64_t cm_bytes_with(const cmember *m, const group_consumer_heartbeat_request *r);
bool cm_update(cmember *m, const group_consumer_heartbeat_request *r, bool *changed,
               bool *subscription);
cmember *cm_clone(const cmember *old, const char *member_id);

/* ---- consumer_validate.c */
enum kafka_error cv_validate(group_coord *c, const group_consumer_heartbeat_request *r,
                             group_consumer_heartbeat_response *out);

/* ---- consumer_leave.c */
/* A heartbeat with epoch -1 or -2. */
void cl_leave(group_coord *c, const group_consumer_heartbeat_request *r,
              group_consumer_heartbeat_response *out);

/* ---- consumer_classic.c: the KIP-848 online migration */
/* Whether a classic group may become a consumer group on a
 * ConsumerGroupHeartbeat (Empty, or validateOnlineUpgrade). */
bool cc_may_upgrade(const group_coord *c, const ggroup *g);
/* Converts classic g in place (its members become consumer-group members
 * using the classic protocol): GROUP_ID_NOT_FOUND when its embedded
 * protocol is malformed (Kafka's), COORDINATOR_NOT_AVAILABLE when out of
 * memory; g unchanged then. */
enum kafka_error cc_upgrade(group_coord *c, ggroup *g);
/* Whether fencing m leaves only classic members that may take the group
 * back to the classic protocol (validateOnlineDowngradeWithFencedMember). */
bool cc_may_downgrade(const group_coord *c, const ggroup *g, const cmember *m);
/* Whether a classic static member replacing replaced leaves only classic
 * members (validateOnlineDowngradeWithReplacedMemberId). */
bool cc_may_downgrade_replaced(const group_coord *c, const ggroup *g, const cmember *replaced);
/* Converts g to a classic group: without leaving (removed first) and
 * rebalancing; leaving NULL: every member stays, Stable (a static member
 * was replaced). */
void cc_downgrade(group_coord *c, ggroup *g, cmember *leaving);
/* The classic protocol's requests to a consumer group (Kafka's
 * classicGroup*ToConsumerGroup). cc_join returns false when the group was
 * Empty and became a classic group for the caller to serve. */
bool cc_join(group_coord *c, ggroup *g, const group_join_request *req);
void cc_sync(group_coord *c, ggroup *g, const group_sync_request *req);
enum kafka_error cc_heartbeat(group_coord *c, ggroup *g, const char *member_id,
                              const char *instance_id, int32_t generation);
enum kafka_error cc_leave(group_coord *c, ggroup *g, group_leave_member *members, int count);
/* group_validate_offset_commit() on a consumer group (consumer_commit.c). */
enum kafka_error cc_validate_commit_latest(const ggroup *g, const char *member_id,
                                          int32_t generation);
/* consumer_classic_join.c: a classic JoinGroup to a non-empty consumer
 * group, answered in the output. */
void cc_join_member(group_coord *c, ggroup *g, const group_join_request *req);
/* The joined member's timers and answer. */
void cc_joined(group_coord *c, ggroup *g, cmember *m, const group_join_request *req);
/* consumer_protocol.c: a ConsumerProtocolAssignment into s (names the
 * topics do not know dropped); false when malformed. */
bool cc_decode_assignment(const uint8_t *p, size_t n, const ctopics *topics, cset *s);
/* Makes a memberless classic group a consumer group; false when out of
 * memory. */
bool cg_make_consumer(ggroup *g);

/* ---- consumer_codec.c / consumer_restore.c: persisted state */
bool cg_encode_group(const cgroup *cg, kq_writer *w);
bool cg_decode_group(const uint8_t *p, size_t n, int32_t *group_epoch, int32_t *assignment_epoch);
bool cg_encode_member(const cmember *m, kq_writer *w);
cmember *cg_decode_member(const char *member_id, const uint8_t *p, size_t n);
/* Makes group_id a consumer group with these epochs (replacing an Empty
 * group of that id); NULL when that cannot be (a non-empty group of that
 * id, a full table, no memory). */
ggroup *cg_restore_group(group_coord *c, const char *group_id, int32_t group_epoch,
                         int32_t assignment_epoch);
/* Adds a decoded member (taken over, or freed on failure) with a fresh
 * session; false when it clashes with the group (its id, instance id or a
 * partition already held) or memory runs out. */
bool cg_restore_member(group_coord *c, ggroup *g, cmember *m, int64_t now_ms);
/* After the last member: subscription metadata, state, clean marks. */
void cg_restore_done(group_coord *c, ggroup *g);

/* ---- consumer_protocol.c: the consumer embedded protocol */
typedef struct cc_subscription {
    int16_t version;
    char topics[KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX][KQ_TOPIC_NAME_BYTES_MAX];
    int topic_count;
    char rack[KQ_GROUP_NAME_BYTES_MAX]; /* "" none */
    cset owned;
} cc_subscription;
/* false when malformed or over our bounds. */
bool cc_decode_subscription(const uint8_t *p, size_t n, const ctopics *topics,
                            cc_subscription *s);
/* The version of a protocol's metadata (0..3), for the assignment. */
int16_t cc_metadata_version(const uint8_t *p, size_t n);
bool cc_encode_assignment(const cset *s, const ctopics *topics, int16_t version, kq_writer *w);

/* ---- consumer_persist.c: the group store's byte budget (issue 24) */
/* m's charge follows its fields (cg_account calls it). */
void cp_recharge(group_coord *c, ggroup *g, cmember *m);
/* m leaves: its charge goes (its tombstone: cgroup.gone). */
void cp_release(group_coord *c, cmember *m);
/* Whether shape (NULL: a new member) with the request's subscription fits. */
bool cp_admits(const group_coord *c, const char *group_id, const cmember *shape,
               const char *member_id, const group_consumer_heartbeat_request *r);
/* Classic g is about to become a consumer group: its classic charges go. */
void cp_classic_gone(group_coord *c, ggroup *g);

/* ---- consumer_heartbeat.c */
/* One member's update, shared by ConsumerGroupHeartbeat and a classic
 * JoinGroup to a consumer group: the request (a classic join is turned into
 * one), the group, the member found or to create, and where errors go. */
typedef struct ch_ctx {
    group_coord *c;
    const group_consumer_heartbeat_request *r;
    group_consumer_heartbeat_response *out;
    ggroup *g;          /* NULL: to be created */
    char member_id[KQ_GROUP_NAME_BYTES_MAX];
    cmember *m;         /* the existing member, or NULL */
    cmember *replaced;  /* a static member the new one replaces */
    bool assigned_changed;
} ch_ctx;
/* Our byte bounds for the member as the request leaves it. */
bool ch_budget_ok(ch_ctx *h, const cmember *shape);
/* The member as the request leaves it, in the group (new members added,
 * replaced static members swapped); *sub: its subscription changed. */
bool ch_place_member(ch_ctx *h, bool *changed, bool *sub);
/* Bumps the group epoch on a subscription or metadata change. */
bool ch_maybe_bump(ch_ctx *h, bool sub, bool *changed);
/* The target at the group epoch and the member's reconciliation (owned
 * NULL: not reported). */
bool ch_assign_and_reconcile(ch_ctx *h, const cset *owned, bool *changed);
/* Fills the error part of a response. */
void ch_error(group_coord *c, group_consumer_heartbeat_response *out, enum kafka_error e,
              const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
