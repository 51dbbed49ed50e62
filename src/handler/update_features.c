/* UpdateFeatures (key 57): `kafka-features.sh upgrade --feature
 * kraft.version=1` moves a static quorum's voters into the log (KIP-853,
 * src/raft/upgrade.c). Behind the quorum gate (Kafka: ALTER on the
 * cluster; CLUSTER_ACTION stands in, as for AddRaftVoter). kraft.version is
 * the only feature this server has: a request naming another, or more than
 * one update, is INVALID_UPDATE_VERSION / INVALID_REQUEST without reaching
 * the core. The answer carries the error at the top level and, in v0-1,
 * for the feature too (Kafka's createWithErrors). */
#include <stdio.h>

#include "handler_internal.h"
#include "kq/wire_update_features.h"

static void respond(handler *h, const wire_request_header *hdr, void *slot, int16_t error,
                    kq_slice message, kq_slice feature)
{
    wire_update_features_result res = {.feature = feature, .error_code = error,
                                       .error_message = message};
    wire_update_features_response resp = {.error_code = error, .error_message = message,
                                          .results = &res, .result_count = feature.len >= 0};
    handler_begin_response(h, hdr);
    wire_update_features_response_encode(&h->out, hdr->api_version, &resp);
    handler_finish_response(h, slot);
}

void handle_update_features(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_update_features_request body;
    if (wire_update_features_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed UpdateFeatures request");
        return;
    }
    kq_slice none = {NULL, -1};
    if (!quorum_identity_allowed(h, req, -1, true)) {
        respond(h, &req->header, req->slot, KAFKA_CLUSTER_AUTHORIZATION_FAILED, none, none);
        return;
    }
    if (body.feature_update_count != 1) {
        respond(h, &req->header, req->slot, KAFKA_INVALID_REQUEST,
                kq_slice_cstr("this server updates one feature, kraft.version"), none);
        return;
    }
    const wire_update_features_key *k = &body.feature_updates[0];
    if (!kq_slice_eq_cstr(k->feature, "kraft.version") || k->upgrade_type != 1 ||
        (v == 0 && k->allow_downgrade)) {
        respond(h, &req->header, req->slot, KAFKA_INVALID_UPDATE_VERSION,
                kq_slice_cstr("only an upgrade of kraft.version is supported"), k->feature);
        return;
    }
    raft_msg m = {.type = RAFT_MSG_UPGRADE_KRAFT_REQUEST, .from = -1};
    m.u.upgrade_kraft_request.level = k->max_version_level;
    m.u.upgrade_kraft_request.validate_only = body.validate_only;
    step_request(h, req, &m, false);
}

/* The core's answer (raft_rpc.c routes it here by the API asked). */
void update_features_encode_response(handler *h, const raft_pending *p, const raft_msg *msg)
{
    const raft_voter_change_response *m = &msg->u.voter_change_response;
    kq_slice message = m->message ? kq_slice_cstr(m->message) : (kq_slice){NULL, -1};
    wire_update_features_result res = {.feature = kq_slice_cstr("kraft.version"),
                                       .error_code = m->error, .error_message = message};
    wire_update_features_response resp = {.error_code = m->error, .error_message = message,
                                          .results = &res, .result_count = 1};
    wire_update_features_response_encode(&h->out, p->api_version, &resp);
}
