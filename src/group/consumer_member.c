/* A consumer group member's fields from a heartbeat (Kafka's
 * ConsumerGroupMember.Builder.maybeUpdate*): what changed, whether the
 * subscription changed (which bumps the group epoch), and the byte budget
 * the change needs. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The request's names sorted and unique (pointers into the request). */
static const char **sorted_names(const group_consumer_heartbeat_request *r, int *n)
{
    *n = 0;
    const char **v = malloc((size_t)(r->subscribed_topic_count + 1) * sizeof(*v));
    if (!v)
        return NULL;
    for (int i = 0; i < r->subscribed_topic_count; i++)
        v[i] = r->subscribed_topic_names[i];
    qsort(v, (size_t)r->subscribed_topic_count, sizeof(*v), name_cmp);
    for (int i = 0; i < r->subscribed_topic_count; i++)
        if (*n == 0 || strcmp(v[*n - 1], v[i]) != 0)
            v[(*n)++] = v[i];
    return v;
}

static bool same_names(const cmember *m, const char **v, int n)
{
    if (m->topic_count != n)
        return false;
    for (int i = 0; i < n; i++)
        if (strcmp(m->topics[i], v[i]) != 0)
            return false;
    return true;
}

static bool set_names(cmember *m, const char **v, int n)
{
    char **t = calloc((size_t)(n ? n : 1), sizeof(*t));
    for (int i = 0; t && i < n; i++)
        if (!(t[i] = strdup(v[i]))) {
            for (int j = 0; j < i; j++)
                free(t[j]);
            free(t);
            t = NULL;
        }
    if (!t)
        return false;
    for (int i = 0; i < m->topic_count; i++)
        free(m->topics[i]);
    free(m->topics);
    m->topics = t;
    m->topic_count = n;
    return true;
}

static int assignor_of(const char *name)
{
    for (int a = 0; a < GROUP_ASSIGNORS_MAX; a++)
        if (strcmp(group_assignor_name((enum group_assignor)a), name) == 0)
            return a;
    return -1;
}

static bool str_update(char *field, const char *value, bool *changed)
{
    if (!value || strcmp(field, value) == 0)
        return false;
    gc_copy(field, value);
    *changed = true;
    return true;
}

/* Bytes m would take with the request's subscription. */
uint64_t cm_bytes_with(const cmember *m, const group_consumer_heartbeat_request *r)
{
    uint64_t b = m->bytes ? m->bytes : cm_bytes(m);
    if (r->subscribed_topic_count < 0)
        return b;
    for (int i = 0; i < m->topic_count; i++)
        b -= strlen(m->topics[i]) + 1 + sizeof(char *);
    for (int i = 0; i < r->subscribed_topic_count; i++)
        b += strlen(r->subscribed_topic_names[i]) + 1 + sizeof(char *);
    return b;
}

/* Applies the request to m. *changed: any persistent field changed;
 * *subscription: the subscribed names changed. false when out of memory
 * (the names are then unchanged). */
bool cm_update(cmember *m, const group_consumer_heartbeat_request *r, bool *changed,
               bool *subscription)
{
    *subscription = false;
    str_update(m->instance_id, r->instance_id, changed);
    str_update(m->rack_id, r->rack_id, changed);
    str_update(m->client_id, r->client_id ? r->client_id : "", changed);
    if (r->rebalance_timeout_ms != -1 && r->rebalance_timeout_ms != m->rebalance_timeout_ms) {
        m->rebalance_timeout_ms = r->rebalance_timeout_ms;
        *changed = true;
    }
    int a = r->server_assignor ? assignor_of(r->server_assignor) : m->assignor;
    if (a != m->assignor) {
        m->assignor = a;
        *changed = true;
    }
    if (r->subscribed_topic_count < 0)
        return true;
    int n;
    const char **v = sorted_names(r, &n);
    if (!v)
        return false;
    bool ok = true;
    if (!same_names(m, v, n)) {
        ok = set_names(m, v, n);
        *subscription = *changed = ok;
    }
    free(v);
    return ok;
}

/* A copy of a static member under a new member id (Kafka's
 * ConsumerGroupMember.Builder(existing, memberId) with epochs 0): its
 * subscription and assignment carry over. NULL when out of memory. */
cmember *cm_clone(const cmember *old, const char *member_id)
{
    cmember *m = cm_new(member_id);
    if (!m)
        return NULL;
    gc_copy(m->instance_id, old->instance_id);
    gc_copy(m->rack_id, old->rack_id);
    gc_copy(m->client_id, old->client_id);
    gc_copy(m->client_host, old->client_host);
    m->rebalance_timeout_ms = old->rebalance_timeout_ms;
    m->assignor = old->assignor;
    m->state = old->state;
    const char **names = malloc((size_t)(old->topic_count + 1) * sizeof(*names));
    bool ok = names != NULL;
    for (int i = 0; ok && i < old->topic_count; i++)
        names[i] = old->topics[i];
    ok = ok && set_names(m, names, old->topic_count) && cs_copy(&m->assigned, &old->assigned) &&
         cs_copy(&m->revoking, &old->revoking) && cs_copy(&m->target, &old->target);
    free(names);
    if (!ok) {
        cm_free(m);
        return NULL;
    }
    return m;
}
