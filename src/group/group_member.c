/* One member's protocols: copies of the names and metadata of a JoinGroup,
 * bounded by KQ_GROUP_PROTOCOLS_MAX and KQ_GROUP_MEMBER_BYTES_MAX. */
#include <stdlib.h>
#include <string.h>

#include "group_internal.h"
#include "kq/assert.h"

static void free_protocols(gmember *m)
{
    for (int i = 0; i < m->protocol_count; i++) {
        free(m->metadata[i]);
        m->metadata[i] = NULL;
        m->metadata_len[i] = 0;
    }
    m->protocol_count = 0;
}

void gm_free(gmember *m)
{
    free_protocols(m);
    free(m->assignment);
    free(m);
}

void gm_account(group_coord *c, ggroup *g, gmember *m, int64_t delta)
{
    KQ_ASSERT(delta >= 0 || ((uint64_t)-delta <= m->bytes && (uint64_t)-delta <= g->bytes &&
                             (uint64_t)-delta <= c->bytes));
    m->bytes += (uint64_t)delta;
    g->bytes += (uint64_t)delta;
    c->bytes += (uint64_t)delta;
}

static uint64_t metadata_bytes(const gmember *m)
{
    uint64_t n = 0;
    for (int i = 0; i < m->protocol_count; i++)
        n += m->metadata_len[i];
    return n;
}

/* Whether g and c have room for m's metadata to become want bytes. */
static enum kafka_error budget(const group_coord *c, const ggroup *g, const gmember *m,
                               uint64_t want, const char **limit)
{
    uint64_t have = metadata_bytes(m);
    if (want <= have)
        return KAFKA_NONE;
    uint64_t more = want - have;
    if (g->bytes + more > KQ_GROUP_BYTES_MAX) {
        *limit = "KQ_GROUP_BYTES_MAX (16 MiB of member metadata and assignments per group)";
        return KAFKA_GROUP_MAX_SIZE_REACHED;
    }
    if (c->bytes + more > KQ_GROUPS_BYTES_MAX) {
        *limit = "KQ_GROUPS_BYTES_MAX (256 MiB of member metadata and assignments in all groups)";
        return KAFKA_COORDINATOR_NOT_AVAILABLE;
    }
    return KAFKA_NONE;
}

/* The group store's budget (issue 24) for m with the request's protocols. */
static enum kafka_error persist_budget(const group_coord *c, const ggroup *g, const gmember *m,
                                       const group_join_request *req, const char **limit)
{
    size_t meta = 0;
    for (int i = 0; i < req->protocol_count; i++)
        if (req->protocols[i].metadata_len > meta)
            meta = req->protocols[i].metadata_len;
    if (gp_admits(c, g, m, m->id, req, meta, m->assignment_len))
        return KAFKA_NONE;
    *limit = "KQ_GROUP_STORE_BYTES_MAX (8 MiB of group membership in the log and snapshots)";
    return KAFKA_COORDINATOR_NOT_AVAILABLE;
}

/* Replaces m's protocols with the request's (validated by the caller). */
enum kafka_error gm_set_protocols(group_coord *c, ggroup *g, gmember *m,
                                  const group_join_request *req, const char **limit)
{
    uint64_t want = 0;
    for (int i = 0; i < req->protocol_count; i++)
        want += req->protocols[i].metadata_len;
    enum kafka_error err = budget(c, g, m, want, limit);
    if (err == KAFKA_NONE)
        err = persist_budget(c, g, m, req, limit);
    if (err != KAFKA_NONE)
        return err;
    gm_account(c, g, m, -(int64_t)metadata_bytes(m));
    free_protocols(m);
    for (int i = 0; i < req->protocol_count; i++) {
        const group_protocol *p = &req->protocols[i];
        gc_copy(m->protocol_names[i], p->name);
        m->metadata[i] = malloc(p->metadata_len ? p->metadata_len : 1);
        if (!m->metadata[i]) {
            gm_account(c, g, m, -(int64_t)metadata_bytes(m));
            free_protocols(m);
            return KAFKA_UNKNOWN_SERVER_ERROR;
        }
        if (p->metadata_len)
            memcpy(m->metadata[i], p->metadata, p->metadata_len);
        m->metadata_len[i] = p->metadata_len;
        m->protocol_count = i + 1;
        gm_account(c, g, m, (int64_t)p->metadata_len);
    }
    m->session_timeout_ms = req->session_timeout_ms;
    m->rebalance_timeout_ms = req->rebalance_timeout_ms;
    gp_recharge(c, g, m);
    return KAFKA_NONE;
}

bool gm_same_protocols(const gmember *m, const group_join_request *req)
{
    if (m->protocol_count != req->protocol_count)
        return false;
    for (int i = 0; i < req->protocol_count; i++) {
        const group_protocol *p = &req->protocols[i];
        if (strcmp(m->protocol_names[i], p->name) != 0 || m->metadata_len[i] != p->metadata_len)
            return false;
        if (p->metadata_len && memcmp(m->metadata[i], p->metadata, p->metadata_len) != 0)
            return false;
    }
    return true;
}

int gm_protocol_index(const gmember *m, const char *name)
{
    for (int i = 0; i < m->protocol_count; i++)
        if (strcmp(m->protocol_names[i], name) == 0)
            return i;
    return -1;
}
