/* The coordinator's bookkeeping: groups, member lookup and removal, member
 * ids, the output of one call and its wake-up time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

const char *group_type_name(enum group_type type)
{
    return type == GROUP_TYPE_CONSUMER ? "consumer" : "classic";
}

const char *group_assignor_name(enum group_assignor a)
{
    return a == GROUP_ASSIGNOR_RANGE ? "range" : "uniform";
}

const char *group_state_name(enum group_state state)
{
    switch (state) {
    case GROUP_EMPTY: return "Empty";
    case GROUP_PREPARING_REBALANCE: return "PreparingRebalance";
    case GROUP_COMPLETING_REBALANCE: return "CompletingRebalance";
    case GROUP_STABLE: return "Stable";
    case GROUP_DEAD: return "Dead";
    }
    return "Unknown";
}

group_config group_config_default(void)
{
    group_config c = {
        .max_size = KQ_GROUP_MAX_SIZE_DEFAULT,
        .min_session_timeout_ms = KQ_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT,
        .max_session_timeout_ms = KQ_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT,
        .initial_rebalance_delay_ms = KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT,
        .random_seed = 1,
        .members_per_connection_max = KQ_GROUP_MEMBERS_PER_CONNECTION_MAX,
        .offsets_retention_ms = (int64_t)KQ_OFFSETS_RETENTION_MINUTES_DEFAULT * 60000,
        .offsets_retention_check_interval_ms = KQ_OFFSETS_RETENTION_CHECK_INTERVAL_MS_DEFAULT,
        .consumer_session_timeout_ms = KQ_GROUP_CONSUMER_SESSION_TIMEOUT_MS_DEFAULT,
        .consumer_min_session_timeout_ms = KQ_GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS_DEFAULT,
        .consumer_max_session_timeout_ms = KQ_GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS_DEFAULT,
        .consumer_heartbeat_interval_ms = KQ_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS_DEFAULT,
        .consumer_min_heartbeat_interval_ms = KQ_GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT,
        .consumer_max_heartbeat_interval_ms = KQ_GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT,
        .consumer_max_size = KQ_GROUP_CONSUMER_MAX_SIZE_DEFAULT,
        .consumer_assignors = {GROUP_ASSIGNOR_UNIFORM, GROUP_ASSIGNOR_RANGE},
        .consumer_assignor_count = 2,
        .consumer_migration_policy = GROUP_MIGRATION_BIDIRECTIONAL,
    };
    return c;
}

group_coord *group_coord_create(const group_config *config)
{
    KQ_ASSERT(config->max_size > 0 && config->max_size <= KQ_GROUP_MAX_SIZE_DEFAULT);
    KQ_ASSERT(config->min_session_timeout_ms <= config->max_session_timeout_ms);
    KQ_ASSERT(config->initial_rebalance_delay_ms >= 0);
    KQ_ASSERT(config->consumer_max_size > 0 &&
              config->consumer_max_size <= KQ_GROUP_CONSUMER_MAX_SIZE_DEFAULT);
    KQ_ASSERT(config->consumer_heartbeat_interval_ms > 0 &&
              config->consumer_heartbeat_interval_ms < config->consumer_session_timeout_ms);
    KQ_ASSERT(config->consumer_assignor_count >= 1 &&
              config->consumer_assignor_count <= GROUP_ASSIGNORS_MAX);
    group_coord *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->config = *config;
    c->rng = config->random_seed ? config->random_seed : 1;
    c->out.answers = calloc(KQ_GROUP_ANSWERS_MAX, sizeof(group_answer));
    if (!c->out.answers) {
        free(c);
        return NULL;
    }
    return c;
}

static void free_graveyard(group_coord *c)
{
    while (c->graveyard) {
        gmember *m = c->graveyard;
        c->graveyard = m->next_dead;
        gm_free(m);
    }
}

/* Frees g (already out of c's list) and what its members held. */
void gc_free_group(group_coord *c, ggroup *g)
{
    cg_free(c, g);
    for (int i = 0; i < g->member_count; i++) {
        gmember *m = g->members[i];
        gm_account(c, g, m, -(int64_t)m->bytes);
        go_owner_add(&c->owners, m->client_host, -1);
        gm_free(m);
    }
    for (int i = 0; i < g->pending_count; i++)
        go_owner_add(&c->owners, g->pending[i].client_host, -1);
    free(g->members);
    free(g->pending);
    gp_group_free(c, g);
    free(g);
}

void group_coord_destroy(group_coord *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->group_count; i++)
        gc_free_group(c, c->groups[i]);
    KQ_ASSERT(c->bytes == 0 && c->owners.count == 0);
    go_owners_free(&c->owners);
    gp_coord_free(c);
    free(c->topics.v);
    free_graveyard(c);
    free(c->out.answers);
    free(c);
}

bool gc_empty(const char *s) { return !s || !*s; }

bool gc_str_ok(const char *s) { return !s || strlen(s) < KQ_GROUP_NAME_BYTES_MAX; }

void gc_copy(char *dst, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    KQ_ASSERT(n < KQ_GROUP_NAME_BYTES_MAX);
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

ggroup *gc_find(const group_coord *c, const char *group_id)
{
    for (int i = 0; i < c->group_count; i++)
        if (strcmp(c->groups[i]->id, group_id) == 0)
            return c->groups[i];
    return NULL;
}

/* A full table forgets the Empty group (no members, no pending ids) that
 * has been Empty longest: its committed offsets stay in the offsets table. */
static bool evict_empty(group_coord *c)
{
    int oldest = -1;
    for (int i = 0; i < c->group_count; i++) {
        const ggroup *g = c->groups[i];
        if (g->state == GROUP_EMPTY && gc_member_count(g) == 0 && g->pending_count == 0 &&
            (oldest < 0 || g->empty_since_ms < c->groups[oldest]->empty_since_ms))
            oldest = i;
    }
    if (oldest < 0)
        return false;
    ggroup *g = c->groups[oldest];
    c->groups[oldest] = c->groups[--c->group_count];
    gp_group_gone(c, g); /* its tombstone (issue 24) */
    gc_free_group(c, g);
    return true;
}

int gc_member_count(const ggroup *g)
{
    return g->type == GROUP_TYPE_CONSUMER ? g->cg->member_count : g->member_count;
}

void gc_drop_group(group_coord *c, ggroup *g)
{
    for (int i = 0; i < c->group_count; i++)
        if (c->groups[i] == g) {
            c->groups[i] = c->groups[--c->group_count];
            gc_free_group(c, g);
            return;
        }
    KQ_ASSERT(!"a group in the table");
}

ggroup *gc_create_group(group_coord *c, const char *group_id)
{
    if (c->group_count >= KQ_GROUPS_MAX && !evict_empty(c))
        return NULL;
    ggroup *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    gc_copy(g->id, group_id);
    g->state = GROUP_EMPTY;
    g->empty_since_ms = c->now_ms;
    c->groups[c->group_count++] = g;
    gp_group_charge(c, g);
    return g;
}

bool gc_group_room(group_coord *c, ggroup *g)
{
    int need = g->member_count + g->pending_count + 1;
    KQ_ASSERT(need <= c->config.max_size);
    if (need <= g->slots_cap)
        return true;
    int cap = g->slots_cap ? g->slots_cap * 2 : 4;
    if (cap > c->config.max_size)
        cap = c->config.max_size;
    gmember **m = realloc(g->members, (size_t)cap * sizeof(*m));
    if (!m)
        return false;
    g->members = m;
    gpending *p = realloc(g->pending, (size_t)cap * sizeof(*p));
    if (!p)
        return false;
    g->pending = p;
    g->slots_cap = cap;
    return true;
}

gmember *gc_member(const ggroup *g, const char *member_id)
{
    for (int i = 0; i < g->member_count; i++)
        if (strcmp(g->members[i]->id, member_id) == 0)
            return g->members[i];
    return NULL;
}

gmember *gc_static_member(const ggroup *g, const char *instance_id)
{
    if (gc_empty(instance_id))
        return NULL;
    for (int i = 0; i < g->member_count; i++)
        if (strcmp(g->members[i]->instance_id, instance_id) == 0)
            return g->members[i];
    return NULL;
}

int gc_pending_index(const ggroup *g, const char *member_id)
{
    for (int i = 0; i < g->pending_count; i++)
        if (strcmp(g->pending[i].id, member_id) == 0)
            return i;
    return -1;
}

void gc_remove_pending(group_coord *c, ggroup *g, int index)
{
    KQ_ASSERT(index >= 0 && index < g->pending_count);
    go_owner_add(&c->owners, g->pending[index].client_host, -1);
    g->pending[index] = g->pending[--g->pending_count];
}

/* Kafka: clientId + "-" + a random UUID; ours: 32 hex digits from a PRNG. */
void gc_new_member_id(group_coord *c, const char *client_id, char *out)
{
    char hex[33];
    for (int half = 0; half < 2; half++) {
        c->rng ^= c->rng << 13;
        c->rng ^= c->rng >> 7;
        c->rng ^= c->rng << 17;
        snprintf(hex + 16 * half, 17, "%016llx", (unsigned long long)c->rng);
    }
    size_t n = client_id ? strlen(client_id) : 0;
    size_t room = KQ_GROUP_NAME_BYTES_MAX - 1 - 33;
    if (n > room)
        n = room;
    snprintf(out, KQ_GROUP_NAME_BYTES_MAX, "%.*s-%s", (int)n, client_id ? client_id : "", hex);
}

void gc_begin(group_coord *c, int64_t now_ms)
{
    free_graveyard(c);
    c->now_ms = now_ms;
    c->out.answer_count = 0;
}

group_answer *gc_answer(group_coord *c, enum group_answer_kind kind, uint64_t token,
                        enum kafka_error error)
{
    KQ_ASSERT(c->out.answer_count < KQ_GROUP_ANSWERS_MAX);
    group_answer *a = &c->out.answers[c->out.answer_count++];
    memset(a, 0, sizeof(*a));
    a->token = token;
    a->kind = kind;
    a->error = error;
    a->generation = -1;
    return a;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

const group_output *gc_end(group_coord *c)
{
    gc_consumer_note_changes(c); /* issue 24: KIP-848 groups' changes get a seq */
    int64_t wake = INT64_MAX;
    for (int i = 0; i < c->group_count; i++) {
        const ggroup *g = c->groups[i];
        if (g->state == GROUP_PREPARING_REBALANCE)
            wake = min64(wake, g->join_deadline_ms);
        bool syncing = false;
        for (int j = 0; j < g->member_count; j++)
            syncing |= g->members[j]->pending_sync;
        if (syncing && (g->state == GROUP_COMPLETING_REBALANCE || g->state == GROUP_STABLE))
            wake = min64(wake, g->sync_deadline_ms);
        for (int j = 0; j < g->pending_count; j++)
            wake = min64(wake, g->pending[j].deadline_ms);
        for (int j = 0; j < g->member_count; j++)
            if (!g->members[j]->awaiting_join)
                wake = min64(wake, g->members[j]->heartbeat_deadline_ms);
        wake = min64(wake, cg_wake_at(g));
    }
    c->out.wake_at_ms = wake;
    return &c->out;
}

/* Takes m out of g (answering its pending join or sync UNKNOWN_MEMBER_ID)
 * and moves it to the graveyard; the caller moves the group on. */
void gc_remove_member(group_coord *c, ggroup *g, gmember *m)
{
    if (m->awaiting_join)
        gc_copy(gc_answer(c, GROUP_ANSWER_JOIN, m->join_token, KAFKA_UNKNOWN_MEMBER_ID)->member_id,
                m->id);
    if (m->awaiting_sync)
        gc_answer(c, GROUP_ANSWER_SYNC, m->sync_token, KAFKA_UNKNOWN_MEMBER_ID);
    int at = -1;
    for (int i = 0; i < g->member_count; i++)
        if (g->members[i] == m)
            at = i;
    KQ_ASSERT(at >= 0);
    gp_member_gone(c, g, m); /* its tombstone (issue 24) */
    gm_account(c, g, m, -(int64_t)m->bytes);
    go_owner_add(&c->owners, m->client_host, -1);
    memmove(&g->members[at], &g->members[at + 1],
            (size_t)(g->member_count - at - 1) * sizeof(gmember *));
    g->member_count--;
    m->next_dead = c->graveyard;
    c->graveyard = m;
    if (strcmp(g->leader_id, m->id) == 0)
        gc_copy(g->leader_id, g->member_count ? g->members[0]->id : "");
}
