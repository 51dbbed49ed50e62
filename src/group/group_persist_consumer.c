/* The consumer protocol's (KIP-848) part of membership through the log
 * (issue 24; kq/group_store.h): the records of changed consumer groups for
 * a take, and the load of a stored consumer group. A stub until the
 * consumer module persists its groups: its changes are not taken and its
 * records are not loaded (the module replaces these bodies; see
 * /work/notes/persist-api.md). */
#include "group_internal.h"

int gc_take_consumer_changes(group_coord *c, group_store_batch *b)
{
    (void)c;
    (void)b;
    return 0;
}

bool gc_restore_consumer_group(group_coord *c, const group_store *s, int gi, int64_t now_ms)
{
    (void)c;
    (void)s;
    (void)gi;
    (void)now_ms;
    return false;
}
