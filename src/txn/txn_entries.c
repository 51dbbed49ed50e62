/* The coordinator's entries (include/kq/txn.h): owned copies kept sorted
 * by transactional id (foreach, snapshots) and by producer id (markers,
 * txn_table_id_of), with binary searches. */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "txn_internal.h"

#define TXN_IDS_CAP_MIN 16

int txn_find_id(const txn_table *t, const char *id)
{
    int lo = 0, hi = t->id_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(t->by_id[mid]->e.transactional_id, id);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -lo - 1;
}

static int pid_cmp(const txn_ent *a, int64_t pid, const char *id)
{
    if (a->e.producer_id != pid)
        return a->e.producer_id < pid ? -1 : 1;
    return strcmp(a->e.transactional_id, id);
}

/* The first index in by_pid at or after (pid, id). */
static int pid_lower(const txn_table *t, int n, int64_t pid, const char *id)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pid_cmp(t->by_pid[mid], pid, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void ent_free(txn_ent *x)
{
    if (!x)
        return;
    free((char *)x->e.transactional_id);
    for (int i = 0; i < x->e.group_count; i++)
        free((char *)x->e.groups[i]);
    free(x);
}

static txn_ent *ent_new(const txn_entry *e)
{
    txn_ent *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->e = *e;
    x->e.transactional_id = strdup(e->transactional_id);
    bool ok = x->e.transactional_id != NULL;
    for (int i = 0; i < e->group_count; i++) {
        x->e.groups[i] = strdup(e->groups[i]);
        ok = ok && x->e.groups[i];
    }
    for (int i = e->group_count; i < KQ_TXN_GROUPS_MAX; i++)
        x->e.groups[i] = NULL;
    if (!ok) {
        ent_free(x);
        return NULL;
    }
    x->cost = txn_entry_bytes(&x->e);
    return x;
}

static bool grow(txn_table *t)
{
    if (t->id_count < t->id_cap)
        return true;
    int cap = t->id_cap ? 2 * t->id_cap : TXN_IDS_CAP_MIN;
    txn_ent **a = realloc(t->by_id, sizeof(*a) * (size_t)cap);
    if (!a)
        return false;
    t->by_id = a;
    txn_ent **b = realloc(t->by_pid, sizeof(*b) * (size_t)cap);
    if (!b)
        return false;
    t->by_pid = b;
    t->id_cap = cap;
    return true;
}

static void pid_unlink(txn_table *t, const txn_ent *x)
{
    int i = pid_lower(t, t->id_count, x->e.producer_id, x->e.transactional_id);
    KQ_ASSERT(i < t->id_count && t->by_pid[i] == x);
    memmove(&t->by_pid[i], &t->by_pid[i + 1], sizeof(*t->by_pid) * (size_t)(t->id_count - i - 1));
}

/* by_pid holds id_count - 1 entries: x goes in its place. */
static void pid_link(txn_table *t, txn_ent *x)
{
    int n = t->id_count - 1;
    int i = pid_lower(t, n, x->e.producer_id, x->e.transactional_id);
    KQ_ASSERT(i <= n);
    memmove(&t->by_pid[i + 1], &t->by_pid[i], sizeof(*t->by_pid) * (size_t)(n - i));
    t->by_pid[i] = x;
}

static void account(txn_table *t, const txn_ent *x, int sign)
{
    if (sign > 0) {
        t->entry_bytes += x->cost;
        t->ongoing += x->e.state == TXN_ONGOING;
    } else {
        KQ_ASSERT(t->entry_bytes >= x->cost);
        t->entry_bytes -= x->cost;
        t->ongoing -= x->e.state == TXN_ONGOING;
    }
}

bool txn_upsert(txn_table *t, const txn_entry *e)
{
    if (!grow(t))
        return false;
    txn_ent *x = ent_new(e);
    if (!x)
        return false;
    int i = txn_find_id(t, e->transactional_id);
    if (i >= 0) {
        txn_ent *old = t->by_id[i];
        account(t, old, -1);
        pid_unlink(t, old);
        t->by_id[i] = x;
        pid_link(t, x);
        ent_free(old);
    } else {
        i = -i - 1;
        memmove(&t->by_id[i + 1], &t->by_id[i], sizeof(*t->by_id) * (size_t)(t->id_count - i));
        t->by_id[i] = x;
        t->id_count++;
        pid_link(t, x);
    }
    account(t, x, 1);
    return true;
}

bool txn_remove(txn_table *t, const char *id)
{
    int i = txn_find_id(t, id);
    if (i < 0)
        return false;
    txn_ent *x = t->by_id[i];
    account(t, x, -1);
    pid_unlink(t, x);
    memmove(&t->by_id[i], &t->by_id[i + 1], sizeof(*t->by_id) * (size_t)(t->id_count - i - 1));
    t->id_count--;
    ent_free(x);
    return true;
}

int txn_complete_entries(txn_table *t, int64_t pid, int16_t epoch, bool commit,
                         int64_t timestamp_ms)
{
    int n = 0;
    for (int i = pid_lower(t, t->id_count, pid, ""); i < t->id_count && t->by_pid[i]->e.producer_id == pid;
         i++, n++) {
        txn_ent *x = t->by_pid[i];
        account(t, x, -1);
        x->e.state = commit ? TXN_COMPLETE_COMMIT : TXN_COMPLETE_ABORT;
        x->e.partition_added = false;
        for (int g = 0; g < x->e.group_count; g++) {
            free((char *)x->e.groups[g]);
            x->e.groups[g] = NULL;
        }
        x->e.group_count = 0;
        x->e.start_timestamp_ms = -1;
        x->e.update_timestamp_ms = timestamp_ms;
        if (epoch > x->e.producer_epoch)
            x->e.producer_epoch = epoch;
        x->cost = txn_entry_bytes(&x->e);
        account(t, x, 1);
    }
    return n;
}

void txn_entries_free(txn_table *t)
{
    for (int i = 0; i < t->id_count; i++)
        ent_free(t->by_id[i]);
    free(t->by_id);
    free(t->by_pid);
    t->by_id = t->by_pid = NULL;
    t->id_count = t->id_cap = t->ongoing = 0;
    t->entry_bytes = 0;
}

bool txn_table_get(const txn_table *t, const char *transactional_id, txn_entry *out)
{
    if (!transactional_id)
        return false;
    int i = txn_find_id(t, transactional_id);
    if (i >= 0 && out)
        *out = t->by_id[i]->e;
    return i >= 0;
}

const char *txn_table_id_of(const txn_table *t, int64_t pid)
{
    int i = pid_lower(t, t->id_count, pid, "");
    return i < t->id_count && t->by_pid[i]->e.producer_id == pid
               ? t->by_pid[i]->e.transactional_id
               : NULL;
}

int txn_table_foreach(const txn_table *t, txn_entry_cb cb, void *ctx)
{
    for (int i = 0; i < t->id_count; i++) {
        int rc = cb(ctx, &t->by_id[i]->e);
        if (rc)
            return rc;
    }
    return 0;
}

int txn_table_count(const txn_table *t)
{
    return t->id_count;
}

int txn_table_ongoing_count(const txn_table *t)
{
    return t->ongoing;
}
