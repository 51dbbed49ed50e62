/* A KRaft voter set (KIP-853): who votes and counts toward the high
 * watermark, as a VotersRecord (control type 6) names them. Plain data,
 * shared by the record codec (src/record/control_voters.c), the bootstrap
 * snapshot, the Raft core (the set in force), the executor (peers'
 * endpoints) and the handlers (DescribeQuorum, the voter RPCs).
 *
 * A voter is a replica key, its node id and its log directory id, with the
 * endpoint its peers reach it at (the first of the record's endpoints: the
 * controller listener's) and the kraft.version range it supports. */
#ifndef KQ_VOTER_SET_H
#define KQ_VOTER_SET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kq/buf.h" /* kq_uuid */
#include "kq/limits.h"

typedef struct kq_voter {
    int32_t id;
    kq_uuid directory_id; /* zero: none (a static voter) */
    char listener[KQ_VOTER_NAME_BYTES_MAX + 1]; /* "" for a static voter */
    char host[KQ_VOTER_NAME_BYTES_MAX + 1];
    uint16_t port;
    int16_t kraft_version_min; /* the range it supports (Kafka 4.4: 0..1) */
    int16_t kraft_version_max;
} kq_voter;

typedef struct kq_voter_set {
    int count;
    kq_voter voters[KQ_VOTER_SET_MAX];
} kq_voter_set;

/* The index of node id in set, or -1. */
static inline int kq_voter_set_find(const kq_voter_set *set, int32_t id)
{
    for (int i = 0; i < set->count; i++)
        if (set->voters[i].id == id)
            return i;
    return -1;
}

/* Whether replica (id, dir) is a voter of set: the id is listed and, when
 * the entry names a directory id, dir is that one (KIP-853 ReplicaKey). */
static inline bool kq_voter_set_has_replica(const kq_voter_set *set, int32_t id,
                                            const kq_uuid *dir)
{
    int i = kq_voter_set_find(set, id);
    if (i < 0)
        return false;
    const kq_uuid *want = &set->voters[i].directory_id;
    static const kq_uuid zero;
    return memcmp(want, &zero, sizeof zero) == 0 || memcmp(want, dir, sizeof *dir) == 0;
}

#endif
