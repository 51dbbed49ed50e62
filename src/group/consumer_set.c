/* Partition sets of KIP-848 consumer groups: a sorted array of (topic id,
 * partition) for the set algebra of reconciliation and the assignors, and
 * its view by topic (group_topic_partitions) for answers and describes. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

int cp_cmp(const cpart *a, const cpart *b)
{
    int c = memcmp(a->id, b->id, 16);
    if (c)
        return c;
    return a->p < b->p ? -1 : a->p > b->p;
}

static int cp_qcmp(const void *a, const void *b) { return cp_cmp(a, b); }

/* The index of (id, p) in s, or of where it would go (*found false). */
static int find(const cset *s, const uint8_t id[16], int32_t p, bool *found)
{
    cpart k;
    memcpy(k.id, id, 16);
    k.p = p;
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = cp_cmp(&s->v[mid], &k);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

bool cs_contains(const cset *s, const uint8_t id[16], int32_t p)
{
    bool found;
    find(s, id, p, &found);
    return found;
}

/* The view arrays grow with the set, so that building a view cannot
 * fail. */
static bool reserve(cset *s, int n)
{
    if (n <= s->cap)
        return true;
    int cap = s->cap ? s->cap : 4;
    while (cap < n)
        cap *= 2;
    cpart *v = realloc(s->v, (size_t)cap * sizeof(*v));
    if (!v)
        return false;
    s->v = v;
    group_topic_partitions *view = realloc(s->view, (size_t)cap * sizeof(*view));
    if (!view)
        return false;
    s->view = view;
    int32_t *parts = realloc(s->view_parts, (size_t)cap * sizeof(*parts));
    if (!parts)
        return false;
    s->view_parts = parts;
    s->cap = cap;
    return true;
}

bool cs_add(cset *s, const uint8_t id[16], int32_t p)
{
    bool found;
    int at = find(s, id, p, &found);
    if (found)
        return true;
    if (!reserve(s, s->n + 1))
        return false;
    memmove(&s->v[at + 1], &s->v[at], (size_t)(s->n - at) * sizeof(cpart));
    memcpy(s->v[at].id, id, 16);
    s->v[at].p = p;
    s->n++;
    return true;
}

void cs_remove(cset *s, const uint8_t id[16], int32_t p)
{
    bool found;
    int at = find(s, id, p, &found);
    if (!found)
        return;
    memmove(&s->v[at], &s->v[at + 1], (size_t)(s->n - at - 1) * sizeof(cpart));
    s->n--;
}

bool cs_copy(cset *dst, const cset *src)
{
    if (dst == src)
        return true;
    if (!reserve(dst, src->n))
        return false;
    if (src->n)
        memcpy(dst->v, src->v, (size_t)src->n * sizeof(cpart));
    dst->n = src->n;
    return true;
}

bool cs_equal(const cset *a, const cset *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, (size_t)a->n * sizeof(cpart)) == 0);
}

void cs_clear(cset *s) { s->n = 0; }

void cs_free(cset *s)
{
    free(s->v);
    free(s->view);
    free(s->view_parts);
    memset(s, 0, sizeof(*s));
}

bool cs_from_request(cset *s, const group_topic_partitions *tp, int n)
{
    cs_clear(s);
    int total = 0;
    for (int i = 0; i < n; i++)
        total += tp[i].partition_count > 0 ? tp[i].partition_count : 0;
    if (!reserve(s, total))
        return false;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < tp[i].partition_count; j++) {
            memcpy(s->v[s->n].id, tp[i].topic_id, 16);
            s->v[s->n++].p = tp[i].partitions[j];
        }
    if (s->n > 1)
        qsort(s->v, (size_t)s->n, sizeof(cpart), cp_qcmp);
    int out = 0;
    for (int i = 0; i < s->n; i++)
        if (out == 0 || cp_cmp(&s->v[out - 1], &s->v[i]) != 0)
            s->v[out++] = s->v[i];
    s->n = out;
    return true;
}

void cs_view(cset *s, const ctopics *topics)
{
    int t = -1;
    for (int i = 0; i < s->n; i++) {
        if (i == 0 || memcmp(s->v[i - 1].id, s->v[i].id, 16) != 0) {
            const ctopic *ct = ct_by_id(topics, s->v[i].id);
            t++;
            memcpy(s->view[t].topic_id, s->v[i].id, 16);
            s->view[t].topic_name = ct ? ct->name : "";
            s->view[t].partitions = &s->view_parts[i];
            s->view[t].partition_count = 0;
        }
        s->view_parts[i] = s->v[i].p;
        s->view[t].partition_count++;
    }
    s->view_n = t + 1;
}

uint64_t cs_bytes(const cset *s) { return (uint64_t)s->n * KQ_GROUP_CONSUMER_PARTITION_BYTES; }
