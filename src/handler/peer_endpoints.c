/* The other nodes' client listeners, learned from the peers themselves
 * (kq/handler.h: handler_encode_endpoint_request). A node trusts only each
 * peer's own entry: what B says of C may be stale. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/wire_describe_cluster.h"

#define ENDPOINT_REQUEST_VERSION 1 /* v1 carries the endpoint type (KIP-919) */
#define ENDPOINT_TYPE_BROKERS 1

const handler_endpoint *handler_broker_endpoint(const handler *h, int i, const handler_conn *conn)
{
    KQ_ASSERT(i >= 0 && i < h->svc.node_count);
    if (h->svc.nodes[i].node_id == h->svc.node_id) {
        if (conn && conn->advertised && conn->advertised->port != 0)
            return conn->advertised;
        return h->svc.client_endpoint.port != 0 ? &h->svc.client_endpoint : &h->svc.nodes[i];
    }
    return h->peer_client_known[i] ? &h->peer_clients[i] : &h->svc.nodes[i];
}

bool handler_encode_endpoint_request(handler *h, int32_t correlation_id, uint8_t **data,
                                     size_t *len)
{
    kq_writer w;
    kq_writer_init(&w, 256);
    char client_id[32];
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

bool handler_note_peer_endpoint(handler *h, int32_t node_id, const uint8_t *frame, size_t len)
{
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
        handler_endpoint *c = &h->peer_clients[i];
        if (e->host.len <= 0 || (size_t)e->host.len >= sizeof(c->host) || e->port <= 0 ||
            e->port > 65535)
            return false;
        bool changed = !h->peer_client_known[i] || c->port != e->port ||
                       strncmp(c->host, (const char *)e->host.ptr, (size_t)e->host.len) != 0 ||
                       c->host[e->host.len] != '\0';
        c->node_id = node_id;
        memcpy(c->host, e->host.ptr, (size_t)e->host.len);
        c->host[e->host.len] = '\0';
        c->port = (uint16_t)e->port;
        h->peer_client_known[i] = true;
        if (changed)
            log_line("node %d: peer %d serves clients at %s:%u", h->svc.node_id, node_id,
                     c->host, c->port);
        return true;
    }
    return false;
}
