/* The consumer protocol's (KIP-848) part of membership through the log
 * (issue 24; kq/group_store.h, src/storage/FORMAT.md "Group membership"):
 * the records of changed consumer groups for a take, and the load of a
 * stored consumer group. The bodies are consumer_codec.c's: one group
 * record (epochs) and one record per member (everything a member is,
 * assignment and target included), tombstones for members gone.
 *
 * The consumer module marks what changed (cgroup.dirty, cmember.dirty,
 * cgroup.gone); gc_consumer_note_changes, at the end of every coordinator
 * call (gc_end), turns those marks into the coordinator's change seq so that
 * the handlers take them and hold the answers that reveal them. */
#include "consumer_internal.h"
#include "group_internal.h"
#include "kq/assert.h"

static bool consumer_changed(const ggroup *g)
{
    const cgroup *cg = g->cg;
    if (cg->dirty || cg->gone_count > 0 || cg->gone_lost || !g->persisted_consumer)
        return true;
    for (int i = 0; i < cg->member_count; i++)
        if (cg->members[i]->dirty)
            return true;
    return false;
}

void gc_consumer_note_changes(group_coord *c)
{
    if (!gp_enabled(c))
        return;
    for (int i = 0; i < c->group_count; i++) {
        ggroup *g = c->groups[i];
        if (g->type == GROUP_TYPE_CONSUMER && g->cg && !g->persist_dirty && consumer_changed(g))
            gc_mark_dirty(c, g);
    }
}

static bool add(group_store_batch *b, const ggroup *g, const char *member_id, bool tombstone,
                const kq_writer *body)
{
    group_store_record r = {.kind = member_id ? GROUP_STORE_MEMBER : GROUP_STORE_GROUP,
                            .group_id = g->id, .member_id = member_id,
                            .type = GROUP_STORE_TYPE_CONSUMER, .tombstone = tombstone,
                            .body = tombstone ? NULL : body->data,
                            .body_len = tombstone ? 0 : body->len};
    return group_store_batch_add(b, &r);
}

/* The group's records: a first write (or one after a lost tombstone, or of a
 * group that was classic in the store) replaces the whole group. */
static bool take_one(ggroup *g, group_store_batch *b, kq_writer *body)
{
    cgroup *cg = g->cg;
    bool whole = !g->persisted_consumer || cg->gone_lost;
    if (whole && g->persisted && !add(b, g, NULL, true, NULL))
        return false;
    for (int i = 0; !whole && i < cg->gone_count; i++)
        if (!add(b, g, cg->gone[i], true, NULL))
            return false;
    kq_writer_reset(body);
    if (!cg_encode_group(cg, body) || !add(b, g, NULL, false, body))
        return false;
    for (int i = 0; i < cg->member_count; i++) {
        cmember *m = cg->members[i];
        if (!whole && !m->dirty)
            continue;
        kq_writer_reset(body);
        if (!cg_encode_member(m, body) || body->len > KQ_GROUP_STORE_BODY_BYTES_MAX ||
            !add(b, g, m->id, false, body))
            return false;
        m->dirty = false;
    }
    cg->dirty = cg->gone_lost = false;
    cg->gone_count = 0;
    g->persisted = g->persisted_consumer = true;
    g->persist_dirty = false;
    return true;
}

int gc_take_consumer_changes(group_coord *c, group_store_batch *b)
{
    if (!gp_enabled(c))
        return 0;
    kq_writer body;
    kq_writer_init(&body, KQ_GROUP_STORE_BODY_BYTES_MAX + 1);
    int taken = 0;
    bool more = false;
    for (int i = 0; i < c->group_count && !b->failed; i++) {
        ggroup *g = c->groups[i];
        if (g->type != GROUP_TYPE_CONSUMER || !g->cg || !g->persist_dirty)
            continue;
        if (group_store_batch_bytes(b) >= KQ_GROUP_STORE_BATCH_BYTES_TARGET) {
            more = true;
            break;
        }
        if (take_one(g, b, &body))
            taken++;
        else
            b->failed = true; /* a body the codec refuses, or no memory */
    }
    kq_writer_free(&body);
    return more ? -1 : taken;
}

bool gc_restore_consumer_group(group_coord *c, const group_store *s, int gi, int64_t now_ms)
{
    group_store_record gr, mr;
    int32_t group_epoch, assignment_epoch;
    if (!group_store_group_at(s, gi, &gr) ||
        !cg_decode_group(gr.body, gr.body_len, &group_epoch, &assignment_epoch))
        return false;
    ggroup *g = cg_restore_group(c, gr.group_id, group_epoch, assignment_epoch);
    if (!g)
        return false;
    bool lost = false;
    for (int mi = 0; group_store_member_at(s, gi, mi, &mr); mi++) {
        cmember *m = cg_decode_member(mr.member_id, mr.body, mr.body_len);
        if (!m || !cg_restore_member(c, g, m, now_ms))
            lost = true; /* cg_restore_member frees a member it refuses */
    }
    cg_restore_done(c, g);
    g->persisted = g->persisted_consumer = true;
    /* A record it could not load: the group is written again whole (its
     * tombstone first), so the store holds what the coordinator has. */
    if (lost)
        g->cg->gone_lost = true;
    return true;
}

