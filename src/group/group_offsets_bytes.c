/* The offsets table's size in bytes (include/kq/group_offsets.h): the cost
 * of an entry and the admission checks (ordinary and transactional commits)
 * that keep the state at the log end within KQ_GROUP_OFFSETS_BYTES_MAX,
 * hence within one snapshot. */
#include <string.h>

#include "group_offsets_internal.h"

uint64_t group_offsets_entry_bytes(const group_offset *e)
{
    uint64_t n = KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES;
    n += e->group_id ? strlen(e->group_id) : 0;
    n += e->topic ? strlen(e->topic) : 0;
    n += e->metadata ? strlen(e->metadata) : 0;
    return n;
}

uint64_t group_offsets_bytes(const group_offsets *o)
{
    return o->committed_bytes + o->pending_bytes + o->txn_bytes;
}

bool group_offsets_admits(const group_offsets *o, const group_offset *e, uint64_t extra)
{
    uint64_t now = group_offsets_bytes(o) + extra;
    uint64_t cost = group_offsets_entry_bytes(e);
    const go_entry *old = NULL;
    if (e->group_id && e->topic)
        old = go_map_find(&o->committed, e->group_id, e->topic, e->partition,
                          go_key_hash(e->group_id, e->topic, e->partition));
    /* The replaced committed entry is counted in now; once this commit is
     * applied it is gone (a pending one of the same key stays counted:
     * an upper bound until it is applied). */
    uint64_t freed = old ? old->cost : 0;
    return now - freed + cost <= KQ_GROUP_OFFSETS_BYTES_MAX;
}

bool group_offsets_admits_txn(const group_offsets *o, const group_offset *e, uint64_t extra)
{
    /* Nothing freed: while stashed, the key's committed entry stays in a
     * snapshot beside the "kq.txn-offset" record. */
    uint64_t cost = group_offsets_entry_bytes(e) + KQ_TXN_OFFSET_EXTRA_BYTES;
    return group_offsets_bytes(o) + extra + cost <= KQ_GROUP_OFFSETS_BYTES_MAX;
}
