/* One member's protocols: copies of the names and metadata of a JoinGroup,
 * bounded by KQ_GROUP_PROTOCOLS_MAX and KQ_GROUP_MEMBER_BYTES_MAX. */
#include <stdlib.h>
#include <string.h>

#include "group_internal.h"

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

/* Replaces m's protocols with the request's (validated by the caller). */
enum kafka_error gm_set_protocols(gmember *m, const group_join_request *req)
{
    free_protocols(m);
    for (int i = 0; i < req->protocol_count; i++) {
        const group_protocol *p = &req->protocols[i];
        gc_copy(m->protocol_names[i], p->name);
        m->metadata[i] = malloc(p->metadata_len ? p->metadata_len : 1);
        if (!m->metadata[i]) {
            free_protocols(m);
            return KAFKA_UNKNOWN_SERVER_ERROR;
        }
        if (p->metadata_len)
            memcpy(m->metadata[i], p->metadata, p->metadata_len);
        m->metadata_len[i] = p->metadata_len;
        m->protocol_count = i + 1;
    }
    m->session_timeout_ms = req->session_timeout_ms;
    m->rebalance_timeout_ms = req->rebalance_timeout_ms;
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
