/* Directory ids (issue 20 item 6): a replica is its node id and its log
 * directory, as KIP-853's ReplicaKey. A voter whose directory was replaced
 * (wiped disk, new id) is not its old self: it refuses votes meant for its
 * predecessor (Vote's VoterDirectoryId, as KafkaRaftClient.handleVoteRequest),
 * and the leader does not count it toward the high watermark until it has
 * fetched past all its predecessor could have acknowledged. */
#include <string.h>

#include "kq/uuid.h"
#include "raft_internal.h"

bool raft_dir_set(const kq_uuid *id)
{
    return !kq_uuid_is_zero(id);
}

bool raft_dir_checks(const raft *r)
{
    return raft_dir_set(&r->cfg.directory_id) &&
           !(r->cfg.mutants & RAFT_MUTANT_IGNORE_DIRECTORY_ID);
}

kq_uuid *raft_voter_dir(raft *r, int32_t id)
{
    if (raft_voters_dynamic(r))
        return NULL; /* the voter set names each voter's directory */
    for (int i = 0; i < r->cfg.voter_count; i++)
        if (r->cfg.voter_ids[i] == id)
            return &r->q.voter_directory_ids[i];
    return NULL;
}

bool raft_dir_other_key(const raft *r, const kq_uuid *dir)
{
    return raft_voters_dynamic(r) && raft_dir_checks(r) && raft_dir_set(dir) &&
           memcmp(dir, &r->cfg.directory_id, sizeof *dir) != 0;
}

void raft_store_qstate(raft *r, raft_output *out)
{
    raft_action *a = raft_out_push(out, RAFT_ACTION_STORE_QSTATE);
    if (a)
        a->qstate = r->q;
    else
        r->qstate_pending = true; /* stored at the start of the next step */
}

void raft_dir_learn(raft *r, raft_output *out, int32_t id, const kq_uuid *dir)
{
    kq_uuid *known = raft_voter_dir(r, id);
    if (!known || !raft_dir_set(dir) || raft_dir_set(known) || id == r->cfg.node_id)
        return;
    *known = *dir;
    raft_store_qstate(r, out);
}

bool raft_dir_fetch_counts(raft *r, raft_output *out, raft_peer *p, const kq_uuid *dir,
                           int64_t fetch_offset)
{
    kq_uuid *known = raft_voter_dir(r, p->id);
    if (!known || !raft_dir_set(dir) || !raft_dir_checks(r))
        return true;
    if (!raft_dir_set(known)) {
        raft_dir_learn(r, out, p->id, dir);
        return true;
    }
    if (memcmp(known, dir, sizeof *dir) == 0) {
        p->dir_replaced = false;
        return true;
    }
    if (!p->dir_replaced || memcmp(&p->dir_new, dir, sizeof *dir) != 0) {
        p->dir_replaced = true;
        p->dir_new = *dir;
        p->dir_catchup_offset = r->end_offset;
    }
    if (fetch_offset < p->dir_catchup_offset)
        return false;
    *known = *dir; /* caught up: the new directory is this voter from now on */
    p->dir_replaced = false;
    raft_store_qstate(r, out);
    return true;
}

void raft_dir_caught_up(raft *r, raft_output *out)
{
    if (!r->q.new_directory)
        return;
    r->q.new_directory = false;
    raft_store_qstate(r, out);
}

kq_uuid raft_peer_dir(raft *r, int32_t id)
{
    const kq_voter_set *set = raft_voters(r);
    int i = kq_voter_set_find(set, id);
    if (raft_voters_dynamic(r))
        return i >= 0 ? set->voters[i].directory_id : (kq_uuid){0};
    kq_uuid *known = raft_voter_dir(r, id);
    return known ? *known : (kq_uuid){0};
}
