/* The coordinator's groups and members, shared by the files of src/group. */
#ifndef KQ_GROUP_INTERNAL_H
#define KQ_GROUP_INTERNAL_H

#include "kq/group.h"
#include "kq/group_store.h"

typedef struct gmember {
    char id[KQ_GROUP_NAME_BYTES_MAX];
    char instance_id[KQ_GROUP_NAME_BYTES_MAX]; /* "" for dynamic */
    char client_id[KQ_GROUP_NAME_BYTES_MAX];
    char client_host[KQ_GROUP_NAME_BYTES_MAX];
    char protocol_names[KQ_GROUP_PROTOCOLS_MAX][KQ_GROUP_NAME_BYTES_MAX];
    uint8_t *metadata[KQ_GROUP_PROTOCOLS_MAX];
    size_t metadata_len[KQ_GROUP_PROTOCOLS_MAX];
    int protocol_count;
    uint64_t bytes; /* metadata of every protocol + assignment */
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms;
    uint8_t *assignment;
    size_t assignment_len;
    bool awaiting_join;
    uint64_t join_token;
    bool awaiting_sync;
    uint64_t sync_token;
    int64_t heartbeat_deadline_ms;
    bool pending_sync; /* answered a join of this generation, no SyncGroup yet */
    struct gmember *next_dead; /* in the coordinator's graveyard */
    /* Persistence (issue 24, group_persist.c): its record is in the log
     * (as of the last take), costing written bytes; dirty: write it at the
     * next take; charge: what it counts in persist_bytes. */
    bool persisted;
    bool persist_dirty;
    uint64_t persist_written;
    uint64_t persist_charge;
} gmember;

typedef struct gpending {
    char id[KQ_GROUP_NAME_BYTES_MAX];
    char client_host[KQ_GROUP_NAME_BYTES_MAX]; /* counted in the owners */
    int64_t deadline_ms;
} gpending;

typedef struct ggroup {
    char id[KQ_GROUP_NAME_BYTES_MAX];
    enum group_state state;
    char protocol_type[KQ_GROUP_NAME_BYTES_MAX];
    char protocol_name[KQ_GROUP_NAME_BYTES_MAX];
    char leader_id[KQ_GROUP_NAME_BYTES_MAX];
    int32_t generation;
    gmember **members; /* in join order */
    int member_count;
    gpending *pending; /* ids handed out with MEMBER_ID_REQUIRED */
    int slots_cap; /* members and pending both hold this many (gc_group_room) */
    int pending_count;
    int64_t join_deadline_ms;      /* PreparingRebalance */
    bool initial_delay;            /* the join waits out group.initial.rebalance.delay.ms */
    int32_t initial_remaining_ms;  /* of the rebalance timeout after the delay */
    bool joined_during_delay;
    int64_t sync_deadline_ms; /* members still pending_sync are removed then */
    uint64_t bytes;           /* of its members */
    int64_t empty_since_ms;   /* when it last became Empty */
    /* Persistence (issue 24, group_persist.c): the group record is in the
     * log; dirty: take it (and its dirty members, its gone members'
     * tombstones) at the next take; seq: of its latest change. */
    bool persisted;
    bool persist_dirty;
    bool persisted_consumer; /* its records in the store are of the consumer type */
    uint64_t persist_seq;
    uint64_t persist_written;
    uint64_t persist_charge;
    struct gp_gone *gone; /* members whose records need a tombstone */
    int gone_count;
    int gone_cap;
    enum group_type type;
    struct cgroup *cg;        /* GROUP_TYPE_CONSUMER: its state (consumer_internal.h) */
} ggroup;

/* The coordinator's topic table (group_consumer_set_topics). */
typedef struct ctopic {
    char name[KQ_TOPIC_NAME_BYTES_MAX];
    uint8_t id[16];
    int32_t partitions;
} ctopic;
typedef struct ctopics {
    ctopic *v;
    int n;
    uint64_t gen; /* bumped by every change */
} ctopics;

/* Members + pending ids per client host (group_owners.c). */
typedef struct gowner {
    char *host;
    int count;
} gowner;
typedef struct gowners {
    gowner *slots; /* open addressing, host NULL = empty; cap a power of two */
    size_t cap;
    size_t count;
} gowners;

struct group_coord {
    group_config config;
    ggroup *groups[KQ_GROUPS_MAX];
    int group_count;
    uint64_t bytes; /* of every group */
    gowners owners;
    gmember *graveyard; /* removed members, freed at the next call */
    uint64_t rng;
    group_output out;
    int64_t now_ms;
    /* Persistence (issue 24, group_persist.c): the latest change's seq;
     * bytes this coordinator may have in the group store (admission
     * against config.persist_bytes_max); groups gone whose tombstones the
     * next take writes. */
    uint64_t persist_seq;
    uint64_t persist_bytes;
    struct gp_gone *deleted;
    int deleted_count;
    int deleted_cap;
    ctopics topics;
    char message[512]; /* a consumer group answer's error message */
    char cg_member_id[KQ_GROUP_NAME_BYTES_MAX]; /* a consumer group answer's member id */
};

/* group_coord.c */
ggroup *gc_find(const group_coord *c, const char *group_id);
ggroup *gc_create_group(group_coord *c, const char *group_id);
/* Room in g's members and pending arrays for one more of either (they grow
 * on demand up to config.max_size: a group costs its members, not
 * group.max.size of them); false when out of memory. */
bool gc_group_room(group_coord *c, ggroup *g);
void gc_free_group(group_coord *c, ggroup *g);
gmember *gc_member(const ggroup *g, const char *member_id);
gmember *gc_static_member(const ggroup *g, const char *instance_id);
int gc_pending_index(const ggroup *g, const char *member_id);
void gc_remove_pending(group_coord *c, ggroup *g, int index);
void gc_new_member_id(group_coord *c, const char *client_id, char *out);
void gc_begin(group_coord *c, int64_t now_ms);
const group_output *gc_end(group_coord *c);
group_answer *gc_answer(group_coord *c, enum group_answer_kind kind, uint64_t token,
                        enum kafka_error error);
void gc_remove_member(group_coord *c, ggroup *g, gmember *m);
/* Removes g from c's table and frees it. */
void gc_drop_group(group_coord *c, ggroup *g);
/* Members of g, of either type. */
int gc_member_count(const ggroup *g);
bool gc_str_ok(const char *s);
void gc_copy(char *dst, const char *src);
bool gc_empty(const char *s);

/* group_owners.c */
int go_owner_count(const gowners *o, const char *host);
/* delta +1/-1; false when memory runs out (for +1). */
bool go_owner_add(gowners *o, const char *host, int delta);
void go_owners_free(gowners *o);
/* Whether host may hold one more member or pending id. */
bool gc_owner_room(const group_coord *c, const char *host);

/* group_member.c */
/* Replaces m's protocols with the request's, if the byte budgets allow
 * (m's bytes counted in g and c): GROUP_MAX_SIZE_REACHED past the group's,
 * COORDINATOR_NOT_AVAILABLE past the total, *limit naming it. */
enum kafka_error gm_set_protocols(group_coord *c, ggroup *g, gmember *m,
                                  const group_join_request *req, const char **limit);
/* Accounts a change of m's bytes by delta in g and c. */
void gm_account(group_coord *c, ggroup *g, gmember *m, int64_t delta);
bool gm_same_protocols(const gmember *m, const group_join_request *req);
int gm_protocol_index(const gmember *m, const char *name);
void gm_free(gmember *m);

/* group_rebalance.c */
void gr_prepare(group_coord *c, ggroup *g);
/* Kafka's selectProtocol into g->protocol_name (g has members). */
void gr_select_protocol(ggroup *g);
void gr_try_complete_join(group_coord *c, ggroup *g);
void gr_complete_join(group_coord *c, ggroup *g);
void gr_join_answer(group_coord *c, const ggroup *g, const gmember *m, uint64_t token);
bool gr_supports(const ggroup *g, const group_join_request *req, const gmember *skip);
void gr_tick_group(group_coord *c, ggroup *g);

/* group_persist.c (issue 24): what the group store must learn. All do
 * nothing unless config.persist_bytes_max > 0. */
typedef struct gp_gone {
    char id[KQ_GROUP_NAME_BYTES_MAX];
    uint64_t cost; /* its records' bytes in the store until the tombstone */
} gp_gone;
bool gp_enabled(const group_coord *c);
/* g's record changed (state, generation, protocol, leader). */
void gc_mark_dirty(group_coord *c, ggroup *g);
/* Every member's record too (a rebalance completed, assignments set). */
void gc_mark_members(group_coord *c, ggroup *g);
/* Bumps the seq: something to take (the consumer module's changes). */
void gc_mark_changed(group_coord *c);
/* m leaves g (before it is freed): its tombstone at the next take. */
void gp_member_gone(group_coord *c, ggroup *g, gmember *m);
/* m's id changed from old_id (a static member replaced). */
void gp_member_renamed(group_coord *c, ggroup *g, gmember *m, const char *old_id);
/* g leaves the coordinator (deleted or forgotten; before it is freed). */
void gp_group_gone(group_coord *c, ggroup *g);
/* A consumer group that goes away (its tombstone at the next take). */
void gc_mark_deleted(group_coord *c, const char *group_id);
/* m's fields changed: recharge it (persist_bytes). */
void gp_recharge(group_coord *c, ggroup *g, gmember *m);
/* Whether m's charge may become its cost with metadata_len bytes of
 * metadata and assignment_len of assignment (NULL m: a new member of g
 * with req's strings). */
bool gp_admits(const group_coord *c, const ggroup *g, const gmember *m, const char *member_id,
               const group_join_request *req, size_t metadata_len, size_t assignment_len);
/* m's charge with these lengths (its written record's cost at least). */
uint64_t gp_member_estimate(const ggroup *g, const gmember *m, size_t metadata_len,
                            size_t assignment_len);
/* Whether a new group's record fits the budget; its charge (made by
 * gc_create_group). */
bool gp_group_room(const group_coord *c, const char *group_id);
void gp_group_charge(group_coord *c, ggroup *g);
/* A record of g in the store that the coordinator does not hold (restore):
 * its tombstone at the next take. */
void gp_record_gone(group_coord *c, ggroup *g, const char *member_id, uint64_t cost);
void gp_group_free(group_coord *c, ggroup *g);
void gp_coord_free(group_coord *c);

/* group_persist_consumer.c: the consumer module's part (issue 24; a stub
 * until KIP-848 groups are persisted). */
int gc_take_consumer_changes(group_coord *c, group_store_batch *b);
/* Marks (gc_mark_dirty) every consumer group whose module marks say it
 * changed; gc_end calls it, so every call's changes get a seq. */
void gc_consumer_note_changes(group_coord *c);
bool gc_restore_consumer_group(group_coord *c, const group_store *s, int gi, int64_t now_ms);

#endif
