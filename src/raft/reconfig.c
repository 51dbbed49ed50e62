/* The leader's voter changes (KIP-853, issue 20): AddRaftVoter,
 * RemoveRaftVoter and UpdateRaftVoter. */
#include "kq/kafka_errors.h"
#include "raft_internal.h"

void raft_on_voter_change_request(raft *r, const raft_msg *m, raft_output *out)
{
    raft_msg a = {.type = RAFT_MSG_VOTER_CHANGE_RESPONSE, .to = m->from, .token = m->token};
    a.u.voter_change_response.error = KAFKA_UNSUPPORTED_VERSION;
    a.u.voter_change_response.message = "the kraft.version feature is 0";
    (void)r;
    raft_out_send(out, &a);
}
