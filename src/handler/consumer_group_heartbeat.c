/* ConsumerGroupHeartbeat (KIP-848, API 68): the request is decoded, checked
 * (READ on the group, the coordinator's gate, our bounds on its arrays),
 * served by the coordinator (kq/group_consumer.h) and answered. Every
 * answer, error or not, leaves through cgh_answer; the coordinator's waits
 * until the group's records up to its change are committed (issue 24,
 * src/handler/group_persist.c). */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/group_consumer.h"
#include "kq/wire_consumer_group_heartbeat.h"

#define NULL_SLICE ((kq_slice){NULL, -1})

static kq_slice cstr_or_null(const char *s)
{
    return s ? kq_slice_cstr(s) : NULL_SLICE;
}

/* The coordinator's assignment in wire form (arena); false: out of memory. */
static bool assignment_to_wire(handler *h, const group_consumer_heartbeat_response *cr,
                               wire_consumer_group_heartbeat_response *out)
{
    int n = cr->assignment_count;
    wire_cgh_topic_partitions *t = kq_arena_alloc(&h->arena, sizeof(*t) * (size_t)(n ? n : 1));
    if (!t)
        return false;
    for (int i = 0; i < n; i++) {
        const group_topic_partitions *a = &cr->assignment[i];
        memcpy(t[i].topic_id.bytes, a->topic_id, sizeof t[i].topic_id.bytes);
        t[i].partitions = (int32_t *)a->partitions;
        t[i].partition_count = a->partition_count;
    }
    out->has_assignment = true;
    out->assignment = (wire_cgh_assignment){t, n};
    return true;
}

/* The answer with error alone (groups_error_fn: a held answer that cannot
 * wait longer). */
static void cgh_error(handler *h, void *slot, const wire_request_header *hdr, int16_t error)
{
    wire_consumer_group_heartbeat_response resp = {.error_code = error,
                                                   .error_message = NULL_SLICE,
                                                   .member_id = NULL_SLICE};
    handler_begin_response(h, hdr);
    wire_consumer_group_heartbeat_response_encode(&h->out, hdr->api_version, &resp);
    handler_finish_response(h, slot);
}

/* Sends the answer: the coordinator's (cr non-NULL) or error alone. The
 * coordinator's waits, encoded, until the group's changes up to it are
 * below the high watermark (h->groups->hold_seq, issue 24: a member never
 * acts on an epoch or assignment a failover could take back). */
static void cgh_answer(handler *h, handler_request *req, int16_t error,
                       const group_consumer_heartbeat_response *cr)
{
    int16_t v = req->header.api_version;
    wire_consumer_group_heartbeat_response resp = {.error_code = error,
                                                   .error_message = NULL_SLICE,
                                                   .member_id = NULL_SLICE};
    if (cr) {
        resp.error_code = (int16_t)cr->error;
        resp.error_message = cstr_or_null(cr->error_message);
        resp.member_id = cstr_or_null(cr->member_id);
        resp.member_epoch = cr->member_epoch;
        resp.heartbeat_interval_ms = cr->heartbeat_interval_ms;
        if (cr->has_assignment && !assignment_to_wire(h, cr, &resp)) {
            h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
            return;
        }
    }
    handler_begin_response(h, &req->header);
    wire_consumer_group_heartbeat_response_encode(&h->out, v, &resp);
    if (cr)
        groups_finish(h, req->slot, &req->header, cgh_error);
    else
        handler_finish_response(h, req->slot);
}

/* Our bounds on what one heartbeat may carry (kq/limits.h): beyond them
 * INVALID_REQUEST, before the coordinator sees anything. */
static bool cgh_within_bounds(const wire_consumer_group_heartbeat_request *b)
{
    if (b->subscribed_topic_count > KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX ||
        b->topic_count > KQ_GROUP_CONSUMER_TOPICS_MAX)
        return false;
    int64_t partitions = 0;
    for (int32_t i = 0; i < b->topic_count; i++)
        partitions += b->topic_partitions[i].partition_count;
    return partitions <= KQ_GROUP_CONSUMER_OWNED_PARTITIONS_MAX;
}

/* The request's strings and arrays as the coordinator takes them; false
 * when a string holds a NUL byte or memory runs out. */
static bool cgh_convert(handler *h, handler_request *req,
                        const wire_consumer_group_heartbeat_request *b,
                        group_consumer_heartbeat_request *q)
{
    *q = (group_consumer_heartbeat_request){
        .version = req->header.api_version, .member_epoch = b->member_epoch,
        .rebalance_timeout_ms = b->rebalance_timeout_ms,
        .subscribed_topic_count = b->subscribed_topic_count < 0 ? -1 : b->subscribed_topic_count,
        .owned_count = b->topic_count < 0 ? -1 : b->topic_count,
        .client_host = h->svc.slot_peer(h->svc.ctx, req->slot)};
    const char *member_id = NULL, *client_id = NULL;
    if (!groups_cstr(h, b->group_id, &q->group_id) || !groups_cstr(h, b->member_id, &member_id) ||
        !groups_cstr(h, b->instance_id, &q->instance_id) ||
        !groups_cstr(h, b->rack_id, &q->rack_id) ||
        !groups_cstr(h, b->subscribed_topic_regex, &q->subscribed_topic_regex) ||
        !groups_cstr(h, b->server_assignor, &q->server_assignor) ||
        !groups_cstr(h, req->header.client_id, &client_id))
        return false;
    q->member_id = member_id ? member_id : "";
    q->client_id = client_id ? client_id : "";
    int ns = q->subscribed_topic_count > 0 ? q->subscribed_topic_count : 0;
    const char **names = kq_arena_alloc(&h->arena, sizeof(*names) * (size_t)(ns ? ns : 1));
    int no = q->owned_count > 0 ? q->owned_count : 0;
    group_topic_partitions *owned = kq_arena_alloc(&h->arena, sizeof(*owned) * (size_t)(no ? no : 1));
    if (!names || !owned)
        return false;
    for (int i = 0; i < ns; i++)
        if (!groups_cstr(h, b->subscribed_topic_names[i], &names[i]))
            return false;
    for (int i = 0; i < no; i++) {
        const wire_cgh_topic_partitions *t = &b->topic_partitions[i];
        memcpy(owned[i].topic_id, t->topic_id.bytes, sizeof owned[i].topic_id);
        owned[i].topic_name = "";
        owned[i].partitions = t->partitions;
        owned[i].partition_count = t->partition_count > 0 ? t->partition_count : 0;
    }
    q->subscribed_topic_names = names;
    q->owned = owned;
    return true;
}

/* SubscribedTopicRegex (v1): "" is none (librdkafka sends it so); another
 * is matched whole (POSIX extended syntax, the common subset of Java's
 * RE2J patterns) against the topic we serve, and a match joins the
 * subscribed names, so the coordinator sees names only. false: a pattern
 * that does not compile (INVALID_REQUEST, as Kafka), or one past our
 * bound (KQ_GROUP_CONSUMER_REGEX_BYTES_MAX, no counted repetition). */
static bool cgh_regex(handler *h, group_consumer_heartbeat_request *q)
{
    const char *re = q->subscribed_topic_regex;
    q->subscribed_topic_regex = NULL;
    if (!re || !*re)
        return true;
    size_t n = strlen(re);
    if (n > KQ_GROUP_CONSUMER_REGEX_BYTES_MAX || strchr(re, '{'))
        return false;
    char *anchored = kq_arena_alloc(&h->arena, n + 5);
    if (!anchored)
        return false;
    snprintf(anchored, n + 5, "^(%s)$", re);
    regex_t rx;
    if (regcomp(&rx, anchored, REG_EXTENDED | REG_NOSUB) != 0)
        return false;
    bool match = regexec(&rx, h->svc.topic_name, 0, NULL, 0) == 0;
    regfree(&rx);
    int ns = q->subscribed_topic_count > 0 ? q->subscribed_topic_count : 0;
    const char **names = kq_arena_alloc(&h->arena, sizeof(*names) * (size_t)(ns + 1));
    if (!names)
        return false;
    for (int i = 0; i < ns; i++)
        names[i] = q->subscribed_topic_names[i];
    if (match)
        names[ns++] = h->svc.topic_name;
    q->subscribed_topic_names = names;
    q->subscribed_topic_count = ns;
    return true;
}

void handle_consumer_group_heartbeat(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_consumer_group_heartbeat_request body;
    if (wire_consumer_group_heartbeat_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "ConsumerGroupHeartbeat");
        return;
    }
    group_consumer_heartbeat_request q;
    int16_t error = KAFKA_NONE;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "ConsumerGroupHeartbeat"))
        error = KAFKA_GROUP_AUTHORIZATION_FAILED;
    else if (!cgh_within_bounds(&body) || !cgh_convert(h, req, &body, &q) ||
             !cgh_regex(h, &q))
        error = KAFKA_INVALID_REQUEST;
    else
        error = groups_gate(h);
    if (error != KAFKA_NONE) {
        cgh_answer(h, req, error, NULL);
        return;
    }
    int64_t now = h->svc.now_ms(h->svc.ctx);
    group_consumer_heartbeat_response cr;
    group_consumer_heartbeat(h->groups->coord, &q, now, &cr);
    if (cr.limit)
        groups_log_limit(h, req->slot, "ConsumerGroupHeartbeat", q.group_id, cr.limit);
    h->groups->hold_seq = cr.error == KAFKA_NONE ? groups_persist_seq(h, q.group_id) : 0;
    cgh_answer(h, req, KAFKA_NONE, &cr);
    h->groups->hold_seq = 0;
    /* Then the classic members' answers this heartbeat completed (online
     * migration) and the coordinator's next wake-up (a new member's
     * session, a revocation's timeout). */
    groups_deliver(h, cr.output);
    groups_persist_now(h); /* the frame's append: the changes' records */
}
