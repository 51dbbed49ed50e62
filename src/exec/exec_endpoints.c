/* Asking each peer for its client listener (issue 9), so that Metadata
 * sends clients to the client listeners and not to the controller ones
 * (kq/handler.h, handler_encode_endpoint_request). One request per peer in
 * flight; again after EXEC_ENDPOINT_RETRY_MS without an answer, every
 * EXEC_ENDPOINT_REFRESH_MS after an answer, and after
 * EXEC_ENDPOINT_UNUSABLE_MS after an answer without the endpoint (an
 * error: a peer that does not serve DescribeCluster). The tag is even (the relay
 * class) with the relay slot field set to EXEC_ENDPOINT_TAG_SLOT, which no
 * relay uses, and the peer's slot and its generation above it (a late
 * answer to a slot's former occupant is dropped). */
#include <stdlib.h>

#include "exec_peer.h"
#include "kq/assert.h"

/* Bits 8-15 the slot, 16-23 the request's kind (0 the client endpoint,
 * 1 + k listener cfg.client_listeners[k], issue 19), 24-55 the slot's
 * generation. */
static uint64_t endpoint_tag(int slot, int kind, uint32_t generation)
{
    return ((uint64_t)generation << 24) | ((uint64_t)kind << 16) | ((uint64_t)slot << 8) |
           ((uint64_t)EXEC_ENDPOINT_TAG_SLOT << 1);
}

bool exec_tag_is_endpoint(uint64_t tag)
{
    return (tag & 1u) == 0 && ((tag >> 1) & 0x7f) == EXEC_ENDPOINT_TAG_SLOT;
}

static void ask_one(kq_exec *x, int i, int kind, int64_t now)
{
    exec_peer_slot *s = &x->peers->slots[i];
    if (s->endpoint_inflight[kind] || now < s->endpoint_due_ms[kind])
        return;
    s->endpoint_due_ms[kind] = now + EXEC_ENDPOINT_RETRY_MS;
    uint8_t *data = NULL;
    size_t len = 0;
    int32_t corr = x->peers->next_correlation_id;
    x->peers->next_correlation_id = corr == INT32_MAX ? 1 : corr + 1;
    if (!handler_encode_endpoint_request(x->handler, corr, kind - 1, &data, &len))
        return;
    if (x->env.peer_send(x->env.ctx, s->endpoint.node_id, corr, data, len,
                         endpoint_tag(i, kind, s->generation)))
        s->endpoint_inflight[kind] = true;
    free(data);
}

/* Whether slot i is a peer with an endpoint to ask. */
static bool asked(const kq_exec *x, int i)
{
    const exec_peer_slot *s = &x->peers->slots[i];
    return s->in_use && s->endpoint.port != 0 && s->endpoint.node_id != x->cfg.node_id &&
           s->endpoint.node_id >= 0; /* not a bootstrap server (ids -2, -3, ...) */
}

void exec_ask_endpoints(kq_exec *x)
{
    if (!x->cfg.discover_client_endpoints)
        return;
    int64_t now = exec_now(x);
    for (int i = 0; i < EXEC_PEERS_MAX; i++) {
        if (!asked(x, i))
            continue;
        for (int kind = 0; kind <= x->cfg.client_listener_count; kind++)
            ask_one(x, i, kind, now);
    }
}

void exec_endpoint_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                            size_t len)
{
    int i = (int)((tag >> 8) & 0xff);
    int kind = (int)((tag >> 16) & 0xff);
    KQ_ASSERT(i >= 0 && i < EXEC_PEERS_MAX);
    KQ_ASSERT(kind >= 0 && kind <= x->cfg.client_listener_count);
    exec_peer_slot *s = &x->peers->slots[i];
    if (!s->in_use || s->generation != (uint32_t)(tag >> 24) || s->endpoint.node_id != node_id)
        return; /* asked of the slot's former occupant, or before its endpoint changed */
    s->endpoint_inflight[kind] = false;
    bool ok = frame && handler_note_peer_endpoint(x->handler, node_id, kind - 1, frame, len);
    int64_t wait = ok ? EXEC_ENDPOINT_REFRESH_MS
                      : frame ? EXEC_ENDPOINT_UNUSABLE_MS /* it answers, but not this */
                              : EXEC_ENDPOINT_RETRY_MS;   /* no answer: asked again soon */
    s->endpoint_due_ms[kind] = exec_now(x) + wait;
}

int64_t exec_endpoint_due(const kq_exec *x)
{
    int64_t due = INT64_MAX;
    if (!x->cfg.discover_client_endpoints)
        return due;
    for (int i = 0; i < EXEC_PEERS_MAX; i++)
        for (int kind = 0; asked(x, i) && kind <= x->cfg.client_listener_count; kind++)
            if (!x->peers->slots[i].endpoint_inflight[kind] &&
                x->peers->slots[i].endpoint_due_ms[kind] < due)
                due = x->peers->slots[i].endpoint_due_ms[kind];
    return due;
}
