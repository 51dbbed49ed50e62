/* The "uniform" server-side assignor (Kafka's UniformAssignor): sticky and
 * balanced.
 * - Homogeneous (every member subscribes to the same topics): Kafka's
 *   UniformHomogeneousAssignmentBuilder: quotas total/members, the first
 *   total%members members one more; each member keeps its previous target
 *   up to its quota; the partitions left over and the unassigned ones fill
 *   the members under quota, in order.
 * - Heterogeneous: ours (Kafka's UniformHeterogeneousAssignmentBuilder is a
 *   longer optimisation with the same aims): each member keeps its previous
 *   target of topics it still subscribes to; every other partition goes to
 *   the subscribed member holding fewest; then partitions move from a
 *   member to a subscribed one holding two or more fewer until none can. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

static bool subscribes(const cassign_member *am, const uint8_t id[16])
{
    for (int i = 0; i < am->id_count; i++)
        if (memcmp(am->ids[i], id, 16) == 0)
            return true;
    return false;
}

/* Whether (id, p) is in any member's previous target. */
static bool previously_assigned(const cassign *a, const uint8_t id[16], int32_t p)
{
    for (int i = 0; i < a->member_count; i++)
        if (cs_contains(a->members[i].previous, id, p))
            return true;
    return false;
}

/* Partitions of the subscribed topics nobody held, in topic-id order. */
static bool unassigned_list(const cassign *a, cset *out)
{
    for (int t = 0; t < a->meta_count; t++) {
        const cmeta *m = &a->meta[t];
        bool wanted = false;
        for (int i = 0; i < a->member_count && !wanted; i++)
            wanted = subscribes(&a->members[i], m->id);
        for (int32_t p = 0; wanted && p < m->partitions; p++)
            if (!previously_assigned(a, m->id, p) && !cs_add(out, m->id, p))
                return false;
    }
    return true;
}

/* Appends to list (kept in order of arrival, not sorted). */
static bool push(cpart **list, int *n, int *cap, const cpart *x)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        cpart *v = realloc(*list, (size_t)nc * sizeof(*v));
        if (!v)
            return false;
        *list = v;
        *cap = nc;
    }
    (*list)[(*n)++] = *x;
    return true;
}

/* Keeps up to quota of am's previous target; the rest goes to the list. */
static bool keep_previous(const cassign *a, cassign_member *am, int *quota, cpart **list,
                          int *n, int *cap)
{
    const cset *prev = am->previous;
    for (int k = 0; k < prev->n; k++) {
        const cpart *x = &prev->v[k];
        if (!subscribes(am, x->id) || x->p >= ca_partitions_of(a, x->id))
            continue; /* not subscribed any more: dropped, as Kafka */
        if (*quota > 0) {
            if (!cs_add(&am->next, x->id, x->p))
                return false;
            (*quota)--;
        } else if (!push(list, n, cap, x)) {
            return false;
        }
    }
    return true;
}

static bool homogeneous(cassign *a)
{
    int64_t total = 0;
    for (int i = 0; i < a->members[0].id_count; i++)
        total += ca_partitions_of(a, a->members[0].ids[i]);
    int minq = (int)(total / a->member_count), extra = (int)(total % a->member_count);
    cset un = {0};
    cpart *list = NULL;
    int n = 0, cap = 0, next = 0;
    int *left = calloc((size_t)a->member_count, sizeof(int));
    bool ok = left && unassigned_list(a, &un);
    for (int k = 0; ok && k < un.n; k++)
        ok = push(&list, &n, &cap, &un.v[k]);
    for (int i = 0; ok && i < a->member_count; i++) {
        left[i] = minq + (extra > 0 ? 1 : 0);
        if (extra > 0)
            extra--;
        ok = keep_previous(a, &a->members[i], &left[i], &list, &n, &cap);
    }
    for (int i = 0; ok && i < a->member_count; i++)
        for (; ok && left[i] > 0 && next < n; left[i]--, next++)
            ok = cs_add(&a->members[i].next, list[next].id, list[next].p);
    KQ_ASSERT(!ok || next == n); /* Kafka: "Partitions were left unassigned" */
    free(left);
    free(list);
    cs_free(&un);
    return ok;
}

/* The subscribed member holding fewest partitions (first in order). */
static int fewest(const cassign *a, const uint8_t id[16])
{
    int best = -1;
    for (int i = 0; i < a->member_count; i++)
        if (subscribes(&a->members[i], id) &&
            (best < 0 || a->members[i].next.n < a->members[best].next.n))
            best = i;
    return best;
}

/* One pass of moves from fuller members to emptier ones; *moved says
 * whether any partition moved. */
static bool balance_pass(cassign *a, bool *moved)
{
    *moved = false;
    for (int i = 0; i < a->member_count; i++) {
        cset *from = &a->members[i].next;
        for (int k = 0; k < from->n; k++) {
            cpart x = from->v[k];
            int j = fewest(a, x.id);
            if (j < 0 || a->members[j].next.n + 1 >= from->n)
                continue;
            if (!cs_add(&a->members[j].next, x.id, x.p))
                return false;
            cs_remove(from, x.id, x.p);
            *moved = true;
            k--;
        }
    }
    return true;
}

/* Partitions of subscribed topics no member's next target holds. */
static bool unheld_list(const cassign *a, cset *out)
{
    for (int t = 0; t < a->meta_count; t++) {
        const cmeta *m = &a->meta[t];
        bool wanted = false;
        for (int i = 0; i < a->member_count && !wanted; i++)
            wanted = subscribes(&a->members[i], m->id);
        for (int32_t p = 0; wanted && p < m->partitions; p++) {
            bool held = false;
            for (int i = 0; i < a->member_count && !held; i++)
                held = cs_contains(&a->members[i].next, m->id, p);
            if (!held && !cs_add(out, m->id, p))
                return false;
        }
    }
    return true;
}

static bool heterogeneous(cassign *a)
{
    bool ok = true;
    for (int i = 0; ok && i < a->member_count; i++) {
        int unlimited = INT32_MAX;
        cpart *none = NULL;
        int n = 0, cap = 0;
        ok = keep_previous(a, &a->members[i], &unlimited, &none, &n, &cap);
        free(none);
    }
    /* A partition two members kept (cannot happen in a valid target) stays
     * with the first. */
    for (int i = 0; ok && i < a->member_count; i++)
        for (int j = i + 1; j < a->member_count; j++)
            for (int k = 0; k < a->members[i].next.n; k++)
                cs_remove(&a->members[j].next, a->members[i].next.v[k].id,
                          a->members[i].next.v[k].p);
    cset un = {0};
    ok = ok && unheld_list(a, &un);
    for (int k = 0; ok && k < un.n; k++) {
        int j = fewest(a, un.v[k].id);
        ok = j < 0 || cs_add(&a->members[j].next, un.v[k].id, un.v[k].p);
    }
    bool moved = true;
    while (ok && moved) /* each move lowers the sum of squares: it ends */
        ok = balance_pass(a, &moved);
    cs_free(&un);
    return ok;
}

bool ca_uniform(cassign *a)
{
    if (a->member_count == 0)
        return true;
    if (a->homogeneous)
        return a->members[0].id_count == 0 || homogeneous(a);
    return heterogeneous(a);
}
