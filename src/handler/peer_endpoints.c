/* The other nodes' client listeners, learned from the peers themselves
 * (kq/handler.h: handler_encode_endpoint_request). A node trusts only each
 * peer's own entry: what B says of C may be stale. Per listener name too
 * (issue 19 item 13): a request whose client id is
 * HANDLER_ENDPOINT_CLIENT_ID_PREFIX<name> is answered, on a quorum
 * connection, with this node's endpoint on its listener of that name, so
 * Metadata asked on listener L names every node by its L endpoint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/wire_describe_cluster.h"

#define ENDPOINT_REQUEST_VERSION 1 /* v1 carries the endpoint type (KIP-919) */
#define ENDPOINT_TYPE_BROKERS 1

static int listener_index(const handler *h, const char *name, size_t name_bytes)
{
    for (int k = 0; name && k < h->svc.client_listener_count; k++)
        if (strlen(h->svc.client_listeners[k].name) == name_bytes &&
            memcmp(h->svc.client_listeners[k].name, name, name_bytes) == 0)
            return k;
    return -1;
}

const handler_endpoint *handler_broker_endpoint(const handler *h, int i, const handler_conn *conn)
{
    KQ_ASSERT(i >= 0 && i < h->svc.node_count);
    if (h->svc.nodes[i].node_id == h->svc.node_id) {
        if (conn && conn->advertised && conn->advertised->port != 0)
            return conn->advertised;
        return h->svc.client_endpoint.port != 0 ? &h->svc.client_endpoint : &h->svc.nodes[i];
    }
    int k = conn && conn->advertised && conn->advertised->port != 0 && conn->listener_name
                ? listener_index(h, conn->listener_name, strlen(conn->listener_name)) : -1;
    if (k >= 0 && h->peer_listener_known[i][k])
        return &h->peer_listeners[i][k];
    return h->peer_client_known[i] ? &h->peer_clients[i] : &h->svc.nodes[i];
}

const handler_endpoint *handler_endpoint_asked(const handler *h, const handler_request *req,
                                               const handler_conn *conn)
{
    size_t pre = strlen(HANDLER_ENDPOINT_CLIENT_ID_PREFIX);
    kq_slice id = req->header.client_id;
    if (!conn->quorum_listener || id.len <= (int32_t)pre ||
        memcmp(id.ptr, HANDLER_ENDPOINT_CLIENT_ID_PREFIX, pre) != 0)
        return NULL;
    int k = listener_index(h, (const char *)id.ptr + pre, (size_t)id.len - pre);
    return k >= 0 ? &h->svc.client_listeners[k].endpoint : NULL;
}

bool handler_encode_endpoint_request(handler *h, int32_t correlation_id, int listener,
                                     uint8_t **data, size_t *len)
{
    kq_writer w;
    kq_writer_init(&w, 256);
    char client_id[32 + KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
    KQ_ASSERT(listener < h->svc.client_listener_count);
    if (listener >= 0)
        snprintf(client_id, sizeof(client_id), "%s%s", HANDLER_ENDPOINT_CLIENT_ID_PREFIX,
                 h->svc.client_listeners[listener].name);
    else
        snprintf(client_id, sizeof(client_id), "raft-server-%d", h->svc.node_id);
    wire_request_header hdr = {.api_key = WIRE_API_DESCRIBE_CLUSTER,
                               .api_version = ENDPOINT_REQUEST_VERSION,
                               .correlation_id = correlation_id,
                               .client_id = kq_slice_cstr(client_id)};
    wire_request_header_encode(&w, &hdr);
    wire_describe_cluster_request req = {.include_cluster_authorized_operations = false,
                                         .endpoint_type = ENDPOINT_TYPE_BROKERS};
    wire_describe_cluster_request_encode(&w, ENDPOINT_REQUEST_VERSION, &req);
    if (w.error) {
        kq_writer_free(&w);
        return false;
    }
    *data = w.data;
    *len = w.len;
    return true;
}

static int node_index(const handler *h, int32_t node_id)
{
    for (int i = 0; i < h->svc.node_count; i++)
        if (h->svc.nodes[i].node_id == node_id)
            return i;
    return -1;
}

void handler_set_nodes(handler *h, const handler_endpoint *nodes, int count)
{
    KQ_ASSERT(count >= 0 && count <= HANDLER_NODES_MAX);
    /* Scratch too large for the stack; the handlers run on one thread. */
    static handler_endpoint clients[HANDLER_NODES_MAX];
    static bool client_known[HANDLER_NODES_MAX];
    static handler_endpoint listeners[HANDLER_NODES_MAX][KQ_CONFIG_LISTENERS_MAX];
    static bool listener_known[HANDLER_NODES_MAX][KQ_CONFIG_LISTENERS_MAX];
    for (int i = 0; i < count; i++) {
        int j = node_index(h, nodes[i].node_id);
        bool same = j >= 0 && h->svc.nodes[j].port == nodes[i].port &&
                    strcmp(h->svc.nodes[j].host, nodes[i].host) == 0;
        client_known[i] = same && h->peer_client_known[j];
        if (client_known[i])
            clients[i] = h->peer_clients[j];
        for (int k = 0; k < KQ_CONFIG_LISTENERS_MAX; k++) {
            listener_known[i][k] = same && h->peer_listener_known[j][k];
            if (listener_known[i][k])
                listeners[i][k] = h->peer_listeners[j][k];
        }
    }
    memset(h->peer_client_known, 0, sizeof(h->peer_client_known));
    memset(h->peer_listener_known, 0, sizeof(h->peer_listener_known));
    for (int i = 0; i < count; i++) {
        h->svc.nodes[i] = nodes[i];
        h->peer_client_known[i] = client_known[i];
        h->peer_clients[i] = clients[i];
        memcpy(h->peer_listener_known[i], listener_known[i], sizeof(listener_known[i]));
        memcpy(h->peer_listeners[i], listeners[i], sizeof(listeners[i]));
    }
    h->svc.node_count = count;
}

bool handler_note_peer_endpoint(handler *h, int32_t node_id, int listener, const uint8_t *frame,
                                size_t len)
{
    KQ_ASSERT(listener < h->svc.client_listener_count);
    int i = node_index(h, node_id);
    kq_reader r;
    kq_reader_init(&r, frame, len);
    int32_t corr;
    wire_describe_cluster_response resp;
    kq_arena_reset(&h->arena);
    if (i < 0 || node_id == h->svc.node_id ||
        wire_response_header_decode(&r, WIRE_API_DESCRIBE_CLUSTER, ENDPOINT_REQUEST_VERSION,
                                    &corr) != 0 ||
        wire_describe_cluster_response_decode(&r, ENDPOINT_REQUEST_VERSION, &h->arena, &resp) != 0 ||
        resp.error_code != KAFKA_NONE)
        return false;
    for (int32_t b = 0; b < resp.broker_count; b++) {
        const wire_describe_cluster_broker *e = &resp.brokers[b];
        if (e->broker_id != node_id)
            continue;
        handler_endpoint *c = listener >= 0 ? &h->peer_listeners[i][listener] : &h->peer_clients[i];
        bool *known = listener >= 0 ? &h->peer_listener_known[i][listener] : &h->peer_client_known[i];
        if (e->host.len <= 0 || (size_t)e->host.len >= sizeof(c->host) || e->port <= 0 ||
            e->port > 65535)
            return false;
        bool changed = !*known || c->port != e->port ||
                       strncmp(c->host, (const char *)e->host.ptr, (size_t)e->host.len) != 0 ||
                       c->host[e->host.len] != '\0';
        c->node_id = node_id;
        memcpy(c->host, e->host.ptr, (size_t)e->host.len);
        c->host[e->host.len] = '\0';
        c->port = (uint16_t)e->port;
        *known = true;
        if (changed)
            log_line("node %d: peer %d serves clients at %s:%u%s%s", h->svc.node_id, node_id,
                     c->host, c->port, listener >= 0 ? " on listener " : "",
                     listener >= 0 ? h->svc.client_listeners[listener].name : "");
        return true;
    }
    return false;
}
