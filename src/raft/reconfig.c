/* The leader's voter changes (KIP-853, issue 20): AddRaftVoter,
 * RemoveRaftVoter and UpdateRaftVoter, checked in the order and answered
 * with the codes of Kafka's AddVoterHandler, RemoveVoterHandler and
 * UpdateVoterHandler. One change at a time, never before the leader has
 * committed an entry of its own epoch, never while the Voters record in
 * force is uncommitted: together they make every change a single-server
 * change from a committed set (the fix of the bug in Ongaro's 2015
 * raft-dev post). The change is a Voters record the leader appends; the
 * set it names is in force from then on, committed or not (voters.c).
 *
 * Differences from Kafka, on purpose (docs/deviations.md): the leader does
 * not ask a new voter's ApiVersions (it takes kraft.version 0-1, all this
 * server speaks); and a new voter that has not caught up yet is waited
 * for until the request's deadline instead of refused at once. */
#include <string.h>

#include "kq/kafka_errors.h"
#include "kq/uuid.h"
#include "raft_internal.h"

static void answer(raft_output *out, int32_t to, uint64_t token, int16_t error,
                   const char *message)
{
    raft_msg a = {.type = RAFT_MSG_VOTER_CHANGE_RESPONSE, .to = to, .token = token};
    a.u.voter_change_response.error = error;
    a.u.voter_change_response.message = message;
    raft_out_send(out, &a);
}

static void finish(raft *r, raft_output *out, int16_t error, const char *message)
{
    if (!r->vc.answered)
        answer(out, r->vc.from, r->vc.token, error, message);
    r->vc.active = false;
}

static bool is_mutant(const raft *r, uint32_t m)
{
    return (r->cfg.mutants & m) != 0;
}

/* The checks common to the three after the leader's own (Kafka's order):
 * one change at a time, the epoch committed, kraft.version 1, the set in
 * force committed. NULL when it may go on. */
static const char *busy(const raft *r, const char *what, int16_t *error)
{
    *error = KAFKA_REQUEST_TIMED_OUT;
    if (r->vc.active && !is_mutant(r, RAFT_MUTANT_TWO_CHANGES_IN_FLIGHT))
        return "Request timed out waiting for leader to handle previous voter change request";
    if (!r->leader_hw_known && !is_mutant(r, RAFT_MUTANT_CHANGE_BEFORE_EPOCH_COMMIT))
        return "Request timed out waiting for leader to establish HWM and fence previous "
               "voter changes";
    if (raft_kraft_version(r) < 1) {
        *error = KAFKA_UNSUPPORTED_VERSION;
        return what;
    }
    if ((!raft_voters_dynamic(r) || !raft_voters_committed(r)) &&
        !is_mutant(r, RAFT_MUTANT_TWO_CHANGES_IN_FLIGHT))
        return "Request timed out waiting for voters to commit the latest voter change";
    return NULL;
}

bool raft_reconfig_append(raft *r, raft_output *out, const raft_msg *m, const kq_voter_set *set,
                          int16_t new_kraft_version)
{
    if (!raft_voters_room(r))
        return false;
    /* an upgrade writes KRaftVersion and Voters in one batch: the Voters
     * record is the batch's second and counts from its own offset */
    int records = new_kraft_version >= 0 ? 2 : 1;
    raft_voter_entry e = {.offset = r->end_offset + records - 1,
                          .kraft_version = new_kraft_version >= 0 ? new_kraft_version
                                                                  : raft_kraft_version(r),
                          .has_voters = true, .voters = *set};
    record_control_args c = {.base_offset = r->end_offset, .epoch = r->q.epoch,
                             .timestamp_ms = r->now_ms, .leader_id = -1,
                             .kraft_version = new_kraft_version, .voters = set};
    if (!raft_leader_append_control(r, out, &c, records))
        return false;
    raft_voters_push(r, out, &e);
    r->vc.offset = e.offset;
    r->vc.answered = false;
    r->vc.active = true;
    r->vc.type = m->type;
    r->vc.from = m->from;
    r->vc.token = m->token;
    r->vc.deadline_ms = r->now_ms + r->cfg.request_timeout_ms;
    return true;
}

static void on_add(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_add_voter_request *q = &m->u.add_voter_request;
    int16_t err;
    const char *why = busy(r, "Cluster doesn't support adding voter because the kraft.version "
                              "feature is 0", &err);
    if (!why && kq_voter_set_find(raft_voters(r), q->voter.id) >= 0) {
        err = KAFKA_DUPLICATE_VOTER;
        why = "The voter id is already part of the set of voters";
    } else if (!why && raft_voters(r)->count == KQ_VOTER_SET_MAX) {
        err = KAFKA_INVALID_REQUEST;
        why = "The set of voters is full (KQ_VOTER_SET_MAX)";
    }
    if (why) {
        answer(out, m->from, m->token, err, why);
        return;
    }
    /* Waits for the new replica to catch up (raft_reconfig_poll). */
    r->vc = (raft_voter_change){.active = true, .type = m->type, .from = m->from,
                                .token = m->token, .offset = -1, .voter = q->voter,
                                .ack_when_committed = q->ack_when_committed,
                                .deadline_ms = r->now_ms + r->cfg.request_timeout_ms};
    raft_reconfig_poll(r, out);
}

static void on_remove(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_remove_voter_request *q = &m->u.remove_voter_request;
    int16_t err;
    const char *why = busy(r, "Cluster doesn't support removing voter because the "
                              "kraft.version feature is 0", &err);
    kq_voter_set set = *raft_voters(r);
    int i = kq_voter_set_find(&set, q->voter_id);
    if (!why && (i < 0 || set.count == 1 ||
                 memcmp(&set.voters[i].directory_id, &q->directory_id, sizeof(kq_uuid)) != 0)) {
        err = KAFKA_VOTER_NOT_FOUND;
        why = "Cannot remove the voter from the set of voters";
    }
    if (!why) {
        set.voters[i] = set.voters[--set.count];
        if (!raft_reconfig_append(r, out, m, &set, -1)) {
            err = KAFKA_REQUEST_TIMED_OUT;
            why = "no room to append the change now";
        }
    }
    if (why)
        answer(out, m->from, m->token, err, why);
}

static const char *update_refusal(raft *r, const kq_voter *v, int16_t *err)
{
    *err = KAFKA_INVALID_REQUEST;
    if (v->kraft_version_min < 0 || v->kraft_version_max < v->kraft_version_min)
        return "the voter's kraft.version range is not valid";
    *err = KAFKA_REQUEST_TIMED_OUT;
    if (r->vc.active && !is_mutant(r, RAFT_MUTANT_TWO_CHANGES_IN_FLIGHT))
        return "Request timed out waiting for leader to handle previous voter change request";
    if (!r->leader_hw_known && !is_mutant(r, RAFT_MUTANT_CHANGE_BEFORE_EPOCH_COMMIT))
        return "Request timed out waiting for leader to establish HWM and fence previous "
               "voter changes";
    *err = KAFKA_INVALID_REQUEST;
    if (!v->host[0])
        return "Update voter request didn't include the endpoint for the default listener";
    int16_t kv = raft_kraft_version(r);
    if (kv < v->kraft_version_min || kv > v->kraft_version_max)
        return "the voter's kraft.version range does not hold the finalized version";
    const kq_voter_set *set = raft_voters(r);
    *err = KAFKA_VOTER_NOT_FOUND;
    if (kv < 1) /* the static set: Kafka matches by id and keeps it for an upgrade */
        return raft_upgrade_note_voter(r, v) == KAFKA_NONE ? NULL : "";
    *err = KAFKA_REQUEST_TIMED_OUT;
    if (!raft_voters_committed(r) && !is_mutant(r, RAFT_MUTANT_TWO_CHANGES_IN_FLIGHT))
        return "Request timed out waiting for voters to commit the latest voter change";
    *err = KAFKA_VOTER_NOT_FOUND;
    if (!kq_voter_set_has_replica(set, v->id, &v->directory_id))
        return "";
    return NULL;
}

/* Kafka's UpdateVoterHandler: a voter tells the leader its endpoint and
 * kraft.version range; at kraft.version 1 a new Voters record holds them,
 * answered once appended. */
static void on_update(raft *r, const raft_msg *m, raft_output *out)
{
    const kq_voter *v = &m->u.update_voter_request.voter;
    int16_t err;
    const char *why = update_refusal(r, v, &err);
    if (!why && raft_kraft_version(r) >= 1) {
        kq_voter_set set = *raft_voters(r);
        set.voters[kq_voter_set_find(&set, v->id)] = *v;
        if (raft_reconfig_append(r, out, m, &set, -1)) {
            r->vc.answered = true; /* on append, as Kafka; pending until committed */
        } else {
            err = KAFKA_REQUEST_TIMED_OUT;
            why = "no room to append the change now";
        }
    }
    /* UpdateRaftVoter's answer has no message */
    answer(out, m->from, m->token, why ? err : KAFKA_NONE, NULL);
}

void raft_on_voter_change_request(raft *r, const raft_msg *m, raft_output *out)
{
    if (m->type == RAFT_MSG_UPDATE_VOTER_REQUEST) { /* the epoch it names first */
        int32_t e = m->u.update_voter_request.current_leader_epoch;
        if (e != r->q.epoch) {
            answer(out, m->from, m->token,
                   e < r->q.epoch ? KAFKA_FENCED_LEADER_EPOCH : KAFKA_UNKNOWN_LEADER_EPOCH,
                   NULL);
            return;
        }
    }
    if (r->role != RAFT_ROLE_LEADER || r->shutting_down) {
        answer(out, m->from, m->token,
               r->role == RAFT_ROLE_LEADER ? KAFKA_BROKER_NOT_AVAILABLE
                                           : KAFKA_NOT_LEADER_OR_FOLLOWER, NULL);
        return;
    }
    const kq_voter *v = m->type == RAFT_MSG_ADD_VOTER_REQUEST ? &m->u.add_voter_request.voter
                        : m->type == RAFT_MSG_UPDATE_VOTER_REQUEST
                            ? &m->u.update_voter_request.voter : NULL;
    int32_t id = v ? v->id : m->u.remove_voter_request.voter_id;
    const kq_uuid *dir = v ? &v->directory_id : &m->u.remove_voter_request.directory_id;
    if (id < 0 || kq_uuid_is_zero(dir)) {
        answer(out, m->from, m->token, KAFKA_INVALID_REQUEST,
               m->type == RAFT_MSG_REMOVE_VOTER_REQUEST
                   ? "Remove voter request didn't include a valid voter"
                   : "Add voter request didn't include a valid voter");
        return;
    }
    if (m->type == RAFT_MSG_ADD_VOTER_REQUEST && !v->host[0]) {
        answer(out, m->from, m->token, KAFKA_INVALID_REQUEST,
               "Add voter request didn't include the endpoint for the default listener");
        return;
    }
    if (m->type == RAFT_MSG_ADD_VOTER_REQUEST)
        on_add(r, m, out);
    else if (m->type == RAFT_MSG_REMOVE_VOTER_REQUEST)
        on_remove(r, m, out);
    else
        on_update(r, m, out);
}

/* The new voter fetched as an observer under its key and reached the
 * leader's end within the last fetch timeout (Kafka's isReplicaCaughtUp:
 * a replica that caught up once and then stopped, or fell behind, is not
 * caught up; found by the simulator's reconfig scenario). */
static bool caught_up(raft *r)
{
    if (is_mutant(r, RAFT_MUTANT_ADD_BEFORE_CAUGHT_UP))
        return true;
    /* Beyond Kafka's rule (caught up within the fetch timeout): its latest
     * fetch holds everything committed, so a replica that caught up, then
     * restarted far behind, is not added on its old record (it would stall
     * commits while it catches up). */
    raft_peer *o = raft_observer(r, r->vc.voter.id, false);
    return o && o->last_caught_up_ms >= 0 && o->last_fetch_ms >= 0 &&
           o->last_caught_up_ms >= r->now_ms - (int64_t)r->cfg.fetch_timeout_ms &&
           o->end_offset >= r->high_watermark &&
           memcmp(&o->fetch_dir, &r->vc.voter.directory_id, sizeof(kq_uuid)) == 0;
}

void raft_reconfig_poll(raft *r, raft_output *out)
{
    if (!r->vc.active)
        return;
    if (r->vc.offset >= 0 && r->high_watermark > r->vc.offset) {
        finish(r, out, KAFKA_NONE, NULL); /* committed (a leader that removed itself resigned) */
        return;
    }
    if (r->role != RAFT_ROLE_LEADER) {
        finish(r, out, KAFKA_NOT_LEADER_OR_FOLLOWER, NULL);
        return;
    }
    if (r->now_ms >= r->vc.deadline_ms) {
        finish(r, out, KAFKA_REQUEST_TIMED_OUT,
               r->vc.offset < 0 ? "Aborted add voter operation since it is lagging behind"
                                : NULL);
        return;
    }
    if (r->vc.offset < 0 && caught_up(r)) {
        kq_voter_set set = *raft_voters(r);
        raft_voter_change vc = r->vc;
        set.voters[set.count++] = vc.voter; /* checked: not a voter, room (count < max) */
        raft_msg m = {.type = vc.type, .from = vc.from, .token = vc.token};
        if (raft_reconfig_append(r, out, &m, &set, -1)) {
            r->vc.voter = vc.voter;
            r->vc.deadline_ms = vc.deadline_ms; /* one timer for the whole operation */
            if (!vc.ack_when_committed) {
                answer(out, vc.from, vc.token, KAFKA_NONE, NULL);
                r->vc.answered = true;
            }
        }
    }
    raft_wake(out, r->vc.deadline_ms);
}
