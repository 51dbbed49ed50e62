/* Asking each peer for its client listener (issue 9), so that Metadata
 * sends clients to the client listeners and not to the controller ones
 * (kq/handler.h, handler_encode_endpoint_request). One request per peer in
 * flight; again after EXEC_ENDPOINT_RETRY_MS on a failure and every
 * EXEC_ENDPOINT_REFRESH_MS after an answer. The tag is even (the relay
 * class) with the relay slot field set to EXEC_ENDPOINT_TAG_SLOT, which no
 * relay uses, and the voter index above it. */
#include <stdlib.h>

#include "exec_internal.h"
#include "kq/assert.h"

static uint64_t endpoint_tag(int voter_index)
{
    return ((uint64_t)voter_index << 8) | ((uint64_t)EXEC_ENDPOINT_TAG_SLOT << 1);
}

bool exec_tag_is_endpoint(uint64_t tag)
{
    return (tag & 1u) == 0 && ((tag >> 1) & 0x7f) == EXEC_ENDPOINT_TAG_SLOT;
}

void exec_ask_endpoints(kq_exec *x)
{
    if (!x->cfg.discover_client_endpoints)
        return;
    int64_t now = exec_now(x);
    for (int i = 0; i < x->cfg.voter_count; i++) {
        int32_t id = x->cfg.voters[i].node_id;
        if (id == x->cfg.node_id || x->endpoint_inflight[i] || now < x->endpoint_due_ms[i])
            continue;
        x->endpoint_due_ms[i] = now + EXEC_ENDPOINT_RETRY_MS;
        uint8_t *data = NULL;
        size_t len = 0;
        int32_t corr = x->next_correlation_id;
        x->next_correlation_id = corr == INT32_MAX ? 1 : corr + 1;
        if (!handler_encode_endpoint_request(x->handler, corr, &data, &len))
            continue;
        if (x->env.peer_send(x->env.ctx, id, corr, data, len, endpoint_tag(i)))
            x->endpoint_inflight[i] = true;
        free(data);
    }
}

void exec_endpoint_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                            size_t len)
{
    int i = (int)(tag >> 8);
    KQ_ASSERT(i >= 0 && i < x->cfg.voter_count && x->cfg.voters[i].node_id == node_id);
    x->endpoint_inflight[i] = false;
    bool ok = frame && handler_note_peer_endpoint(x->handler, node_id, frame, len);
    x->endpoint_due_ms[i] = exec_now(x) + (ok ? EXEC_ENDPOINT_REFRESH_MS : EXEC_ENDPOINT_RETRY_MS);
}

int64_t exec_endpoint_due(const kq_exec *x)
{
    int64_t due = INT64_MAX;
    if (!x->cfg.discover_client_endpoints)
        return due;
    for (int i = 0; i < x->cfg.voter_count; i++)
        if (x->cfg.voters[i].node_id != x->cfg.node_id && !x->endpoint_inflight[i] &&
            x->endpoint_due_ms[i] < due)
            due = x->endpoint_due_ms[i];
    return due;
}
