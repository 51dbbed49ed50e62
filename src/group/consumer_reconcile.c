/* A member's reconciliation towards its target assignment (Kafka's
 * CurrentAssignmentBuilder, KIP-848):
 * - STABLE: when the target epoch moved, compute the next assignment;
 * - UNREVOKED_PARTITIONS: wait until the member's owned partitions (its
 *   heartbeat) no longer hold the partitions pending revocation, then go on
 *   at epoch + 1;
 * - UNRELEASED_PARTITIONS: take the target's partitions as their previous
 *   owners release them;
 * - UNKNOWN: fence unless the member owns nothing.
 * The next assignment keeps assigned ∩ target, revokes the rest, and adds
 * only the target's partitions no other member holds (assigned or pending
 * revocation): a partition is never in two members' hands. The
 * double-assignment mutant (KQ_MUTANT_DOUBLE_ASSIGNMENT) skips that last
 * check and the wait for the revocation. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"
#include "kq/mutants.h"

/* Whether owned (NULL: not given, taken as "still owns") holds a partition
 * of set. */
static bool owns_any(const cset *owned, const cset *set)
{
    if (!owned)
        return true;
    for (int i = 0; i < owned->n; i++)
        if (cs_contains(set, owned->v[i].id, owned->v[i].p))
            return true;
    return false;
}

typedef struct next_assignment {
    cset assigned, revoking, pending;
    bool unreleased;
} next_assignment;

/* assigned = current ∩ target; revoking = current - target; pending =
 * target - assigned - (partitions another member holds). */
static bool split(const group_coord *c, const cgroup *cg, const cmember *m, next_assignment *n)
{
    bool dbl = (c->config.mutants & KQ_MUTANT_DOUBLE_ASSIGNMENT) != 0;
    const cset *cur = &m->assigned, *target = &m->target;
    for (int i = 0; i < cur->n; i++) {
        cset *to = cs_contains(target, cur->v[i].id, cur->v[i].p) ? &n->assigned : &n->revoking;
        if (!cs_add(to, cur->v[i].id, cur->v[i].p))
            return false;
    }
    for (int i = 0; i < target->n; i++) {
        const cpart *x = &target->v[i];
        if (cs_contains(&n->assigned, x->id, x->p))
            continue;
        if (!dbl && cpm_epoch(&cg->owned, x->id, x->p) != -1) {
            n->unreleased = true;
            continue;
        }
        if (!cs_add(&n->pending, x->id, x->p))
            return false;
    }
    return true;
}

static bool compute_next(group_coord *c, cgroup *cg, cmember *m, int32_t epoch, const cset *owned)
{
    next_assignment n = {0};
    bool ok = split(c, cg, m, &n);
    int32_t target_epoch = cg->assignment_epoch, previous = m->member_epoch;
    bool dbl = (c->config.mutants & KQ_MUTANT_DOUBLE_ASSIGNMENT) != 0;
    if (!ok) {
    } else if (n.revoking.n > 0 && owns_any(owned, &n.revoking) && !dbl) {
        ok = cg_set_assignment(c, cg, m, &n.assigned, &n.revoking,
                               GROUP_MEMBER_UNREVOKED_PARTITIONS, epoch, previous);
    } else {
        for (int i = 0; ok && i < n.pending.n; i++)
            ok = cs_add(&n.assigned, n.pending.v[i].id, n.pending.v[i].p);
        cset none = {0};
        enum group_member_state st =
            n.unreleased ? GROUP_MEMBER_UNRELEASED_PARTITIONS : GROUP_MEMBER_STABLE;
        ok = ok && cg_set_assignment(c, cg, m, &n.assigned, &none, st, target_epoch, previous);
    }
    cs_free(&n.assigned);
    cs_free(&n.revoking);
    cs_free(&n.pending);
    return ok;
}

static bool same_state(const cmember *m, int32_t epoch, int32_t prev, enum group_member_state st,
                       const cset *assigned, const cset *revoking)
{
    return m->member_epoch == epoch && m->previous_member_epoch == prev && m->state == st &&
           cs_equal(&m->assigned, assigned) && cs_equal(&m->revoking, revoking);
}

enum kafka_error cm_reconcile(group_coord *c, ggroup *g, cmember *m, const cset *owned,
                              bool *changed)
{
    cgroup *cg = g->cg;
    *changed = false;
    int32_t target_epoch = cg->assignment_epoch;
    if (cm_reconciled_to(m, target_epoch))
        return KAFKA_NONE;
    int32_t epoch;
    switch (m->state) {
    case GROUP_MEMBER_STABLE: epoch = m->member_epoch; break;
    case GROUP_MEMBER_UNREVOKED_PARTITIONS:
        if (owns_any(owned, &m->revoking))
            return KAFKA_NONE;
        epoch = m->member_epoch + 1;
        break;
    case GROUP_MEMBER_UNRELEASED_PARTITIONS: epoch = m->member_epoch; break;
    default:
        if (!owned || owned->n > 0)
            return KAFKA_FENCED_MEMBER_EPOCH;
        epoch = target_epoch;
        break;
    }
    /* Compared after, as Kafka's !updatedMember.equals(member). */
    cset before_a = {0}, before_r = {0};
    int32_t be = m->member_epoch, bp = m->previous_member_epoch;
    enum group_member_state bs = m->state;
    bool member_dirty = m->dirty, group_dirty = cg->dirty;
    if (!cs_copy(&before_a, &m->assigned) || !cs_copy(&before_r, &m->revoking) ||
        !compute_next(c, cg, m, epoch, owned)) {
        cs_free(&before_a);
        cs_free(&before_r);
        return KAFKA_COORDINATOR_NOT_AVAILABLE; /* out of memory: retriable */
    }
    *changed = !same_state(m, be, bp, bs, &before_a, &before_r);
    if (!*changed) { /* cg_set_assignment marked them; nothing persistent moved */
        m->dirty = member_dirty;
        cg->dirty = group_dirty;
    }
    cs_free(&before_a);
    cs_free(&before_r);
    cg_account(c, g, m);
    return KAFKA_NONE;
}
