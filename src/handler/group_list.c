/* ListGroups: the coordinator's groups, classic and KIP-848 consumer
 * groups, and those known only by their committed offsets (as Empty classic
 * groups, as Kafka loads them), filtered by state (v4+) and type (v5+,
 * "classic" or "consumer", case-insensitive as Kafka). A follower
 * coordinates none. */
#include <string.h>
#include <strings.h>

#include "group_handlers.h"
#include "kq/wire_list_groups.h"

typedef struct list_ctx {
    handler *h;
    const wire_list_groups_request *body;
    int16_t version;
    wire_list_groups_group *groups;
    int count, cap;
} list_ctx;

static bool slice_eq_nocase(kq_slice s, const char *c)
{
    size_t n = strlen(c);
    return s.len >= 0 && (size_t)s.len == n && (n == 0 || strncasecmp((const char *)s.ptr, c, n) == 0);
}

static bool filters_match(const list_ctx *c, const char *state, const char *type)
{
    const wire_list_groups_request *b = c->body;
    bool state_ok = b->states_filter_count <= 0;
    for (int32_t i = 0; i < b->states_filter_count && !state_ok; i++)
        state_ok = slice_eq_nocase(b->states_filter[i], state);
    bool type_ok = b->types_filter_count <= 0;
    for (int32_t i = 0; i < b->types_filter_count && !type_ok; i++)
        type_ok = slice_eq_nocase(b->types_filter[i], type);
    return state_ok && type_ok;
}

static void list_add(list_ctx *c, const char *group_id, const char *state,
                     const char *protocol_type, enum group_type type)
{
    const char *type_name = group_type_name(type);
    if (c->count >= c->cap || !filters_match(c, state, type_name))
        return;
    c->groups[c->count++] = (wire_list_groups_group){
        .group_id = kq_slice_cstr(group_id),
        .protocol_type = kq_slice_cstr(protocol_type),
        .group_state = kq_slice_cstr(c->version >= 4 ? state : ""),
        .group_type = kq_slice_cstr(c->version >= 5 ? type_name : ""),
    };
}

static int add_offsets_group(void *ctx, const char *group_id)
{
    list_ctx *c = ctx;
    enum group_type type;
    if (!group_type_of(c->h->groups->coord, group_id, &type))
        list_add(c, group_id, "Empty", "", GROUP_TYPE_CLASSIC);
    return 0;
}

/* Fills c with every group; false when memory runs out. */
static bool list_all(list_ctx *c)
{
    handler *h = c->h;
    int offset_groups = 0;
    if (h->svc.offsets)
        offset_groups = group_offsets_count(h->svc.offsets); /* at least the groups */
    c->cap = group_count(h->groups->coord) + offset_groups;
    c->groups = kq_arena_alloc(&h->arena, sizeof(*c->groups) * (size_t)(c->cap ? c->cap : 1));
    if (!c->groups)
        return false;
    group_summary s;
    for (int i = 0; group_at(h->groups->coord, i, &s); i++)
        list_add(c, s.group_id, s.state_name, s.protocol_type, s.type);
    if (h->svc.offsets)
        group_offsets_foreach_group_id(h->svc.offsets, add_offsets_group, c);
    return true;
}

void handle_list_groups(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_list_groups_request body;
    if (wire_list_groups_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "ListGroups");
        return;
    }
    list_ctx c = {.h = h, .body = &body, .version = v};
    wire_list_groups_response resp = {0};
    /* Kafka lists only the groups one may describe: all or none here. */
    if (handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "ListGroups")) {
        int16_t gate = groups_gate(h);
        if (gate == KAFKA_NONE && !list_all(&c)) {
            h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
            return;
        }
        /* A broker lists the groups it coordinates: a follower none. (An
         * error would fail the admin client's listing, which asks every
         * broker; it retries only LOAD_IN_PROGRESS and NOT_AVAILABLE.) */
        resp.error_code = gate == KAFKA_NOT_COORDINATOR ? KAFKA_NONE : gate;
    }
    resp.groups = c.groups;
    resp.group_count = c.count;
    handler_begin_response(h, &req->header);
    wire_list_groups_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
