/* deleted-stays-deleted (issue 24): after a DeleteGroups or OffsetDelete
 * answered NONE, or an expiry that committed, OffsetFetch never again
 * answers an offset of that key that was not committed after the deletion:
 * through crashes, truncations, snapshot loads and leader changes. Two
 * views of "after":
 *   the client's: a commit whose answer (any: acknowledged or refused)
 *     arrived before a deletion answered NONE was sent lies before that
 *     deletion in the log, if it is there at all (a refused commit may
 *     still commit later, but before anything sent after its answer); an
 *     OffsetFetch sent after that deletion's answer must not return it;
 *   the committed log's: the checker follows the key (group g<idx>,
 *     __cluster_metadata, 0) through the committed record (each batch once,
 *     in offset order, from the committed-data scan) as the server applies
 *     it: a commit record sets it, a deletion tombstone (offset
 *     KQ_GROUP_OFFSET_DELETED) clears it, an expiry tombstone clears it
 *     while it holds the commit expired. An OffsetFetch sent once such a
 *     removal at log offset P was committed must not return a value whose
 *     latest commit record lies below P (expiries count here: no client
 *     sees them).
 * Only the offset committers' groups (g<idx>) are followed; the
 * transactional producers' are txn-offsets' (w_check_txn.c). With the
 * committed-data check off, the log view checks nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/group_offset_codec.h"
#include "kq/group_offsets.h"
#include "kq/record.h"
#include "kq/wire_fetch.h"
#include "w_check_internal.h"

int w_check_on_delete_sent(w_world *w, int client)
{
    w_group_offsets *g = w_check_group_of(w, client);
    if (g->delete_n == g->delete_cap) {
        g->delete_cap = g->delete_cap ? g->delete_cap * 2 : 16;
        g->deletes = realloc(g->deletes, g->delete_cap * sizeof(*g->deletes));
        KQ_ASSERT(g->deletes);
    }
    g->deletes[g->delete_n] = (w_delete){.sent_ms = w->now, .done_ms = INT64_MAX};
    return (int)g->delete_n++;
}

void w_check_on_delete_done(w_world *w, int client, int handle, bool answered, bool deleted)
{
    w_group_offsets *g = w_check_group_of(w, client);
    KQ_ASSERT(handle >= 0 && (size_t)handle < g->delete_n);
    w_delete *d = &g->deletes[handle];
    if (!answered)
        return; /* unknown: it may still be carried out, at any time */
    d->done_ms = w->now;
    d->deleted = deleted;
    if (deleted && d->sent_ms > g->deleted_sent_ms)
        g->deleted_sent_ms = d->sent_ms;
}

void w_check_on_offset_commit_answered(w_world *w, int client, int64_t value)
{
    w_group_offsets *g = w_check_group_of(w, client);
    int64_t i = w_check_sent_index(g, value);
    if (i >= 0 && g->answered_ms[i] == INT64_MAX)
        g->answered_ms[i] = w->now;
}

/* The earliest commit sent that may stand for floor: floor itself, or
 * (issue 24) one below it with only control batches between, whose
 * OffsetFetch answer is the run's end; -1 none. */
static int64_t standing_for(const w_world *w, const w_group_offsets *g, int64_t floor)
{
    int64_t i = w_check_sent_index(g, floor);
    if (i >= 0)
        return i;
    size_t lo = 0, hi = g->sent_n; /* the largest sent below floor */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->sent[mid] < floor)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || !w_check_control_only(w, g->sent[lo - 1], floor, true))
        return -1;
    lo--;
    while (lo > 0 && w_check_control_only(w, g->sent[lo - 1], floor, false))
        lo--;
    return (int64_t)lo;
}

bool w_check_deleted_may_have(const w_world *w, const w_group_offsets *g, int64_t floor)
{
    int64_t i = standing_for(w, g, floor);
    if (i < 0)
        return false;
    /* A deletion answered before floor was sent lies before its commit. */
    for (size_t k = 0; k < g->delete_n; k++)
        if (g->deletes[k].done_ms >= g->sent_ms[i])
            return true;
    return false;
}

/* The committer whose group a record names ("g<idx>", used), or -1. */
static int client_of(w_world *w, const char *group_id)
{
    if (group_id[0] != 'g' || !group_id[1] || strlen(group_id) > 4)
        return -1;
    int idx = 0;
    for (const char *p = group_id + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        idx = idx * 10 + (*p - '0');
    }
    if (idx >= SIM_CLIENTS_MAX || !w->check->groups[idx].used)
        return -1;
    return idx;
}

/* One record of ours in the committed record, applied to its key's model. */
static void model_record(w_world *w, int type, const record *rec)
{
    group_offset_value v;
    bool tombstone = type == KQ_CONTROL_OFFSET_EXPIRE;
    if (tombstone ? group_offset_read_tombstone_value(rec->value, &v) != NULL
                  : group_offset_read_value(rec->value, &v) != NULL)
        return; /* skipped by the servers too */
    const group_offset *e = &v.entry;
    int client = client_of(w, e->group_id);
    if (client < 0 || e->partition != 0 || strcmp(e->topic, WIRE_METADATA_TOPIC_NAME) != 0)
        return;
    w_group_offsets *g = &w->check->groups[client];
    if (!tombstone) {
        g->log_has = true;
        g->log_offset = e->offset;
        g->log_epoch = e->leader_epoch;
        g->log_ts = e->commit_timestamp_ms;
        int64_t i = w_check_sent_index(g, e->offset);
        if (i >= 0)
            g->log_pos[i] = rec->offset;
        return;
    }
    bool applies = g->log_has && (e->offset == KQ_GROUP_OFFSET_DELETED ||
                                  (e->offset == g->log_offset && e->leader_epoch == g->log_epoch &&
                                   e->commit_timestamp_ms == g->log_ts));
    if (!applies)
        return;
    g->log_has = false;
    g->log_deleted_at = rec->offset;
}

void w_check_deleted_on_batch(w_world *w, const uint8_t *b, size_t len)
{
    record_batch_header h;
    if (record_batch_parse_header(b, len, &h) != RECORD_OK || !record_batch_is_control(&h) ||
        (h.attributes & RECORD_ATTR_TRANSACTIONAL))
        return; /* the committers' commits are never transactional */
    record_iter it;
    record rec;
    if (record_iter_open(&it, b, len) != RECORD_OK)
        return;
    while (record_iter_next(&it, &rec)) {
        int type = record_control_type(rec.key);
        if (type == KQ_CONTROL_OFFSET_COMMIT || type == KQ_CONTROL_OFFSET_EXPIRE)
            model_record(w, type, &rec);
    }
    record_iter_close(&it);
}

void w_check_deleted_on_fetched(w_world *w, int client, const w_offsets_floor *floor,
                                int64_t offset, int node, bool final)
{
    w_group_offsets *g = w_check_group_of(w, client);
    int64_t i = offset < 0 ? -1 : w_check_sent_index(g, offset);
    if (i < 0 || !w_check_on(w, W_INV_DELETED_STAYS_DELETED))
        return; /* never sent: offsets-not-invented's to report */
    const char *what = final ? "the final OffsetFetch" : "an OffsetFetch";
    if (g->answered_ms[i] < floor->deleted_sent_ms) {
        w_inv_fail(w, W_INV_DELETED_STAYS_DELETED,
                   "client %d: %s answered by node %d returned offset %lld, whose commit was "
                   "answered at %lld ms, before a deletion answered NONE was sent (%lld ms)",
                   client, what, node + 1, (long long)offset, (long long)g->answered_ms[i],
                   (long long)floor->deleted_sent_ms);
        return;
    }
    bool checked = w->p.checks & (UINT64_C(1) << W_INV_COMMITTED_DATA);
    if (checked && g->log_pos[i] >= 0 && g->log_pos[i] < floor->deleted_at)
        w_inv_fail(w, W_INV_DELETED_STAYS_DELETED,
                   "client %d: %s answered by node %d returned offset %lld, committed at log "
                   "offset %lld, removed by a tombstone at %lld committed before it was sent",
                   client, what, node + 1, (long long)offset, (long long)g->log_pos[i],
                   (long long)floor->deleted_at);
}
