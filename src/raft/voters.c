/* The voter set in force (KIP-853, issue 20): the static voters of the
 * configuration (kraft.version 0), or the latest Voters record of the
 * voter history (raft_voter_entry), committed or not, as Kafka's
 * VoterSetHistory. */
#include <string.h>

#include "raft_internal.h"

const kq_voter_set *raft_voters(const raft *r)
{
    for (int i = r->vh_count - 1; i >= 0; i--)
        if (r->vh[i].has_voters)
            return &r->vh[i].voters;
    return &r->static_voters;
}

int16_t raft_kraft_version(const raft *r)
{
    return r->vh_count > 0 ? r->vh[r->vh_count - 1].kraft_version : 0;
}

bool raft_voters_at(const raft *r, int64_t offset, raft_voter_entry *out)
{
    for (int i = r->vh_count - 1; i >= 0; i--)
        if (r->vh[i].offset <= offset) {
            *out = r->vh[i];
            if (!out->has_voters) { /* a KRaftVersion alone: carry the set */
                out->voters = r->static_voters;
                for (int j = i - 1; j >= 0; j--)
                    if (r->vh[j].has_voters) {
                        out->voters = r->vh[j].voters;
                        break;
                    }
                out->has_voters = r->vh[i].kraft_version > 0;
            }
            return true;
        }
    return false;
}
