/* DeleteGroups (issue 24; kafka-consumer-groups.sh --delete). Each distinct
 * group named, in request order, as Kafka's KafkaApis and
 * GroupCoordinatorShard.deleteGroups: GROUP_AUTHORIZATION_FAILED without
 * DELETE on the group; NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS as
 * the other group APIs; NON_EMPTY_GROUP while it has members (or pending
 * member ids); GROUP_ID_NOT_FOUND when neither the coordinator nor the
 * offsets know it (a group known only by its offsets is deletable, as
 * Kafka's "simple" group). Otherwise the coordinator forgets it
 * (group_delete) and every key of its offsets at the log end, pending and
 * transactional ones included (Kafka's deleteAllOffsets), gets a deletion
 * tombstone (KQ_GROUP_OFFSET_DELETED) in one control batch; the answer
 * waits until that batch is committed (group_admin.c). A group whose
 * tombstones no longer fit the batch (KQ_GROUP_COMMIT_PARTITIONS_MAX
 * records) is answered COORDINATOR_NOT_AVAILABLE, untouched: the admin
 * client retries it. */
#include <stdlib.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/log_line.h"
#include "kq/wire_delete_groups.h"

typedef struct delete_keys {
    handler *h;
    group_offset *keys; /* arena, KQ_GROUP_COMMIT_PARTITIONS_MAX */
    int count;          /* in the batch */
    int group_count;    /* of the group being decided */
    bool copy;          /* false: count only */
    bool failed;        /* out of arena memory */
} delete_keys;

static char *arena_copy(handler *h, const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = kq_arena_alloc(&h->arena, n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static int on_key(void *ctx, const group_offset *e)
{
    delete_keys *k = ctx;
    k->group_count++;
    if (!k->copy)
        return 0;
    group_offset *d = &k->keys[k->count++];
    *d = (group_offset){.group_id = arena_copy(k->h, e->group_id),
                        .topic = arena_copy(k->h, e->topic), .partition = e->partition};
    k->failed = k->failed || !d->group_id || !d->topic;
    return 0;
}

/* One group, the coordinator open: its error; its tombstones join k. */
static int16_t delete_one(handler *h, const char *group_id, delete_keys *k)
{
    const group_offsets *o = h->svc.offsets;
    bool storable = o && groups_id_storable(group_id);
    k->copy = false;
    k->group_count = 0;
    if (storable)
        group_offsets_foreach_key_at_end(o, group_id, on_key, k);
    if (k->count + k->group_count > KQ_GROUP_COMMIT_PARTITIONS_MAX)
        return KAFKA_COORDINATOR_NOT_AVAILABLE; /* the next request takes it */
    int16_t error = (int16_t)group_delete(h->groups->coord, group_id);
    if (error == KAFKA_NON_EMPTY_GROUP)
        return error;
    if (error == KAFKA_GROUP_ID_NOT_FOUND && k->group_count == 0)
        return error;
    if (k->group_count > 0) {
        k->copy = true;
        k->group_count = 0;
        group_offsets_foreach_key_at_end(o, group_id, on_key, k);
    }
    return KAFKA_NONE;
}

/* Kafka answers each distinct group once: the first entry of each name,
 * found by a sort (n log n: hostile sizes). */
typedef struct named {
    kq_slice name;
    int index;
} named;

static int cmp_slice(kq_slice x, kq_slice y)
{
    size_t n = (size_t)(x.len < y.len ? x.len : y.len);
    int c = n ? memcmp(x.ptr, y.ptr, n) : 0;
    return c ? c : (x.len > y.len) - (x.len < y.len);
}

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = cmp_slice(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static bool *first_of_each(handler *h, const kq_slice *names, int n)
{
    bool *first = kq_arena_alloc(&h->arena, sizeof(bool) * (size_t)(n ? n : 1));
    named *order = kq_arena_alloc(&h->arena, sizeof(named) * (size_t)(n ? n : 1));
    if (!first || !order)
        return NULL;
    for (int i = 0; i < n; i++)
        order[i] = (named){names[i], i};
    qsort(order, (size_t)n, sizeof(*order), cmp_named);
    for (int i = 0; i < n; i++)
        first[order[i].index] = i == 0 || cmp_slice(order[i].name, order[i - 1].name) != 0;
    return first;
}

/* Fills p's results (names copied), decides each group. */
static void decide(handler *h, handler_request *req, const wire_delete_groups_request *body,
                   const bool *first, admin_pending *p, delete_keys *k)
{
    int16_t gate = groups_gate(h);
    if (gate == KAFKA_NONE && !groups_admin_room(h))
        gate = KAFKA_COORDINATOR_NOT_AVAILABLE; /* before anything is deleted */
    size_t at = 0;
    int out = 0, deleted = 0;
    for (int32_t i = 0; i < body->group_count; i++) {
        if (!first[i])
            continue;
        kq_slice id = body->groups_names[i];
        admin_result *r = &p->results[out++];
        if (id.len > 0)
            memcpy(p->names + at, id.ptr, (size_t)id.len);
        *r = (admin_result){.name = {(const uint8_t *)p->names + at, id.len}};
        at += (size_t)id.len;
        const char *group_id = NULL;
        if (!handler_authorized(h, req->slot, HANDLER_OP_DELETE, "DeleteGroups"))
            r->error = KAFKA_GROUP_AUTHORIZATION_FAILED;
        else if (gate != KAFKA_NONE)
            r->error = gate;
        else if (!groups_cstr(h, id, &group_id) || !group_id)
            r->error = KAFKA_GROUP_ID_NOT_FOUND; /* a NUL inside: no such group */
        else {
            int before = k->count;
            r->error = delete_one(h, group_id, k);
            r->appended = r->error == KAFKA_NONE && k->count > before;
            deleted += r->error == KAFKA_NONE;
        }
    }
    p->count = out;
    if (deleted > 0) { /* their membership tombstones (issue 24) */
        p->hold_seq = groups_persist_seq(h, NULL);
        p->coord_made = h->groups->coords_made;
    }
    if (deleted > 0)
        LOG_LINE_LIMITED("DeleteGroups from %s: %d group(s) deleted, %d offset(s) to remove",
                         h->svc.slot_peer(h->svc.ctx, req->slot), deleted, k->count);
}

void handle_delete_groups(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_delete_groups_request body;
    if (wire_delete_groups_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "DeleteGroups");
        return;
    }
    int n = body.group_count > 0 ? body.group_count : 0;
    size_t names = 0;
    for (int i = 0; i < n; i++)
        names += body.groups_names[i].len > 0 ? (size_t)body.groups_names[i].len : 0;
    admin_pending p = {.slot = req->slot, .api_key = WIRE_API_DELETE_GROUPS, .version = v,
                       .correlation_id = req->header.correlation_id};
    bool *first = n <= HANDLER_GROUP_ADMIN_ENTRIES_MAX ? first_of_each(h, body.groups_names, n)
                                                      : NULL;
    delete_keys k = {.h = h};
    k.keys = kq_arena_alloc(&h->arena, sizeof(*k.keys) * KQ_GROUP_COMMIT_PARTITIONS_MAX);
    if (!first || !k.keys || !groups_admin_alloc(&p, n, names)) {
        h->svc.reply_close(h->svc.ctx, req->slot, n > HANDLER_GROUP_ADMIN_ENTRIES_MAX
                                                      ? "too many groups" : "out of memory");
        return;
    }
    decide(h, req, &body, first, &p, &k);
    handler_groups *g = h->groups;
    kq_writer_reset(&g->admin_batch);
    if (k.failed || (k.count > 0 && !group_offsets_build_delete_batch(
                                         &g->admin_batch, k.keys, k.count,
                                         h->svc.now_ms(h->svc.ctx)))) {
        /* The groups are gone from the coordinator, their offsets stay:
         * a retry finds them by their offsets and deletes them. */
        groups_admin_finish(h, &p, KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    groups_admin_submit(h, &p, k.count);
}
