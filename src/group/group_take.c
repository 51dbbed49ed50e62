/* group_coord_take_changes (kq/group.h, issue 24): the records of what the
 * coordinator marked (group_persist.c) for one control batch: tombstones of
 * groups gone, then whole dirty groups while the batch holds less than
 * KQ_GROUP_STORE_BATCH_BYTES_TARGET (a group's records are never split
 * over two batches, so every batch moves the store from one coordinator
 * state of the group to another). */
#include <string.h>

#include "group_internal.h"
#include "kq/assert.h"

static bool add_tombstone(group_store_batch *b, const char *group_id, const char *member_id)
{
    group_store_record r = {.kind = member_id ? GROUP_STORE_MEMBER : GROUP_STORE_GROUP,
                            .group_id = group_id, .member_id = member_id,
                            .type = GROUP_STORE_TYPE_CLASSIC, .tombstone = true};
    return group_store_batch_add(b, &r);
}

/* Its body in body (reset first); false if a rule is broken. */
static bool group_body(const ggroup *g, kq_writer *body)
{
    kq_writer_reset(body);
    group_store_classic_group v = {
        .state = (int8_t)g->state, .generation = g->generation,
        .protocol_type = g->protocol_type, .protocol_name = g->protocol_name,
        .leader_id = g->leader_id, .state_timestamp_ms = g->empty_since_ms};
    return group_store_classic_group_write(body, &v) && !body->error;
}

static bool member_body(const ggroup *g, const gmember *m, kq_writer *body)
{
    kq_writer_reset(body);
    int p = g->protocol_name[0] ? gm_protocol_index(m, g->protocol_name) : -1;
    group_store_classic_member v = {
        .instance_id = m->instance_id[0] ? m->instance_id : NULL, .client_id = m->client_id,
        .client_host = m->client_host, .session_timeout_ms = m->session_timeout_ms,
        .rebalance_timeout_ms = m->rebalance_timeout_ms};
    if (p >= 0 && m->metadata_len[p] <= KQ_GROUP_STORE_METADATA_BYTES_MAX) {
        v.metadata = m->metadata[p];
        v.metadata_len = m->metadata_len[p];
    }
    if (m->assignment_len <= KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX) {
        v.assignment = m->assignment;
        v.assignment_len = m->assignment_len;
    }
    return group_store_classic_member_write(body, &v) && !body->error;
}

/* The records of one dirty group: false when b fails. */
static bool take_group(group_coord *c, ggroup *g, group_store_batch *b, kq_writer *body)
{
    if (g->persisted_consumer) { /* downgraded: the consumer records go first */
        if (!add_tombstone(b, g->id, NULL))
            return false;
        g->persisted_consumer = false;
        gc_mark_members(c, g);
    }
    for (int i = 0; i < g->gone_count; i++) {
        if (!add_tombstone(b, g->id, g->gone[i].id))
            return false;
        c->persist_bytes -= g->gone[i].cost;
    }
    g->gone_count = 0;
    if (!group_body(g, body))
        return false;
    group_store_record r = {.kind = GROUP_STORE_GROUP, .group_id = g->id,
                            .type = GROUP_STORE_TYPE_CLASSIC, .body = body->data,
                            .body_len = body->len};
    if (!group_store_batch_add(b, &r))
        return false;
    g->persisted = true;
    g->persist_written = group_store_record_cost(&r);
    g->persist_dirty = false;
    if (g->state == GROUP_PREPARING_REBALANCE)
        return true; /* members as last written (the header comment) */
    for (int i = 0; i < g->member_count; i++) {
        gmember *m = g->members[i];
        if (m->persisted && !m->persist_dirty)
            continue;
        if (!member_body(g, m, body))
            return false;
        r = (group_store_record){.kind = GROUP_STORE_MEMBER, .group_id = g->id,
                                 .member_id = m->id, .type = GROUP_STORE_TYPE_CLASSIC,
                                 .body = body->data, .body_len = body->len};
        if (!group_store_batch_add(b, &r))
            return false;
        m->persisted = true;
        m->persist_dirty = false;
        m->persist_written = group_store_record_cost(&r);
        gp_recharge(c, g, m);
    }
    return true;
}

static bool take_deleted(group_coord *c, group_store_batch *b)
{
    for (int i = 0; i < c->deleted_count; i++) {
        if (!add_tombstone(b, c->deleted[i].id, NULL))
            return false;
        c->persist_bytes -= c->deleted[i].cost;
    }
    c->deleted_count = 0;
    return true;
}

bool group_coord_take_changes(group_coord *c, group_store_batch *b, uint64_t *covered,
                              bool *more)
{
    *more = false;
    *covered = c->persist_seq;
    if (!gp_enabled(c))
        return false;
    kq_writer body;
    kq_writer_init(&body, KQ_GROUP_STORE_BODY_BYTES_MAX);
    bool ok = take_deleted(c, b);
    uint64_t left = UINT64_MAX; /* the earliest seq not taken */
    for (int i = 0; ok && i < c->group_count; i++) {
        ggroup *g = c->groups[i];
        if (!g->persist_dirty || g->type == GROUP_TYPE_CONSUMER)
            continue; /* consumer groups: gc_take_consumer_changes */
        if (group_store_batch_bytes(b) >= KQ_GROUP_STORE_BATCH_BYTES_TARGET) {
            *more = true;
            if (g->persist_seq < left)
                left = g->persist_seq;
            continue;
        }
        ok = take_group(c, g, b, &body);
    }
    kq_writer_free(&body);
    if (!ok)
        b->failed = true; /* a body the codec refuses, or no memory */
    int consumer = ok ? gc_take_consumer_changes(c, b) : 0;
    if (consumer < 0)
        *more = true; /* its seqs are its own: covered stays below them */
    if (*more)
        *covered = left != UINT64_MAX && left > 0 ? left - 1 : 0;
    return ok && !b->failed && b->count > 0;
}
