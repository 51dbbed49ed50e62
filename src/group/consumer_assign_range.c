/* The "range" server-side assignor (Kafka's RangeAssignor): members sorted
 * (static members by instance id first, then the others by member id);
 * each topic's partitions cut into consecutive ranges, one per member
 * subscribed to it, the first (partitions % members) ranges one longer.
 * Not sticky: the target follows from the members and topics alone. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

int32_t ca_partitions_of(const cassign *a, const uint8_t id[16])
{
    for (int i = 0; i < a->meta_count; i++)
        if (memcmp(a->meta[i].id, id, 16) == 0)
            return a->meta[i].partitions;
    return -1;
}

static int member_cmp(const void *pa, const void *pb)
{
    const cmember *a = (*(const cassign_member *const *)pa)->m;
    const cmember *b = (*(const cassign_member *const *)pb)->m;
    bool sa = a->instance_id[0] != '\0', sb = b->instance_id[0] != '\0';
    if (sa && sb)
        return strcmp(a->instance_id, b->instance_id);
    if (sa != sb)
        return sa ? -1 : 1;
    return strcmp(a->id, b->id);
}

static bool subscribes(const cassign_member *am, const uint8_t id[16])
{
    for (int i = 0; i < am->id_count; i++)
        if (memcmp(am->ids[i], id, 16) == 0)
            return true;
    return false;
}

/* One topic: its ranges to the subscribed members in sorted order. */
static bool assign_topic(cassign_member **sorted, int n, const cmeta *t)
{
    int members = 0;
    for (int i = 0; i < n; i++)
        members += subscribes(sorted[i], t->id);
    if (members == 0)
        return true;
    int quota = t->partitions / members, extra = t->partitions % members, next = 0;
    for (int i = 0; i < n; i++) {
        if (!subscribes(sorted[i], t->id))
            continue;
        int end = next + quota + (extra > 0 ? 1 : 0);
        if (extra > 0)
            extra--;
        for (; next < end && next < t->partitions; next++)
            if (!cs_add(&sorted[i]->next, t->id, next))
                return false;
    }
    return true;
}

bool ca_range(cassign *a)
{
    if (a->member_count == 0)
        return true;
    cassign_member **sorted = malloc((size_t)a->member_count * sizeof(*sorted));
    if (!sorted)
        return false;
    for (int i = 0; i < a->member_count; i++)
        sorted[i] = &a->members[i];
    qsort(sorted, (size_t)a->member_count, sizeof(*sorted), member_cmp);
    bool ok = true;
    for (int t = 0; ok && t < a->meta_count; t++)
        ok = assign_topic(sorted, a->member_count, &a->meta[t]);
    free(sorted);
    return ok;
}
