/* kraft.version 0 -> 1 (KIP-853, Kafka's KRaftVersionUpgrade): a static
 * quorum's voters move into the log. At kraft.version 0 every follower
 * voter tells each new leader its directory id, endpoint and supported
 * kraft.version range (UpdateRaftVoter); the leader keeps them with the
 * static ids (volatile_voters). UpdateFeatures kraft.version=1 is then
 * taken only when every static voter has told it a directory id and a
 * range holding 1 (Kafka's maybeAppendUpgradedKRaftVersion): the leader
 * appends KRaftVersion 1 and a Voters record of that set in one batch, and
 * answers once it is committed. From then on the set in force comes from
 * the log and changes with AddRaftVoter / RemoveRaftVoter. */
#include <stdio.h>
#include <string.h>

#include "kq/kafka_errors.h"
#include "raft_internal.h"

void raft_upgrade_on_elected(raft *r)
{
    r->volatile_voters = r->static_voters; /* ids; nothing told yet */
    int i = kq_voter_set_find(&r->volatile_voters, r->cfg.node_id);
    if (i >= 0) {
        kq_voter self = r->cfg.local;
        self.id = r->cfg.node_id;
        self.directory_id = r->cfg.directory_id;
        r->volatile_voters.voters[i] = self;
    }
}

int16_t raft_upgrade_note_voter(raft *r, const kq_voter *v)
{
    int i = kq_voter_set_find(&r->static_voters, v->id);
    if (i < 0)
        return KAFKA_VOTER_NOT_FOUND; /* Kafka matches by id at version 0 */
    int k = kq_voter_set_find(&r->volatile_voters, v->id);
    if (k >= 0)
        r->volatile_voters.voters[k] = *v;
    return KAFKA_NONE;
}

bool raft_upgrade_update_request(raft *r, raft_msg *m)
{
    if (raft_kraft_version(r) != 0 || r->updated_epoch == r->q.epoch || !r->is_voter ||
        !raft_dir_set(&r->cfg.directory_id) || !r->cfg.local.host[0])
        return false;
    m->type = RAFT_MSG_UPDATE_VOTER_REQUEST;
    m->u.update_voter_request.current_leader_epoch = r->q.epoch;
    m->u.update_voter_request.voter = r->cfg.local;
    m->u.update_voter_request.voter.id = r->cfg.node_id;
    m->u.update_voter_request.voter.directory_id = r->cfg.directory_id;
    return true;
}

/* Why the voters told so far cannot move to the log (NULL: they can). */
static const char *not_ready(const raft *r)
{
    const kq_voter_set *v = &r->volatile_voters;
    if (v->count != r->static_voters.count)
        return "the voters are not known";
    for (int i = 0; i < v->count; i++) {
        if (!raft_dir_set(&v->voters[i].directory_id) || !v->voters[i].host[0])
            return "not every voter has sent its directory id and endpoint (UpdateRaftVoter)";
        if (v->voters[i].kraft_version_max < 1)
            return "not all of the voters support it";
    }
    return NULL;
}

static void answer(raft_output *out, const raft_msg *m, int16_t error, const char *message)
{
    raft_msg a = {.type = RAFT_MSG_VOTER_CHANGE_RESPONSE, .to = m->from, .token = m->token};
    a.u.voter_change_response.error = error;
    a.u.voter_change_response.message = message;
    raft_out_send(out, &a);
}

void raft_on_upgrade_kraft(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_upgrade_kraft_request *q = &m->u.upgrade_kraft_request;
    int16_t kv = raft_kraft_version(r);
    const char *why = NULL;
    if (r->role != RAFT_ROLE_LEADER || r->shutting_down) {
        answer(out, m, KAFKA_NOT_CONTROLLER, NULL);
        return;
    }
    if (q->level == kv) {
        answer(out, m, KAFKA_NONE, NULL); /* nothing to do, as Kafka */
        return;
    }
    if (q->level < kv || q->level > 1)
        why = q->level < kv ? "Invalid update version: kraft.version cannot be downgraded"
                            : "Invalid update version: kraft.version only goes up to 1";
    else if (r->vc.active || !r->leader_hw_known)
        why = NULL; /* busy: below */
    else
        why = not_ready(r);
    if (!why && (r->vc.active || !r->leader_hw_known)) {
        answer(out, m, KAFKA_REQUEST_TIMED_OUT,
               "the leader is busy with another voter change or has not committed its epoch");
        return;
    }
    if (why) {
        answer(out, m, KAFKA_INVALID_UPDATE_VERSION, why);
        return;
    }
    if (q->validate_only) {
        answer(out, m, KAFKA_NONE, NULL);
        return;
    }
    if (!raft_reconfig_append(r, out, m, &r->volatile_voters, 1))
        answer(out, m, KAFKA_REQUEST_TIMED_OUT, "no room to append the change now");
}
