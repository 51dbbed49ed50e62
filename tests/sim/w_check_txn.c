/* Transactions (issue 23, KIP-98): the checker's model of the committed
 * record and the five txn-* invariants (README "Invariants").
 *
 * The model follows the batches of the committed record (w_check.c records
 * each once, in offset order, as a HW passes it) the way Kafka's
 * ProducerStateManager does: a transactional data batch opens its
 * producer's transaction at its base offset unless one is open, a COMMIT or
 * ABORT marker closes it; a transactional OffsetCommit batch stashes its
 * offsets for the producer's marker. So at any moment it knows, for every
 * transactional record below the highest HW, its transaction, and whether
 * that one's marker is committed and what it decided. Record values of the
 * transactional producers name (client, transaction, record)
 * (w_client.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/group_offset_codec.h"
#include "kq/group_offsets.h"
#include "kq/record.h"
#include "kq/txn.h"
#include "w_check_internal.h"
#include "w_client.h"

#define WT_TIDS_MAX SIM_CLIENTS_MAX
#define WT_GROUP_BYTES 16

typedef struct wt_txn {
    int64_t pid;
    int64_t first;  /* its first data batch */
    int64_t marker; /* -1: none in the committed record yet */
    bool commit;
    int nvals;      /* its records */
} wt_txn;

typedef struct wt_stashed {
    char group[WT_GROUP_BYTES];
    int64_t value;
} wt_stashed;

typedef struct wt_pid {
    int64_t pid;
    int16_t epoch; /* the highest its state records and markers gave */
    int open;      /* its open transaction (index), -1 */
    wt_stashed *stash;
    size_t stash_n, stash_cap;
} wt_pid;

typedef struct wt_offset {
    char group[WT_GROUP_BYTES];
    int64_t value;
    int64_t marker;
    bool commit;
} wt_offset;

typedef struct wt_reader {
    bool used;
    int64_t start;     /* it has read every offset from here on */
    int64_t pos;
    int32_t *counts;   /* records read, per transaction */
    size_t counts_cap;
    size_t low;        /* transactions below are settled for it */
} wt_reader;

typedef struct wt_grant {
    int64_t pid;
    int16_t epoch;
} wt_grant;

struct w_txn_check {
    wt_txn *txns;
    size_t txn_n, txn_cap;
    size_t settled;        /* txns[0, settled) all have their marker */
    int64_t settled_max;   /* the highest marker among them */
    uint64_t *map_keys;    /* value + 1 -> index in txns (open addressing) */
    int32_t *map_vals;
    size_t map_cap, map_n;
    wt_pid *pids;
    size_t pid_n, pid_cap;
    wt_offset *offsets;    /* offsets decided by markers, in marker order */
    size_t offset_n, offset_cap;
    int client_tid[SIM_CLIENTS_MAX]; /* -1: no transactional producer */
    wt_grant *grants[WT_TIDS_MAX];   /* InitProducerId answers, per id */
    size_t grant_n[WT_TIDS_MAX], grant_cap[WT_TIDS_MAX];
    int64_t floor[WT_TIDS_MAX];      /* marker of the last commit with offsets answered */
    wt_reader readers[SIM_CLIENTS_MAX];
};

static void *wt_grow(void *p, size_t *cap, size_t size, size_t min)
{
    *cap = *cap ? *cap * 2 : min;
    p = realloc(p, *cap * size);
    KQ_ASSERT(p);
    return p;
}

static struct w_txn_check *wt_get(w_world *w)
{
    struct w_check *c = w->check;
    if (!c->txn) {
        c->txn = calloc(1, sizeof(*c->txn));
        KQ_ASSERT(c->txn);
        for (int i = 0; i < SIM_CLIENTS_MAX; i++)
            c->txn->client_tid[i] = -1;
        for (int i = 0; i < WT_TIDS_MAX; i++)
            c->txn->floor[i] = -1;
        c->txn->settled_max = -1;
    }
    return c->txn;
}

void w_check_txn_free(struct w_check *c)
{
    struct w_txn_check *t = c->txn;
    if (!t)
        return;
    for (size_t i = 0; i < t->pid_n; i++)
        free(t->pids[i].stash);
    for (int i = 0; i < WT_TIDS_MAX; i++)
        free(t->grants[i]);
    for (int i = 0; i < SIM_CLIENTS_MAX; i++)
        free(t->readers[i].counts);
    free(t->txns);
    free(t->map_keys);
    free(t->map_vals);
    free(t->pids);
    free(t->offsets);
    free(t);
    c->txn = NULL;
}

/* The model is fed by the committed-data scan: without it, nothing to say. */
static bool wt_on(w_world *w, enum w_check_id id)
{
    return (w->p.checks & (UINT64_C(1) << W_INV_COMMITTED_DATA)) && w_check_on(w, id);
}

/* ---- the value map */

static size_t wt_slot(const struct w_txn_check *t, uint64_t key)
{
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (t->map_cap - 1);
    while (t->map_keys[i] && t->map_keys[i] != key)
        i = (i + 1) & (t->map_cap - 1);
    return i;
}

static void wt_map_put(struct w_txn_check *t, uint64_t value, int32_t txn)
{
    if ((t->map_n + 1) * 2 > t->map_cap) {
        uint64_t *keys = t->map_keys;
        int32_t *vals = t->map_vals;
        size_t cap = t->map_cap;
        t->map_cap = cap ? cap * 2 : 1024;
        t->map_keys = calloc(t->map_cap, sizeof(*t->map_keys));
        t->map_vals = calloc(t->map_cap, sizeof(*t->map_vals));
        KQ_ASSERT(t->map_keys && t->map_vals);
        for (size_t i = 0; i < cap; i++)
            if (keys[i]) {
                size_t s = wt_slot(t, keys[i]);
                t->map_keys[s] = keys[i];
                t->map_vals[s] = vals[i];
            }
        free(keys);
        free(vals);
    }
    size_t s = wt_slot(t, value + 1);
    if (!t->map_keys[s])
        t->map_n++;
    t->map_keys[s] = value + 1;
    t->map_vals[s] = txn;
}

/* The transaction holding value in the committed record, or NULL. */
static const wt_txn *wt_txn_of(const struct w_txn_check *t, uint64_t value)
{
    if (!t->map_cap)
        return NULL;
    size_t s = wt_slot(t, value + 1);
    return t->map_keys[s] ? &t->txns[t->map_vals[s]] : NULL;
}

/* ---- the model */

static wt_pid *wt_pid_of(struct w_txn_check *t, int64_t pid)
{
    for (size_t i = 0; i < t->pid_n; i++)
        if (t->pids[i].pid == pid)
            return &t->pids[i];
    if (t->pid_n == t->pid_cap)
        t->pids = wt_grow(t->pids, &t->pid_cap, sizeof(*t->pids), 8);
    t->pids[t->pid_n] = (wt_pid){.pid = pid, .epoch = -1, .open = -1};
    return &t->pids[t->pid_n++];
}

static void wt_settle(struct w_txn_check *t)
{
    while (t->settled < t->txn_n && t->txns[t->settled].marker >= 0) {
        if (t->txns[t->settled].marker > t->settled_max)
            t->settled_max = t->txns[t->settled].marker;
        t->settled++;
    }
}

static void wt_on_marker(struct w_txn_check *t, int64_t pid, int16_t epoch, bool commit,
                         int64_t offset)
{
    wt_pid *p = wt_pid_of(t, pid);
    if (epoch > p->epoch)
        p->epoch = epoch;
    if (p->open >= 0) {
        t->txns[p->open].marker = offset;
        t->txns[p->open].commit = commit;
        p->open = -1;
        wt_settle(t);
    }
    for (size_t i = 0; i < p->stash_n; i++) {
        if (t->offset_n == t->offset_cap)
            t->offsets = wt_grow(t->offsets, &t->offset_cap, sizeof(*t->offsets), 64);
        wt_offset *o = &t->offsets[t->offset_n++];
        memcpy(o->group, p->stash[i].group, sizeof(o->group));
        o->value = p->stash[i].value;
        o->marker = offset;
        o->commit = commit;
    }
    p->stash_n = 0;
}

/* A transactional data batch: its producer's epoch must not be one a
 * later InitProducerId (or a timeout's abort) fenced. */
static void wt_on_data(w_world *w, struct w_txn_check *t, const uint8_t *b, size_t len,
                       const record_batch_header *h)
{
    wt_pid *p = wt_pid_of(t, h->producer_id);
    if (h->producer_epoch < p->epoch && wt_on(w, W_INV_TXN_FENCED_NO_APPEND))
        w_inv_fail(w, W_INV_TXN_FENCED_NO_APPEND,
                   "producer %lld's batch at %lld carries epoch %d, after its epoch %d in the "
                   "committed log", (long long)h->producer_id, (long long)h->base_offset,
                   h->producer_epoch, p->epoch);
    if (p->open < 0) {
        if (t->txn_n == t->txn_cap)
            t->txns = wt_grow(t->txns, &t->txn_cap, sizeof(*t->txns), 64);
        t->txns[t->txn_n] = (wt_txn){.pid = h->producer_id, .first = h->base_offset,
                                     .marker = -1};
        p = wt_pid_of(t, h->producer_id); /* stable: no pid added since */
        p->open = (int)t->txn_n++;
    }
    record_iter it;
    if (record_iter_open(&it, b, len) != RECORD_OK)
        return;
    record rec;
    while (record_iter_next(&it, &rec)) {
        if (rec.value.len != 8)
            continue;
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | rec.value.ptr[i];
        wt_map_put(t, v, p->open);
        t->txns[p->open].nvals++;
    }
    record_iter_close(&it);
}

/* Our control records: a transactional id's state (its epoch fences the
 * older ones), a transactional offset commit (stashed until the marker). */
static void wt_on_control(struct w_txn_check *t, const uint8_t *b, size_t len,
                          const record_batch_header *h)
{
    record_iter it;
    if (record_iter_open(&it, b, len) != RECORD_OK)
        return;
    record rec;
    bool txn = (h->attributes & RECORD_ATTR_TRANSACTIONAL) && h->producer_id >= 0;
    while (record_iter_next(&it, &rec)) {
        int type = record_control_type(rec.key);
        if (type == KQ_CONTROL_TXN) {
            txn_entry_value e;
            if (txn_read_entry_value_copy(rec.value, &e) == NULL) {
                wt_pid *p = wt_pid_of(t, e.entry.producer_id);
                if (e.entry.producer_epoch > p->epoch)
                    p->epoch = e.entry.producer_epoch;
            }
        } else if (type == KQ_CONTROL_OFFSET_COMMIT && txn) {
            group_offset_value v;
            if (group_offset_read_value(rec.value, &v) != NULL)
                continue;
            wt_pid *p = wt_pid_of(t, h->producer_id);
            if (p->stash_n == p->stash_cap)
                p->stash = wt_grow(p->stash, &p->stash_cap, sizeof(*p->stash), 8);
            wt_stashed *s = &p->stash[p->stash_n++];
            memset(s->group, 0, sizeof(s->group));
            strncpy(s->group, v.entry.group_id, sizeof(s->group) - 1);
            s->value = v.entry.offset;
        }
    }
    record_iter_close(&it);
}

void w_check_txn_on_batch(w_world *w, const uint8_t *b, size_t len)
{
    record_batch_header h;
    if (record_batch_parse_header(b, len, &h) != RECORD_OK)
        return;
    struct w_txn_check *t = wt_get(w);
    int64_t pid;
    int16_t epoch;
    bool commit;
    if (record_batch_is_control(&h)) {
        if (txn_parse_marker(b, len, &pid, &epoch, &commit))
            wt_on_marker(t, pid, epoch, commit, h.base_offset);
        else
            wt_on_control(t, b, len, &h);
    } else if ((h.attributes & RECORD_ATTR_TRANSACTIONAL) && h.producer_id >= 0) {
        wt_on_data(w, t, b, len, &h);
    }
}

/* ---- the transactional producers */

void w_check_txn_on_client(w_world *w, int client, int tid)
{
    KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX && tid >= 0 && tid < WT_TIDS_MAX);
    wt_get(w)->client_tid[client] = tid;
}

/* txn-fenced-no-append, at the coordinator: every InitProducerId answer
 * for an id is a new (producer id, epoch), so that the one before is
 * fenced (an equal pair would let the older producer keep writing). */
void w_check_txn_on_init(w_world *w, int client, int tid, int64_t pid, int16_t epoch)
{
    struct w_txn_check *t = wt_get(w);
    KQ_ASSERT(tid >= 0 && tid < WT_TIDS_MAX);
    for (size_t i = 0; i < t->grant_n[tid]; i++)
        if (t->grants[tid][i].pid == pid && t->grants[tid][i].epoch == epoch &&
            wt_on(w, W_INV_TXN_FENCED_NO_APPEND)) {
            w_inv_fail(w, W_INV_TXN_FENCED_NO_APPEND,
                       "client %d: InitProducerId for tx%d answered producer %lld epoch %d, "
                       "which an earlier InitProducerId for it was given: that producer is "
                       "not fenced", client, tid, (long long)pid, epoch);
            return;
        }
    if (t->grant_n[tid] == t->grant_cap[tid])
        t->grants[tid] = wt_grow(t->grants[tid], &t->grant_cap[tid], sizeof(wt_grant), 16);
    t->grants[tid][t->grant_n[tid]++] = (wt_grant){pid, epoch};
}

static const wt_offset *wt_offset_find(const struct w_txn_check *t, const char *group,
                                       int64_t value, bool commit)
{
    const wt_offset *found = NULL;
    for (size_t i = 0; i < t->offset_n; i++)
        if (t->offsets[i].value == value && t->offsets[i].commit == commit &&
            strcmp(t->offsets[i].group, group) == 0)
            found = &t->offsets[i];
    return found; /* the latest decision */
}

/* txn-atomic at the producer: an EndTxn(commit) answered NONE has every
 * record it was acknowledged in one transaction whose COMMIT marker is
 * committed; txn-offsets: its offset commit too. */
void w_check_txn_on_committed(w_world *w, int client, const uint64_t *values, int count,
                              int64_t offset_value)
{
    struct w_txn_check *t = wt_get(w);
    const wt_txn *first = count > 0 ? wt_txn_of(t, values[0]) : NULL;
    for (int i = 0; i < count && wt_on(w, W_INV_TXN_ATOMIC); i++) {
        const wt_txn *x = wt_txn_of(t, values[i]);
        if (!x || x != first || x->marker < 0 || !x->commit)
            return (void)w_inv_fail(
                w, W_INV_TXN_ATOMIC,
                "client %d: EndTxn(commit) answered NONE, but its record %d of %d (value "
                "%#llx) is %s", client, i + 1, count, (unsigned long long)values[i],
                !x ? "not committed" : x != first ? "in another transaction"
                : x->marker < 0 ? "in a transaction without a committed marker"
                                : "in an aborted transaction");
    }
    int tid = t->client_tid[client];
    if (offset_value < 0 || tid < 0)
        return;
    char group[WT_GROUP_BYTES];
    snprintf(group, sizeof(group), "t%d", tid);
    const wt_offset *o = wt_offset_find(t, group, offset_value, true);
    if (!o && wt_on(w, W_INV_TXN_OFFSETS))
        w_inv_fail(w, W_INV_TXN_OFFSETS,
                   "client %d: EndTxn(commit) answered NONE, but its offset %lld of %s has no "
                   "committed COMMIT marker", client, (long long)offset_value, group);
    else if (o && o->marker > t->floor[tid])
        t->floor[tid] = o->marker;
}

int64_t w_check_txn_on_offset_fetch_sent(w_world *w, int tid)
{
    return tid >= 0 && tid < WT_TIDS_MAX ? wt_get(w)->floor[tid] : -1;
}

/* txn-offsets: an offset read back is one a COMMIT marker decided, never
 * one of an aborted transaction; and (offsets never expiring) not older
 * than the last commit acknowledged before the read was sent. */
void w_check_txn_on_offset_fetched(w_world *w, int client, int tid, int64_t floor,
                                   int64_t offset, int node)
{
    struct w_txn_check *t = wt_get(w);
    if (!wt_on(w, W_INV_TXN_OFFSETS))
        return;
    char group[WT_GROUP_BYTES];
    snprintf(group, sizeof(group), "t%d", tid);
    const wt_offset *o = offset >= 0 ? wt_offset_find(t, group, offset, true) : NULL;
    if (offset >= 0 && !o) {
        bool aborted = wt_offset_find(t, group, offset, false) != NULL;
        w_inv_fail(w, W_INV_TXN_OFFSETS,
                   "client %d: OffsetFetch of %s from node %d returned %lld, %s", client, group,
                   node + 1, (long long)offset,
                   aborted ? "the offset of an aborted transaction"
                           : "which no committed COMMIT marker decided");
        return;
    }
    bool expiring = w->cfg.group.offsets_retention_ms > 0;
    if (!expiring && floor >= 0 && (!o || o->marker < floor))
        w_inv_fail(w, W_INV_TXN_OFFSETS,
                   "client %d: OffsetFetch of %s from node %d returned %lld, older than the "
                   "commit whose marker at %lld was acknowledged before it was sent", client,
                   group, node + 1, (long long)offset, (long long)floor);
}

/* ---- read_committed consumers */

static wt_reader *wt_reader_of(struct w_txn_check *t, int client)
{
    KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX);
    wt_reader *r = &t->readers[client];
    r->used = true;
    return r;
}

/* txn-read-committed: a read_committed consumer reads a transactional
 * record only once its transaction's COMMIT marker is committed. */
void w_check_txn_on_rc_read(w_world *w, int client, int64_t offset, uint64_t value)
{
    struct w_txn_check *t = wt_get(w);
    int writer = (int)(value >> 56);
    if (writer < 0 || writer >= SIM_CLIENTS_MAX || t->client_tid[writer] < 0)
        return; /* not a transactional producer's */
    const wt_txn *x = wt_txn_of(t, value);
    if (wt_on(w, W_INV_TXN_READ_COMMITTED) && (!x || x->marker < 0 || !x->commit)) {
        w_inv_fail(w, W_INV_TXN_READ_COMMITTED,
                   "client %d read %#llx at %lld (client %d, transaction %llu): %s", client,
                   (unsigned long long)value, (long long)offset, writer,
                   (unsigned long long)((value >> 24) & 0xffffffff),
                   !x ? "not committed when read"
                   : x->marker < 0 ? "its transaction has no committed marker"
                                   : "its transaction was aborted");
        return;
    }
    if (!x)
        return;
    wt_reader *r = wt_reader_of(t, client);
    size_t i = (size_t)(x - t->txns);
    while (i >= r->counts_cap) {
        size_t old = r->counts_cap;
        r->counts = wt_grow(r->counts, &r->counts_cap, sizeof(*r->counts), 256);
        memset(r->counts + old, 0, (r->counts_cap - old) * sizeof(*r->counts));
    }
    r->counts[i]++;
}

/* txn-atomic at the consumer: once it has read past a committed
 * transaction's marker, having read everything from below its first
 * record, it has read all of it. */
void w_check_txn_on_rc_position(w_world *w, int client, int64_t next)
{
    struct w_txn_check *t = wt_get(w);
    wt_reader *r = wt_reader_of(t, client);
    r->pos = next;
    while (r->low < t->txn_n) {
        const wt_txn *x = &t->txns[r->low];
        if (x->marker < 0 || x->marker >= next)
            break;
        size_t i = r->low++;
        if (!x->commit || x->first < r->start || !wt_on(w, W_INV_TXN_ATOMIC))
            continue;
        int seen = i < r->counts_cap ? r->counts[i] : 0;
        if (seen != x->nvals) {
            w_inv_fail(w, W_INV_TXN_ATOMIC,
                       "read_committed client %d read %d of the %d records of producer %lld's "
                       "transaction at %lld committed at %lld, reading from %lld to %lld",
                       client, seen, x->nvals, (long long)x->pid, (long long)x->first,
                       (long long)x->marker, (long long)r->start, (long long)next);
            return;
        }
    }
}

void w_check_txn_on_rc_reset(w_world *w, int client, int64_t offset)
{
    wt_reader *r = wt_reader_of(wt_get(w), client);
    r->start = offset;
    r->pos = offset;
}

/* ---- txn-lso */

/* A Fetch answer told last stable offset lso at high watermark hw: no
 * transaction whose first record lies below lso may have its marker at or
 * above hw (or none): below hw the answering leader's log is the
 * committed record, so this is its log when it answered. */
void w_check_txn_on_lso(w_world *w, int client, int node, int64_t hw, int64_t lso)
{
    if (lso < 0 || !wt_on(w, W_INV_TXN_LSO))
        return;
    struct w_txn_check *t = wt_get(w);
    if (lso > hw) {
        w_inv_fail(w, W_INV_TXN_LSO, "client %d: node %d answered LSO %lld above its HW %lld",
                   client, node + 1, (long long)lso, (long long)hw);
        return;
    }
    size_t from = hw > t->settled_max ? t->settled : 0;
    for (size_t i = from; i < t->txn_n && t->txns[i].first < lso; i++) {
        const wt_txn *x = &t->txns[i];
        if (x->marker >= 0 && x->marker < hw)
            continue;
        w_inv_fail(w, W_INV_TXN_LSO,
                   "client %d: node %d answered LSO %lld at HW %lld, above producer %lld's "
                   "transaction at %lld whose marker is %s", client, node + 1, (long long)lso,
                   (long long)hw, (long long)x->pid, (long long)x->first,
                   x->marker < 0 ? "not below the HW" : "at or above the HW");
        return;
    }
}
