/* The KIP-848 online migration between classic and consumer groups
 * (GroupMetadataManager.validateOnlineUpgrade, convertToConsumerGroup,
 * validateOnlineDowngrade*, convertToClassicGroup). Conversions of Empty
 * groups are always allowed, whatever group.consumer.migration.policy. */
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

static bool classic_empty(const ggroup *g)
{
    return g->type == GROUP_TYPE_CLASSIC && g->state == GROUP_EMPTY && g->member_count == 0 &&
           g->pending_count == 0;
}

bool cc_may_upgrade(const group_coord *c, const ggroup *g)
{
    (void)c;
    return classic_empty(g);
}

bool cc_upgrade(group_coord *c, ggroup *g)
{
    (void)c;
    KQ_ASSERT(classic_empty(g));
    return true; /* the caller makes it a consumer group */
}

bool cc_may_downgrade(const group_coord *c, const ggroup *g, const cmember *m)
{
    (void)c;
    (void)g;
    (void)m;
    return false;
}

void cc_downgrade(group_coord *c, ggroup *g, cmember *m)
{
    (void)c;
    (void)g;
    (void)m;
    KQ_ASSERT(!"no downgrade yet");
}

/* An Empty consumer group becomes a classic one (Kafka's
 * maybeDeleteEmptyConsumerGroup: the group is deleted and created anew). */
static void to_classic_empty(group_coord *c, ggroup *g)
{
    KQ_ASSERT(g->type == GROUP_TYPE_CONSUMER && g->cg->member_count == 0);
    cg_free(c, g);
    g->type = GROUP_TYPE_CLASSIC;
    g->state = GROUP_EMPTY;
    g->protocol_type[0] = g->protocol_name[0] = g->leader_id[0] = '\0';
    g->generation = 0;
}

bool cc_join(group_coord *c, ggroup *g, const group_join_request *req)
{
    if (g->cg->member_count == 0) {
        to_classic_empty(c, g);
        return false;
    }
    group_answer *a = gc_answer(c, GROUP_ANSWER_JOIN, req->token, KAFKA_INCONSISTENT_GROUP_PROTOCOL);
    gc_copy(a->member_id, req->member_id);
    return true;
}

void cc_sync(group_coord *c, ggroup *g, const group_sync_request *req)
{
    (void)g;
    gc_answer(c, GROUP_ANSWER_SYNC, req->token, KAFKA_UNKNOWN_MEMBER_ID);
}

enum kafka_error cc_heartbeat(group_coord *c, ggroup *g, const char *member_id,
                              const char *instance_id, int32_t generation)
{
    (void)c, (void)g, (void)member_id, (void)instance_id, (void)generation;
    return KAFKA_UNKNOWN_MEMBER_ID;
}

enum kafka_error cc_leave(group_coord *c, ggroup *g, group_leave_member *members, int count)
{
    (void)c, (void)g;
    for (int i = 0; i < count; i++)
        members[i].error = KAFKA_UNKNOWN_MEMBER_ID;
    return KAFKA_NONE;
}
