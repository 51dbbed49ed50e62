/* The coordinator's groups and members, shared by the files of src/group. */
#ifndef KQ_GROUP_INTERNAL_H
#define KQ_GROUP_INTERNAL_H

#include "kq/group.h"

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

#endif
