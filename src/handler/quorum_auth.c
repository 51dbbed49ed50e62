/* Who may speak for the quorum (issue 9; issue 19 item 10): the Raft RPCs
 * (Vote, BeginQuorumEpoch, EndQuorumEpoch), replica Fetch, FetchSnapshot
 * and a DescribeQuorum relayed by a follower. Each is refused before the
 * Raft core sees it, answered CLUSTER_AUTHORIZATION_FAILED, unless
 *   1. it came on a quorum listener (a controller listener, or any listener
 *      when controller.listener.names is not given), and
 *   2. on a listener proving voters by certificate, the certificate is the
 *      claimed voter's (for a relay: any voter's), which is the peers' own
 *      identity and suffices, or else
 *   3. on a SASL listener, or whenever the authorizer is on, the principal
 *      is allowed Kafka's CLUSTER_ACTION on the cluster: a super user, one
 *      listed in acl.cluster.action.principals, or a voter's certificate
 *      (controller.quorum.voter.principals). The peers never log in with
 *      SASL (a SASL listener cannot carry the voters' traffic, config), so
 *      a SASL principal is always a client's.
 * With the authorizer off on a PLAINTEXT or SSL listener without proof, a
 * quorum listener trusts its network, as documented (docs/security.md).
 * Refusals are logged through LOG_LINE_LIMITED (a client
 * retrying in a loop must not flood the log), counting what was left out. */
#include <stdio.h>

#include "handler_internal.h"
#include "kq/log_line.h"
#include "kq/mutants.h"

#define ANONYMOUS "User:ANONYMOUS"

/* Client-caused: rate-limited per call site with a count of what was left
 * out (LOG_LINE_LIMITED, kq/log_line.h). */
static void log_refusal(handler *h, handler_request *req, const char *detail, const char *note)
{
    LOG_LINE_LIMITED("request from %s: %s v%d %s; refused%s", h->svc.slot_peer(h->svc.ctx, req->slot),
                     wire_api_name(req->header.api_key), req->header.api_version, detail, note);
}

/* NULL when allowed, else why not (for the log line, *note after it).
 * relay: any voter's identity will do (a relay names none). */
static const char *quorum_refusal(const handler *h, const handler_conn *conn, int32_t claimed_id,
                                  bool relay, char *why, size_t why_bytes, const char **note)
{
    const char *who = conn->principal ? conn->principal : ANONYMOUS;
    *note = "";
    if (!conn->quorum_listener) {
        *note = " (Raft RPCs and replica fetches are taken on controller listeners only)";
        return "on a client listener";
    }
    if (conn->voter_proof_required) {
        if (conn->voter_id >= 0 && (relay || conn->voter_id == claimed_id))
            return NULL;
        snprintf(why, why_bytes, "from %s, %s", who,
                 conn->voter_id >= 0 ? "the certificate of another voter"
                                     : "not a voter's certificate");
        return why;
    }
    bool acl_on = h->svc.acl && h->svc.acl->enabled;
    if (!conn->sasl_listener && !acl_on)
        return NULL; /* a trusted network (docs/security.md) */
    if (conn->voter_id >= 0 || handler_acl_cluster_action(h->svc.acl, conn->principal))
        return NULL;
    snprintf(why, why_bytes, "from %s, who may not CLUSTER_ACTION", who);
    *note = " (not in super.users or acl.cluster.action.principals)";
    return why;
}

bool quorum_identity_allowed(handler *h, handler_request *req, int32_t claimed_id, bool relay)
{
    if (h->svc.mutants & KQ_MUTANT_QUORUM_ANY_LISTENER)
        return true;
    handler_conn conn;
    handler_get_conn(h, req->slot, &conn);
    char why[AUTH_PRINCIPAL_BYTES_MAX + 96];
    const char *note;
    const char *refused = quorum_refusal(h, &conn, claimed_id, relay, why, sizeof why, &note);
    if (!refused)
        return true;
    char detail[sizeof why + 48];
    if (relay) /* a relayed DescribeQuorum, or a voter change (raft_voters.c) */
        snprintf(detail, sizeof detail, "%s%s",
                 req->header.api_key == WIRE_API_DESCRIBE_QUORUM ? "relayed " : "", refused);
    else
        snprintf(detail, sizeof detail, "as replica %d %s", claimed_id, refused);
    log_refusal(h, req, detail, note);
    return false;
}

bool quorum_request_allowed(handler *h, handler_request *req, int32_t claimed_id)
{
    if (quorum_identity_allowed(h, req, claimed_id, false))
        return true;
    reply_raft_error(h, req, KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    return false;
}
