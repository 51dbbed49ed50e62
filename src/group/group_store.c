/* The group store (include/kq/group_store.h): the latest value per key,
 * groups and their members in sorted arrays (binary search; inserts move
 * at most KQ_GROUPS_MAX or a group's members), applying records, the walk
 * in key order and the snapshot's restore. */
#include <stdlib.h>
#include <string.h>

#include "group_store_internal.h"
#include "kq/assert.h"

group_store *group_store_create(void)
{
    group_store *s = calloc(1, sizeof(*s));
    if (s) {
        s->last_offset = -1;
        s->noted_to = -1;
    }
    return s;
}

static void free_member(gs_member *m)
{
    free(m->id);
    free(m->body);
    free(m);
}

static void free_group(gs_group *g)
{
    for (int i = 0; i < g->member_count; i++)
        free_member(g->members[i]);
    free(g->members);
    free(g->id);
    free(g->body);
    free(g);
}

void group_store_clear(group_store *s)
{
    for (int i = 0; i < s->group_count; i++)
        free_group(s->groups[i]);
    free(s->groups);
    *s = (group_store){.last_offset = -1, .noted_to = -1};
}

void group_store_destroy(group_store *s)
{
    if (!s)
        return;
    group_store_clear(s);
    free(s);
}

void group_store_swap(group_store *a, group_store *b)
{
    group_store t = *a;
    *a = *b;
    *b = t;
}

/* Index of id in the sorted names, or -(insertion point) - 1. */
#define SEARCH(arr, n, key)                                   \
    do {                                                      \
        int lo = 0, hi = (n) - 1;                             \
        while (lo <= hi) {                                    \
            int mid = lo + (hi - lo) / 2;                     \
            int c = strcmp((arr)[mid]->id, (key));            \
            if (c == 0)                                       \
                return mid;                                   \
            if (c < 0)                                        \
                lo = mid + 1;                                 \
            else                                              \
                hi = mid - 1;                                 \
        }                                                     \
        return -lo - 1;                                       \
    } while (0)

static int search_group(const group_store *s, const char *id) { SEARCH(s->groups, s->group_count, id); }
static int search_member(const gs_group *g, const char *id) { SEARCH(g->members, g->member_count, id); }

/* Room for one more pointer in *arr (cap doubling). */
static bool grow(void ***arr, int count, int *cap)
{
    if (count < *cap)
        return true;
    int n = *cap ? *cap * 2 : 4;
    void **p = realloc(*arr, (size_t)n * sizeof(void *));
    if (!p)
        return false;
    *arr = p;
    *cap = n;
    return true;
}

static bool set_body(uint8_t **body, size_t *len, const group_store_record *r)
{
    uint8_t *copy = malloc(r->body_len ? r->body_len : 1);
    if (!copy)
        return false;
    if (r->body_len)
        memcpy(copy, r->body, r->body_len);
    free(*body);
    *body = copy;
    *len = r->body_len;
    return true;
}

/* The group named id, made (without a record) when absent and make. */
static gs_group *group_get(group_store *s, const char *id, bool make)
{
    int at = search_group(s, id);
    if (at >= 0)
        return s->groups[at];
    if (!make || !grow((void ***)&s->groups, s->group_count, &s->group_cap))
        return NULL;
    gs_group *g = calloc(1, sizeof(*g));
    if (g)
        g->id = strdup(id);
    if (!g || !g->id) {
        free(g);
        return NULL;
    }
    g->type = -1;
    at = -at - 1;
    memmove(&s->groups[at + 1], &s->groups[at], (size_t)(s->group_count - at) * sizeof(gs_group *));
    s->groups[at] = g;
    s->group_count++;
    return g;
}

static void group_drop(group_store *s, gs_group *g)
{
    int at = search_group(s, g->id);
    KQ_ASSERT(at >= 0 && s->groups[at] == g);
    for (int i = 0; i < g->member_count; i++) {
        s->bytes -= g->members[i]->cost;
        s->records--;
    }
    if (g->has_record) {
        s->bytes -= g->cost;
        s->records--;
    }
    memmove(&s->groups[at], &s->groups[at + 1], (size_t)(s->group_count - at - 1) * sizeof(gs_group *));
    s->group_count--;
    free_group(g);
}

static bool apply_group(group_store *s, const group_store_record *r)
{
    gs_group *g = group_get(s, r->group_id, !r->tombstone);
    if (r->tombstone) {
        if (g)
            group_drop(s, g);
        return true;
    }
    if (!g || !set_body(&g->body, &g->body_len, r))
        return false;
    if (g->has_record) {
        s->bytes -= g->cost;
        s->records--;
    }
    g->has_record = true;
    g->type = r->type;
    g->cost = group_store_record_cost(r);
    s->bytes += g->cost;
    s->records++;
    return true;
}

static void member_drop(group_store *s, gs_group *g, int at)
{
    gs_member *m = g->members[at];
    s->bytes -= m->cost;
    s->records--;
    memmove(&g->members[at], &g->members[at + 1], (size_t)(g->member_count - at - 1) * sizeof(gs_member *));
    g->member_count--;
    free_member(m);
    if (!g->has_record && g->member_count == 0)
        group_drop(s, g);
}

static bool apply_member(group_store *s, const group_store_record *r)
{
    gs_group *g = group_get(s, r->group_id, !r->tombstone);
    if (!g)
        return r->tombstone;
    int at = search_member(g, r->member_id);
    if (r->tombstone) {
        if (at >= 0)
            member_drop(s, g, at);
        return true;
    }
    gs_member *m = at >= 0 ? g->members[at] : NULL;
    if (!m) {
        if (!grow((void ***)&g->members, g->member_count, &g->member_cap))
            return false;
        m = calloc(1, sizeof(*m));
        if (m)
            m->id = strdup(r->member_id);
        if (!m || !m->id) {
            free(m);
            return false;
        }
        at = -at - 1;
        memmove(&g->members[at + 1], &g->members[at], (size_t)(g->member_count - at) * sizeof(gs_member *));
        g->members[at] = m;
        g->member_count++;
        s->records++;
    } else {
        s->bytes -= m->cost;
    }
    if (!set_body(&m->body, &m->body_len, r)) {
        s->bytes += m->cost;
        return false;
    }
    m->type = r->type;
    m->cost = group_store_record_cost(r);
    s->bytes += m->cost;
    return true;
}

bool gs_apply(group_store *s, const group_store_record *r)
{
    return r->kind == GROUP_STORE_GROUP ? apply_group(s, r) : apply_member(s, r);
}

int64_t group_store_last_offset(const group_store *s) { return s->last_offset; }
int64_t group_store_noted_to(const group_store *s) { return s->noted_to; }
int group_store_group_count(const group_store *s) { return s->group_count; }
int group_store_record_count(const group_store *s) { return s->records; }
uint64_t group_store_bytes(const group_store *s) { return s->bytes; }

int group_store_find(const group_store *s, const char *group_id)
{
    if (!group_id)
        return -1;
    int at = search_group(s, group_id);
    return at >= 0 ? at : -1;
}

bool group_store_group_at(const group_store *s, int gi, group_store_record *out)
{
    if (gi < 0 || gi >= s->group_count)
        return false;
    const gs_group *g = s->groups[gi];
    *out = (group_store_record){.kind = GROUP_STORE_GROUP, .group_id = g->id, .type = g->type,
                                .tombstone = !g->has_record, .body = g->body,
                                .body_len = g->has_record ? g->body_len : 0};
    return true;
}

int group_store_member_count(const group_store *s, int gi)
{
    return gi >= 0 && gi < s->group_count ? s->groups[gi]->member_count : 0;
}

bool group_store_member_at(const group_store *s, int gi, int mi, group_store_record *out)
{
    if (gi < 0 || gi >= s->group_count || mi < 0 || mi >= s->groups[gi]->member_count)
        return false;
    const gs_group *g = s->groups[gi];
    const gs_member *m = g->members[mi];
    *out = (group_store_record){.kind = GROUP_STORE_MEMBER, .group_id = g->id,
                                .member_id = m->id, .type = m->type, .body = m->body,
                                .body_len = m->body_len};
    return true;
}

bool group_store_has(const group_store *s, const group_store_record *r)
{
    int gi = group_store_find(s, r->group_id);
    if (gi < 0)
        return false;
    const gs_group *g = s->groups[gi];
    return r->kind == GROUP_STORE_GROUP ? g->has_record
                                        : r->member_id && search_member(g, r->member_id) >= 0;
}

bool group_store_restore(group_store *s, const group_store_record *r)
{
    if (r->tombstone || group_store_record_invalid(r) || group_store_has(s, r))
        return false;
    return gs_apply(s, r);
}

void group_store_restored(group_store *s, int64_t end_offset)
{
    s->noted_to = end_offset;
    s->last_offset = -1;
}
