/* `no-client-control` (issue 19): no control batch a client wrote is ever
 * appended to any node's log. The hostile producer (w_client_hostile.c)
 * reports the CRC of every control batch it sends (the CRC covers the
 * attributes and the records; BaseOffset and PartitionLeaderEpoch, which a
 * leader rewrites, are outside it); every APPEND action of every node,
 * leader or follower, is walked before it is carried out. */
#include <stdlib.h>

#include "kq/assert.h"
#include "kq/record.h"
#include "w_check_internal.h"

void w_check_on_client_control(w_world *w, uint32_t crc)
{
    struct w_check *c = w->check;
    if (c->client_control_n == c->client_control_cap) {
        size_t cap = c->client_control_cap ? 2 * c->client_control_cap : 64;
        uint32_t *a = realloc(c->client_control, cap * sizeof(*a));
        KQ_ASSERT(a);
        c->client_control = a;
        c->client_control_cap = cap;
    }
    c->client_control[c->client_control_n++] = crc;
}

static bool client_wrote(const struct w_check *c, uint32_t crc)
{
    for (size_t i = 0; i < c->client_control_n; i++)
        if (c->client_control[i] == crc)
            return true;
    return false;
}

void w_check_control_on_append(w_world *w, int node, const raft_action *a)
{
    struct w_check *c = w->check;
    if (a->type != RAFT_ACTION_APPEND || c->client_control_n == 0 ||
        !w_check_on(w, W_INV_NO_CLIENT_CONTROL))
        return;
    size_t pos = 0;
    while (pos < a->append.len) {
        record_batch_header h;
        if (record_batch_parse_header(a->append.records + pos, a->append.len - pos, &h) !=
            RECORD_OK)
            return; /* not ours to judge: the other checks see a bad append */
        if (record_batch_is_control(&h) && client_wrote(c, h.crc)) {
            w_inv_fail(w, W_INV_NO_CLIENT_CONTROL,
                       "node %d appends a control batch a client wrote (CRC %08x, %s append)",
                       node + 1, (unsigned)h.crc, a->append.base_offset >= 0 ? "leader" : "follower");
            return;
        }
        pos += record_batch_size(&h);
    }
}

void w_check_control_free(struct w_check *c)
{
    free(c->client_control);
}
