/* OffsetCommit, TxnOffsetCommit and OffsetFetch checks for both group
 * types (Kafka's OffsetMetadataManager.validateOffsetCommit /
 * validateTransactionalOffsetCommit / validateOffsetFetch and
 * ConsumerGroup.validateOffsetCommit / validateOffsetFetch): a consumer
 * group's generation is the member epoch. */
#include <string.h>

#include "consumer_internal.h"

/* ConsumerGroup.validateMemberEpoch: a classic member's wrong generation
 * is ILLEGAL_GENERATION, a consumer member's STALE_MEMBER_EPOCH. */
static enum kafka_error member_epoch(const cmember *m, int32_t epoch)
{
    if (epoch == m->member_epoch)
        return KAFKA_NONE;
    return m->classic ? KAFKA_ILLEGAL_GENERATION : KAFKA_STALE_MEMBER_EPOCH;
}

static enum kafka_error consumer_commit(const cgroup *cg, const group_commit_check *k)
{
    if (k->generation < 0 && cg->member_count == 0)
        return KAFKA_NONE; /* an admin client or a consumer without a group */
    const cmember *m = cg_member(cg, k->member_id ? k->member_id : "");
    if (!m)
        return KAFKA_UNKNOWN_MEMBER_ID;
    if (!k->transactional && !m->classic && k->api_version < 9)
        return KAFKA_UNSUPPORTED_VERSION; /* consumer members commit with v9+ */
    enum kafka_error e = member_epoch(m, k->generation);
    /* TxnOffsetCommit: clients do not know STALE_MEMBER_EPOCH there. */
    return k->transactional && e == KAFKA_STALE_MEMBER_EPOCH ? KAFKA_ILLEGAL_GENERATION : e;
}

enum kafka_error group_validate_commit(const group_coord *c, const group_commit_check *k,
                                       bool *group_exists)
{
    const ggroup *g = k->group_id && gc_str_ok(k->group_id) ? gc_find(c, k->group_id) : NULL;
    if (g && g->type == GROUP_TYPE_CONSUMER) {
        *group_exists = true;
        return consumer_commit(g->cg, k);
    }
    enum kafka_error e = group_validate_offset_commit(c, k->group_id, k->member_id,
                                                      k->instance_id, k->generation, group_exists);
    /* OffsetCommit v9+ names a missing group as such. */
    if (!g && e == KAFKA_ILLEGAL_GENERATION && !k->transactional && k->api_version >= 9)
        return KAFKA_GROUP_ID_NOT_FOUND;
    return e;
}

enum kafka_error cc_validate_commit_latest(const ggroup *g, const char *member_id,
                                          int32_t generation)
{
    group_commit_check k = {.member_id = member_id, .generation = generation,
                            .api_version = INT16_MAX};
    return consumer_commit(g->cg, &k);
}

enum kafka_error group_validate_offset_fetch(const group_coord *c, const char *group_id,
                                             const char *member_id, int32_t epoch)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    if (!g || g->type != GROUP_TYPE_CONSUMER)
        return KAFKA_NONE;
    if (!member_id && epoch < 0)
        return KAFKA_NONE;
    const cmember *m = cg_member(g->cg, member_id ? member_id : "");
    return m ? member_epoch(m, epoch) : KAFKA_UNKNOWN_MEMBER_ID;
}
