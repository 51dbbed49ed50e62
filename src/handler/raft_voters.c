/* AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (KIP-853) while the
 * quorum is static (kraft.version 0: the voters come from the configuration,
 * not the log). Nothing here changes state: each request is answered the
 * way Kafka 4.4's KafkaRaftClient and its Add/Remove/UpdateVoterHandler
 * answer at kraft.version 0, checking in Kafka's order:
 *   the quorum gate (quorum_auth.c; Kafka: ALTER on the cluster for
 *   Add/Remove, CLUSTER_ACTION for Update) -> CLUSTER_AUTHORIZATION_FAILED;
 *   a non-null cluster id not ours -> INCONSISTENT_CLUSTER_ID;
 *   not the leader (Update: its epoch first) -> NOT_LEADER_OR_FOLLOWER;
 *   no voter id or directory id, or no endpoint -> INVALID_REQUEST;
 *   no high watermark in this epoch yet -> REQUEST_TIMED_OUT;
 *   then Add/Remove -> UNSUPPORTED_VERSION ("kraft.version feature is 0"),
 *   and Update -> VOTER_NOT_FOUND unless the id is a static voter, else
 *   NONE (Kafka keeps the endpoints in the leader's memory only, for a
 *   kraft.version upgrade, which this server does not offer). */
#include <stdio.h>

#include "handler_internal.h"
#include "kq/uuid.h"
#include "kq/wire_add_raft_voter.h"
#include "kq/wire_remove_raft_voter.h"
#include "kq/wire_update_raft_voter.h"

#define VOTERS_MESSAGE_BYTES_MAX 256

/* An answer: its code and Kafka's message (empty: null). */
typedef struct voters_answer {
    int16_t error;
    char message[VOTERS_MESSAGE_BYTES_MAX];
} voters_answer;

static kq_slice message_slice(const voters_answer *a)
{
    return a->message[0] ? kq_slice_cstr(a->message) : (kq_slice){NULL, -1};
}

/* The gate and the cluster id, common to the three. Kafka lets a null
 * cluster id pass here (its admin tool sends none unless told). */
static bool refused_before_raft(handler *h, handler_request *req, kq_slice cluster_id,
                                voters_answer *a)
{
    if (!quorum_identity_allowed(h, req, -1, true)) {
        a->error = KAFKA_CLUSTER_AUTHORIZATION_FAILED;
        return true;
    }
    if (cluster_id.len >= 0 && !kq_slice_eq_cstr(cluster_id, h->svc.cluster_id)) {
        a->error = KAFKA_INCONSISTENT_CLUSTER_ID;
        snprintf(a->message, sizeof a->message,
                 "The given id \"%.*s\" doesn't match the cluster id \"%s\"",
                 (int)(cluster_id.len > 64 ? 64 : cluster_id.len),
                 cluster_id.len > 0 ? (const char *)cluster_id.ptr : "", h->svc.cluster_id);
        return true;
    }
    return false;
}

/* Add and Remove after the gate: the leader's checks, then kraft.version 0.
 * what: "adding" or "removing"; listener_count -1: Remove (no endpoints). */
static void add_remove_answer(handler *h, const char *what, const char *request, int32_t voter_id,
                              kq_uuid directory_id, int32_t listener_count, voters_answer *a)
{
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    if (st.role != RAFT_ROLE_LEADER) {
        a->error = KAFKA_NOT_LEADER_OR_FOLLOWER;
    } else if (voter_id < 0 || kq_uuid_is_zero(&directory_id)) {
        a->error = KAFKA_INVALID_REQUEST;
        snprintf(a->message, sizeof a->message, "%s voter request didn't include a valid voter",
                 request);
    } else if (listener_count == 0) {
        /* Kafka names the endpoint it missed; the handler does not know
         * the controller listener's name, so only an empty list is caught. */
        a->error = KAFKA_INVALID_REQUEST;
        snprintf(a->message, sizeof a->message,
                 "%s voter request didn't include the endpoint for the default listener",
                 request);
    } else if (st.high_watermark < 0) {
        a->error = KAFKA_REQUEST_TIMED_OUT;
        snprintf(a->message, sizeof a->message,
                 "Request timed out waiting for leader to establish HWM and fence previous "
                 "voter changes");
    } else {
        a->error = KAFKA_UNSUPPORTED_VERSION;
        snprintf(a->message, sizeof a->message,
                 "Cluster doesn't support %s voter because the kraft.version feature is 0", what);
    }
}

void handle_add_raft_voter(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_add_raft_voter_request body;
    if (wire_add_raft_voter_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed AddRaftVoter request");
        return;
    }
    voters_answer a = {0};
    if (!refused_before_raft(h, req, body.cluster_id, &a))
        add_remove_answer(h, "adding", "Add", body.voter_id, body.voter_directory_id,
                          body.listener_count, &a);
    wire_add_raft_voter_response resp = {.error_code = a.error, .error_message = message_slice(&a)};
    handler_begin_response(h, &req->header);
    wire_add_raft_voter_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void handle_remove_raft_voter(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_remove_raft_voter_request body;
    if (wire_remove_raft_voter_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed RemoveRaftVoter request");
        return;
    }
    voters_answer a = {0};
    if (!refused_before_raft(h, req, body.cluster_id, &a))
        add_remove_answer(h, "removing", "Remove", body.voter_id, body.voter_directory_id, -1,
                          &a);
    wire_remove_raft_voter_response resp = {.error_code = a.error,
                                            .error_message = message_slice(&a)};
    handler_begin_response(h, &req->header);
    wire_remove_raft_voter_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

/* Update after the gate (KafkaRaftClient.handleUpdateVoterRequest, then
 * UpdateVoterHandler at kraft.version 0). */
static int16_t update_error(handler *h, const wire_update_raft_voter_request *b,
                            const raft_status *st)
{
    const wire_update_raft_voter_kraft_version *k = &b->kraft_version_feature;
    if (b->current_leader_epoch < st->epoch)
        return KAFKA_FENCED_LEADER_EPOCH;
    if (b->current_leader_epoch > st->epoch)
        return KAFKA_UNKNOWN_LEADER_EPOCH;
    if (st->role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_LEADER_OR_FOLLOWER;
    if (b->voter_id < 0 || kq_uuid_is_zero(&b->voter_directory_id) || b->listener_count == 0)
        return KAFKA_INVALID_REQUEST;
    if (k->min_supported_version < 0 || k->max_supported_version < k->min_supported_version)
        return KAFKA_INVALID_REQUEST;
    if (st->high_watermark < 0)
        return KAFKA_REQUEST_TIMED_OUT;
    if (k->min_supported_version > 0) /* the range must hold kraft.version 0 */
        return KAFKA_INVALID_REQUEST;
    if (!raft_is_voter(h->svc.raft, b->voter_id))
        return KAFKA_VOTER_NOT_FOUND; /* Kafka ignores the directory id at version 0 */
    return KAFKA_NONE;
}

/* The response's CurrentLeader: the leader as this node knows it, with its
 * endpoint when it is a configured voter. */
static void fill_current_leader(const handler *h, const raft_status *st,
                                wire_update_raft_voter_response *resp)
{
    wire_update_raft_voter_current_leader *cl = &resp->current_leader;
    *cl = (wire_update_raft_voter_current_leader){.leader_id = st->leader_id,
                                                   .leader_epoch = st->epoch,
                                                   .host = kq_slice_cstr("")};
    for (int i = 0; i < h->svc.node_count; i++)
        if (st->leader_id >= 0 && h->svc.nodes[i].node_id == st->leader_id) {
            cl->host = kq_slice_cstr(h->svc.nodes[i].host);
            cl->port = h->svc.nodes[i].port;
        }
    resp->has_current_leader = st->leader_id >= 0 || st->epoch >= 0;
}

void handle_update_raft_voter(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_update_raft_voter_request body;
    if (wire_update_raft_voter_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed UpdateRaftVoter request");
        return;
    }
    voters_answer a = {0};
    wire_update_raft_voter_response resp = {0};
    bool refused = refused_before_raft(h, req, body.cluster_id, &a);
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    if (a.error != KAFKA_CLUSTER_AUTHORIZATION_FAILED)
        fill_current_leader(h, &st, &resp);
    resp.error_code = refused ? a.error : update_error(h, &body, &st);
    handler_begin_response(h, &req->header);
    wire_update_raft_voter_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
