/* The response memory budget's decisions (kq/budget.h). */
#include "kq/budget.h"

#include "kq/assert.h"
#include "kq/limits.h"
#include "kq/mutants.h"

void kq_budget_init(kq_budget *b, uint64_t bytes_max, uint64_t conn_bytes_max, uint32_t mutants)
{
    *b = (kq_budget){0};
    b->bytes_max = bytes_max ? bytes_max : KQ_QUEUED_RESPONSE_BYTES_DEFAULT;
    b->conn_bytes_max = conn_bytes_max ? conn_bytes_max : KQ_CONN_WRITE_QUEUE_BYTES_MAX;
    b->quorum_bytes = b->bytes_max / KQ_RESPONSE_QUORUM_SHARE_DIV;
    if (mutants & KQ_MUTANT_QUORUM_NO_RESERVE)
        b->quorum_bytes = 0;
    /* A small budget (tests, the simulator) keeps headroom in proportion. */
    b->headroom_bytes = KQ_RESPONSE_HEADROOM_BYTES;
    if (b->headroom_bytes > b->bytes_max / 8)
        b->headroom_bytes = b->bytes_max / 8;
    b->mutants = mutants;
}

void kq_budget_conn_open(kq_budget *b, enum kq_budget_class cls)
{
    KQ_ASSERT(cls < KQ_BUDGET_CLASSES);
    b->conns[cls]++;
}

void kq_budget_conn_close(kq_budget *b, enum kq_budget_class cls)
{
    KQ_ASSERT(cls < KQ_BUDGET_CLASSES && b->conns[cls] > 0);
    b->conns[cls]--;
}

uint64_t kq_budget_used(const kq_budget *b)
{
    return b->used[KQ_BUDGET_CLIENT] + b->used[KQ_BUDGET_QUORUM];
}

void kq_budget_charge(kq_budget *b, enum kq_budget_class cls, uint64_t bytes)
{
    KQ_ASSERT(cls < KQ_BUDGET_CLASSES);
    b->used[cls] += bytes;
    uint64_t used = kq_budget_used(b);
    if (used > b->peak)
        b->peak = used;
}

void kq_budget_release(kq_budget *b, enum kq_budget_class cls, uint64_t bytes)
{
    KQ_ASSERT(cls < KQ_BUDGET_CLASSES && b->used[cls] >= bytes);
    b->used[cls] -= bytes;
    b->released += bytes;
}

void kq_budget_conn_move(kq_budget *b, enum kq_budget_class from, enum kq_budget_class to,
                         uint64_t conn_bytes)
{
    KQ_ASSERT(from < KQ_BUDGET_CLASSES && to < KQ_BUDGET_CLASSES);
    KQ_ASSERT(b->conns[from] > 0 && b->used[from] >= conn_bytes);
    b->conns[from]--;
    b->conns[to]++;
    b->used[from] -= conn_bytes;
    b->used[to] += conn_bytes;
}

uint64_t kq_budget_class_max(const kq_budget *b, enum kq_budget_class cls)
{
    return cls == KQ_BUDGET_QUORUM ? b->bytes_max : b->bytes_max - b->quorum_bytes;
}

/* Clients are held to their share; the quorum to what is left of the whole
 * (so the sum never passes bytes_max). */
uint64_t kq_budget_room(const kq_budget *b, enum kq_budget_class cls)
{
    uint64_t used = kq_budget_used(b);
    uint64_t room = used < b->bytes_max ? b->bytes_max - used : 0;
    if (cls == KQ_BUDGET_CLIENT) {
        uint64_t max = kq_budget_class_max(b, cls);
        uint64_t mine = b->used[cls] < max ? max - b->used[cls] : 0;
        if (mine < room)
            room = mine;
    }
    return room;
}

static bool per_connection_only(const kq_budget *b)
{
    return (b->mutants & KQ_MUTANT_PER_CONNECTION_BUDGET_ONLY) != 0;
}

bool kq_budget_may_read(kq_budget *b, enum kq_budget_class cls, uint64_t conn_bytes)
{
    KQ_ASSERT(cls < KQ_BUDGET_CLASSES);
    if (conn_bytes >= b->conn_bytes_max)
        return false;
    uint64_t room = kq_budget_room(b, cls);
    if (per_connection_only(b) || room > b->headroom_bytes)
        return true;
    /* Within the headroom: only light connections (a fresh ApiVersions),
     * never the heavy ones that filled the budget (no Fetch data is granted
     * there). At the limit: only a connection holding nothing, so that a new
     * client is still answered during a flood of unread Fetches while the
     * heavy ones cannot creep into the quorum's share (issue 19 item 4). */
    if (conn_bytes == 0 || (room > 0 && conn_bytes < b->headroom_bytes / KQ_RESPONSE_LIGHT_CONN_DIV))
        return true;
    b->reads_refused++;
    return false;
}

uint64_t kq_budget_grant(kq_budget *b, enum kq_budget_class cls, uint64_t conn_bytes,
                         uint64_t want)
{
    KQ_ASSERT(cls < KQ_BUDGET_CLASSES);
    uint64_t grant = want;
    uint64_t conn_room = conn_bytes < b->conn_bytes_max ? b->conn_bytes_max - conn_bytes : 0;
    if (grant > conn_room)
        grant = conn_room;
    if (!per_connection_only(b)) {
        uint64_t room = kq_budget_room(b, cls);
        room = room > b->headroom_bytes ? room - b->headroom_bytes : 0;
        if (grant > room)
            grant = room;
    }
    if (grant < want)
        b->grants_cut++;
    return grant;
}
