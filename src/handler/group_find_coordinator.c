/* FindCoordinator: the leader coordinates every group and every
 * transactional id (issue 23; it is named by the listener asked, as
 * Metadata names it). v4+ batch the keys. */
#include "group_handlers.h"
#include "kq/wire_find_coordinator.h"

/* One key's answer: a group names the leader if one is known. */
static void find_one(handler *h, void *slot, int8_t key_type, wire_find_coordinator_coordinator *c)
{
    *c = (wire_find_coordinator_coordinator){.node_id = -1, .host = kq_slice_cstr(""),
                                             .port = -1, .error_message = {NULL, -1}};
    bool may = handler_authorized(h, slot, HANDLER_OP_DESCRIBE, "FindCoordinator");
    if (key_type != 0 && key_type != 1) {
        c->error_code = KAFKA_INVALID_REQUEST;
        return;
    }
    if (!may) {
        c->error_code = key_type == 1 ? KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                                      : KAFKA_GROUP_AUTHORIZATION_FAILED;
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    handler_conn conn;
    handler_get_conn(h, slot, &conn);
    c->error_code = KAFKA_COORDINATOR_NOT_AVAILABLE;
    for (int i = 0; st.leader_id >= 0 && i < h->svc.node_count; i++) {
        if (h->svc.nodes[i].node_id != st.leader_id)
            continue;
        const handler_endpoint *e = handler_broker_endpoint(h, i, &conn);
        c->error_code = KAFKA_NONE;
        c->node_id = st.leader_id;
        c->host = kq_slice_cstr(e->host);
        c->port = e->port;
    }
}

void handle_find_coordinator(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_find_coordinator_request body;
    if (wire_find_coordinator_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "FindCoordinator");
        return;
    }
    int8_t key_type = v >= 1 ? body.key_type : 0;
    wire_find_coordinator_response resp = {.error_message = {NULL, -1}};
    if (v < 4) {
        wire_find_coordinator_coordinator c;
        find_one(h, req->slot, key_type, &c);
        resp.error_code = c.error_code;
        resp.node_id = c.node_id;
        resp.host = c.host;
        resp.port = c.port;
    } else {
        int n = body.coordinator_key_count > 0 ? body.coordinator_key_count : 0;
        resp.coordinators = kq_arena_alloc(&h->arena, sizeof(*resp.coordinators) * (size_t)(n ? n : 1));
        if (!resp.coordinators) {
            h->svc.reply_close(h->svc.ctx, req->slot, "too many coordinator keys");
            return;
        }
        for (int i = 0; i < n; i++) {
            find_one(h, req->slot, key_type, &resp.coordinators[i]);
            resp.coordinators[i].key = body.coordinator_keys[i];
        }
        resp.coordinator_count = n;
    }
    handler_begin_response(h, &req->header);
    wire_find_coordinator_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
