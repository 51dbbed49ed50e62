/* The voter set in force (KIP-853, issue 20): the static voters of the
 * configuration (kraft.version 0), or the latest Voters record of the
 * voter history, committed or not, as Kafka's VoterSetHistory. The history
 * follows the log: entries come with the batches appended (a leader's own
 * control batches, a follower's fetched ones, a snapshot installed), a
 * truncation drops the entries it cuts (reverting the set), and entries
 * below the high watermark fold into one. Whenever the set in force
 * changes, the voter table (r->voters) is rebuilt from it. */
#include <string.h>

#include "kq/assert.h"
#include "kq/record.h"
#include "raft_internal.h"

const kq_voter_set *raft_voters(const raft *r)
{
    for (int i = r->vh_count - 1; i >= 0; i--)
        if (r->vh[i].has_voters)
            return &r->vh[i].voters;
    return &r->static_voters;
}

int16_t raft_kraft_version(const raft *r)
{
    return r->vh_count > 0 ? r->vh[r->vh_count - 1].kraft_version : 0;
}

bool raft_voters_dynamic(const raft *r)
{
    return raft_voters(r) != &r->static_voters;
}

bool raft_voters_at(const raft *r, int64_t offset, raft_voter_entry *out)
{
    for (int i = r->vh_count - 1; i >= 0; i--)
        if (r->vh[i].offset <= offset) {
            *out = r->vh[i];
            return true;
        }
    return false;
}

/* Whether the replica (id, directory) is a voter of the set in force. */
bool raft_is_voter_replica(const raft *r, int32_t id, const kq_uuid *dir)
{
    if (r->cfg.mutants & RAFT_MUTANT_IGNORE_DIRECTORY_ID)
        return kq_voter_set_find(raft_voters(r), id) >= 0;
    return kq_voter_set_has_replica(raft_voters(r), id, dir);
}

/* Rebuilds r->voters from the set in force, keeping each remaining
 * voter's progress; a leader keeps a removed voter as an observer and
 * takes a new voter's progress from its observer entry. */
static void apply(raft *r, raft_output *out)
{
    const kq_voter_set *set = raft_voters(r);
    raft_peer old[RAFT_VOTERS_MAX];
    int old_count = r->voter_count;
    memcpy(old, r->voters, sizeof(raft_peer) * (size_t)old_count);
    /* the same voters with the same keys and endpoints: nothing to tell */
    bool same = set->count == r->applied.count &&
                memcmp(set->voters, r->applied.voters, sizeof(kq_voter) * (size_t)set->count) == 0;
    if (!same) {
        memset(&r->applied, 0, sizeof r->applied);
        r->applied.count = set->count;
        memcpy(r->applied.voters, set->voters, sizeof(kq_voter) * (size_t)set->count);
    }
    r->voter_count = set->count;
    for (int i = 0; i < set->count; i++) {
        int32_t id = set->voters[i].id;
        raft_peer p = {.id = id, .end_offset = -1, .last_fetch_ms = -1, .last_caught_up_ms = -1};
        raft_peer *o = raft_observer(r, id, false);
        for (int j = 0; j < old_count; j++)
            if (old[j].id == id)
                p = old[j];
        if (o && p.last_fetch_ms < o->last_fetch_ms) { /* it fetched as an observer */
            p.end_offset = o->end_offset;
            p.last_fetch_ms = o->last_fetch_ms;
            p.last_caught_up_ms = o->last_caught_up_ms;
            p.begin_acked = true;
        }
        if (o)
            *o = r->observers[--r->observer_count];
        r->voters[i] = p;
    }
    for (int j = 0; j < old_count; j++) /* removed: an observer now */
        if (kq_voter_set_find(set, old[j].id) < 0 && old[j].id != r->cfg.node_id) {
            raft_peer *o = raft_observer(r, old[j].id, true);
            if (o) {
                int32_t id = o->id;
                *o = old[j];
                o->id = id;
                o->out = (raft_outbound){0};
                o->removed_voter = true; /* RAFT_MUTANT_HW_COUNTS_REMOVED_VOTER */
            }
        }
    r->is_voter = raft_is_voter_replica(r, r->cfg.node_id, &r->cfg.directory_id);
    if (!same)
        out->voters_changed = true;
}

/* A candidate or prospective node that is no longer a voter (a change
 * it fetched, or a truncation reverting one) stops standing: unattached,
 * as an observer, in its epoch (Kafka: observers never stand). */
static void leave_election(raft *r, raft_output *out)
{
    if (!r->is_voter && (r->role == RAFT_ROLE_CANDIDATE || r->role == RAFT_ROLE_PROSPECTIVE))
        raft_become_unattached(r, out, r->q.epoch, "no longer a voter");
}

void raft_voters_apply(raft *r, raft_output *out)
{
    apply(r, out);
}

/* Entries at or below the high watermark (and the log start) are final:
 * all but the last of them fold away. */
static void fold(raft *r)
{
    int64_t final = r->high_watermark > r->log_start ? r->high_watermark : r->log_start;
    int last_final = -1;
    for (int i = 0; i < r->vh_count; i++)
        if (r->vh[i].offset < final)
            last_final = i;
    if (last_final <= 0)
        return;
    memmove(&r->vh[0], &r->vh[last_final],
            sizeof(raft_voter_entry) * (size_t)(r->vh_count - last_final));
    r->vh_count -= last_final;
}

bool raft_voters_room(raft *r)
{
    fold(r);
    return r->vh_count < RAFT_VOTER_HISTORY_MAX;
}

void raft_voters_push(raft *r, raft_output *out, const raft_voter_entry *e)
{
    KQ_ASSERT(raft_voters_room(r)); /* callers asked first */
    KQ_ASSERT(r->vh_count == 0 || r->vh[r->vh_count - 1].offset <= e->offset);
    r->vh[r->vh_count++] = *e;
    apply(r, out);
    leave_election(r, out);
}

void raft_voters_truncate(raft *r, raft_output *out, int64_t end_offset)
{
    int n = r->vh_count;
    while (n > 0 && r->vh[n - 1].offset >= end_offset)
        n--;
    if (n == r->vh_count)
        return;
    r->vh_count = n;
    apply(r, out);
    leave_election(r, out);
}

void raft_voters_reset(raft *r, raft_output *out, const raft_voter_entry *e)
{
    r->vh_count = 0;
    if (e)
        r->vh[r->vh_count++] = *e;
    apply(r, out);
    leave_election(r, out);
}

/* One KRaftVersion or Voters record of a batch being appended: the entry
 * it makes (the other half carried from the one before). */
typedef struct scan_ctx {
    raft *r;
    raft_voter_entry *entries; /* RAFT_VOTER_HISTORY_MAX */
    int count;
    const char *why;
} scan_ctx;

static int scan_one(void *ctx, int64_t offset, int type, kq_slice value)
{
    scan_ctx *c = ctx;
    if (c->count == RAFT_VOTER_HISTORY_MAX) {
        c->why = "more voter changes than the history holds";
        return 1;
    }
    raft_voter_entry e;
    if (c->count > 0)
        e = c->entries[c->count - 1];
    else if (c->r->vh_count > 0)
        e = c->r->vh[c->r->vh_count - 1];
    else
        e = (raft_voter_entry){.kraft_version = 0};
    e.offset = offset;
    const char *why = type == RECORD_CONTROL_VOTERS ? record_parse_voters(value, &e.voters)
                                                    : record_parse_kraft_version(value, &e.kraft_version);
    if (why) {
        c->why = why;
        return 1;
    }
    if (type == RECORD_CONTROL_VOTERS)
        e.has_voters = true;
    c->entries[c->count++] = e;
    return 0;
}

int raft_voters_scan(raft *r, const uint8_t *batch, size_t len, raft_voter_entry *entries,
                     const char **why)
{
    scan_ctx c = {.r = r, .entries = entries};
    if (record_scan_voter_records(batch, len, scan_one, &c) != 0) {
        *why = c.why ? c.why : "a control batch whose records do not parse";
        return -1;
    }
    return c.count;
}

bool raft_voters_from_bootstrap(const raft *r)
{
    for (int i = r->vh_count - 1; i >= 0; i--)
        if (r->vh[i].has_voters)
            return r->vh[i].offset < 0;
    return false;
}

bool raft_voters_committed(const raft *r)
{
    for (int i = r->vh_count - 1; i >= 0; i--)
        if (r->vh[i].has_voters)
            return r->vh[i].offset < r->high_watermark;
    return true; /* static voters */
}
