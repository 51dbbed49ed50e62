/* Request handlers: decode a Kafka request frame, act on it through the Raft
 * core and the log, encode the answer. Handlers never touch sockets: replies
 * go through the reply functions the daemon provides, keyed by an opaque
 * slot. Requests that cannot be answered at once (acks=-1 produce, long-poll
 * fetch, Raft RPCs) wait in bounded tables here until progress or deadline. */
#ifndef KQ_HANDLER_H
#define KQ_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/log.h"
#include "kq/producer_state.h"
#include "kq/raft.h"

#define HANDLER_NODES_MAX 16

typedef struct handler_endpoint {
    int32_t node_id;
    char host[256];
    uint16_t port;
} handler_endpoint;

/* What the handlers need from the node that owns them. */
typedef struct handler_services {
    void *node;
    raft *raft;
    kq_log *log;
    producer_state *producers;
    int32_t node_id;
    const char *cluster_id;
    handler_endpoint nodes[HANDLER_NODES_MAX]; /* every voter, with its listener */
    int node_count;
    int32_t frame_bytes_max;
    /* Runs one event through the core and carries out its actions. */
    void (*step)(void *node, raft_event *event, raft_output *out);
    int64_t (*now_ms)(void *node);
    int64_t (*next_producer_id)(void *node);
    void (*reply)(void *slot, const uint8_t *data, size_t len);
    void (*reply_none)(void *slot);
    void (*reply_close)(void *slot, const char *why);
    const char *(*slot_peer)(void *slot);
    /* Relays a whole request frame to the leader and its answer back to slot
     * (as a Kafka broker forwards DescribeQuorum to the active controller).
     * Returns false when it cannot be sent; on a later failure the node calls
     * handler_forward_failed. */
    bool (*forward_to_leader)(void *node, int32_t leader_id, void *slot, const uint8_t *frame,
                              size_t len);
} handler_services;

typedef struct handler handler;

handler *handler_create(const handler_services *services);
void handler_destroy(handler *h);

/* One inbound frame (request header + body); data may be modified in place. */
void handler_on_frame(handler *h, void *slot, uint8_t *frame, size_t len);

/* The core asked to send msg (SEND action). Responses (token != 0) are
 * encoded and answered here; requests to peers are encoded into out (header
 * included) with the correlation id given; returns false if msg is neither. */
void handler_send_raft_response(handler *h, const raft_msg *msg);
bool handler_encode_raft_request(handler *h, const raft_msg *msg, int32_t correlation_id,
                                 uint8_t **data, size_t *len);
/* Decodes a peer's response frame to a request encoded above into a RECEIVE
 * msg. Returns false on a malformed frame. */
bool handler_decode_raft_response(handler *h, enum raft_msg_type request_type,
                                  int16_t api_version, const uint8_t *frame, size_t len,
                                  raft_msg *out);

/* A forwarded request (see forward_to_leader) got no answer: reply to slot
 * with NOT_LEADER_OR_FOLLOWER so the client retries. */
void handler_forward_failed(handler *h, void *slot, int16_t api_key, int16_t api_version,
                            int32_t correlation_id);

/* The core's high watermark or the log's flushed offset moved, or the role
 * changed: answer waiting produce and fetch requests that are now satisfied. */
void handler_on_progress(handler *h);
/* Earliest deadline of a waiting request (INT64_MAX if none) and expiry. */
int64_t handler_next_deadline(const handler *h);
void handler_on_tick(handler *h, int64_t now_ms);

#endif
