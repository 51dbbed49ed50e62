/* Asking each peer for its client listener (issue 9), so that Metadata
 * sends clients to the client listeners and not to the controller ones
 * (kq/handler.h, handler_encode_endpoint_request). One request per peer in
 * flight; again after EXEC_ENDPOINT_RETRY_MS on a failure and every
 * EXEC_ENDPOINT_REFRESH_MS after an answer. The tag is even (the relay
 * class) with the relay slot field set to EXEC_ENDPOINT_TAG_SLOT, which no
 * relay uses, and the voter index above it. */
#include <stdlib.h>

#include "exec_peer.h"
#include "kq/assert.h"

/* Bits 8-15 the voter index, 16 and up the request's kind: 0 the client
 * endpoint, 1 + k listener cfg.client_listeners[k] (issue 19). */
static uint64_t endpoint_tag(int voter_index, int kind)
{
    return ((uint64_t)kind << 16) | ((uint64_t)voter_index << 8) |
           ((uint64_t)EXEC_ENDPOINT_TAG_SLOT << 1);
}

bool exec_tag_is_endpoint(uint64_t tag)
{
    return (tag & 1u) == 0 && ((tag >> 1) & 0x7f) == EXEC_ENDPOINT_TAG_SLOT;
}

static void ask_one(kq_exec *x, int i, int kind, int64_t now)
{
    int32_t id = x->cfg.voters[i].node_id;
    if (x->peers->endpoint_inflight[i][kind] || now < x->peers->endpoint_due_ms[i][kind])
        return;
    x->peers->endpoint_due_ms[i][kind] = now + EXEC_ENDPOINT_RETRY_MS;
    uint8_t *data = NULL;
    size_t len = 0;
    int32_t corr = x->peers->next_correlation_id;
    x->peers->next_correlation_id = corr == INT32_MAX ? 1 : corr + 1;
    if (!handler_encode_endpoint_request(x->handler, corr, kind - 1, &data, &len))
        return;
    if (x->env.peer_send(x->env.ctx, id, corr, data, len, endpoint_tag(i, kind)))
        x->peers->endpoint_inflight[i][kind] = true;
    free(data);
}

void exec_ask_endpoints(kq_exec *x)
{
    if (!x->cfg.discover_client_endpoints)
        return;
    int64_t now = exec_now(x);
    for (int i = 0; i < x->cfg.voter_count; i++) {
        if (x->cfg.voters[i].node_id == x->cfg.node_id)
            continue;
        for (int kind = 0; kind <= x->cfg.client_listener_count; kind++)
            ask_one(x, i, kind, now);
    }
}

void exec_endpoint_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                            size_t len)
{
    int i = (int)((tag >> 8) & 0xff);
    int kind = (int)(tag >> 16);
    KQ_ASSERT(i >= 0 && i < x->cfg.voter_count && x->cfg.voters[i].node_id == node_id);
    KQ_ASSERT(kind >= 0 && kind <= x->cfg.client_listener_count);
    x->peers->endpoint_inflight[i][kind] = false;
    bool ok = frame && handler_note_peer_endpoint(x->handler, node_id, kind - 1, frame, len);
    x->peers->endpoint_due_ms[i][kind] =
        exec_now(x) + (ok ? EXEC_ENDPOINT_REFRESH_MS : EXEC_ENDPOINT_RETRY_MS);
}

int64_t exec_endpoint_due(const kq_exec *x)
{
    int64_t due = INT64_MAX;
    if (!x->cfg.discover_client_endpoints)
        return due;
    for (int i = 0; i < x->cfg.voter_count; i++)
        for (int kind = 0; kind <= x->cfg.client_listener_count; kind++)
            if (x->cfg.voters[i].node_id != x->cfg.node_id && !x->peers->endpoint_inflight[i][kind] &&
                x->peers->endpoint_due_ms[i][kind] < due)
                due = x->peers->endpoint_due_ms[i][kind];
    return due;
}
