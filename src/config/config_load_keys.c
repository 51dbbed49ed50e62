/* The parse functions of the loader's complex keys (named by their entries
 * in config_keys.def): values kept for the checks after the file is read
 * (config_resolve.c), and the keys whose refusals say more than a range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "config_load.h"
#include "kq/uuid.h"

/* broker.id and node.id: both kept, they must agree (resolve_node_id). */
int cfg_parse_node_id(const cfg_set *s, char *why, size_t whylen)
{
    int64_t x;
    if (kq_config_parse_int(s->value, s->key->min, s->key->max, &x, why, whylen) != 0)
        return -1;
    s->load->node_id[s->alias ? 1 : 0] = x;
    s->load->node_id_line[s->alias ? 1 : 0] = s->line;
    return 0;
}

/* The value as written, read once the file is read (listeners, voters,
 * log directory, mechanisms). */
int cfg_parse_keep(const cfg_set *s, char *why, size_t whylen)
{
    char *copy = strdup(s->value);
    if (!copy)
        return kq_config_why(why, whylen, "out of memory");
    free(s->load->raw[s->key_id]);
    s->load->raw[s->key_id] = copy;
    return 0;
}

/* quorum.topic.id: Kafka's Uuid text, never the zero id (Kafka's
 * Uuid.ZERO_UUID means "no id" on the wire). */
int cfg_parse_topic_id(const cfg_set *s, char *why, size_t whylen)
{
    kq_uuid id;
    if (kq_uuid_from_string(s->value, strlen(s->value), &id) != 0)
        return kq_config_why(why, whylen,
                             "\"%s\" is not a topic id (22 characters of base64url, as "
                             "Kafka writes a Uuid)", s->value);
    if (kq_uuid_is_zero(&id))
        return kq_config_why(why, whylen, "the zero Uuid is not a topic id");
    s->cfg->topic_id = id;
    return 0;
}

/* queued.max.request.bytes: Kafka reads <= 0 as unbounded; this server
 * always bounds it. Checked against socket.request.max.bytes after parsing. */
int cfg_parse_queued_max(const cfg_set *s, char *why, size_t whylen)
{
    int64_t x;
    if (kq_config_parse_int(s->value, INT64_MIN, INT64_MAX, &x, why, whylen) != 0)
        return -1;
    if (x < s->key->min)
        return kq_config_why(why, whylen,
                             "%lld (unbounded in Kafka) is not supported: this server always "
                             "bounds the memory of requests being read (default %lld)",
                             (long long)x, (long long)s->key->def);
    cfg_key_store(s->key, s->cfg, NULL, x);
    return 0;
}

/* connections.max.idle.ms: -1 never closes idle connections (as in Kafka). */
int cfg_parse_idle_max(const cfg_set *s, char *why, size_t whylen)
{
    int64_t x;
    if (kq_config_parse_int(s->value, s->key->min, s->key->max, &x, why, whylen) != 0)
        return -1;
    if (x == 0)
        return kq_config_why(why, whylen,
                             "must be positive, or -1 to never close idle connections");
    cfg_key_store(s->key, s->cfg, NULL, x);
    return 0;
}

/* sasl.enabled.mechanisms, or its listener.name.<name>. form (kept per
 * listener until the listeners are known; resolve_sasl). */
int cfg_parse_mechanisms(const cfg_set *s, char *why, size_t whylen)
{
    if (s->listener[0] == '\0')
        return cfg_parse_keep(s, why, whylen);
    cfg_load *c = s->load;
    if (c->sasl_override_count == KQ_CONFIG_LISTENERS_MAX)
        return kq_config_why(why, whylen, "more than %d listeners", KQ_CONFIG_LISTENERS_MAX);
    cfg_listener_value *o = &c->sasl_overrides[c->sasl_override_count];
    o->value = strdup(s->value);
    if (!o->value)
        return kq_config_why(why, whylen, "out of memory");
    snprintf(o->name, sizeof o->name, "%s", s->listener);
    snprintf(o->spelling, sizeof o->spelling, "%s", s->spelling);
    o->line = s->line;
    c->sasl_override_count++;
    return 0;
}

/* authorizer.class.name: any value turns the allow-list authorizer on. */
int cfg_parse_authorizer(const cfg_set *s, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    s->cfg->authorizer_enabled = s->value[0] != '\0';
    return 0;
}

/* super.users (arg -1) and acl.<op>.principals (arg: enum kq_config_acl_op). */
int cfg_parse_principals(const cfg_set *s, char *why, size_t whylen)
{
    kq_config_principals *out =
        s->key->arg < 0 ? &s->cfg->super_users : &s->cfg->acl[s->key->arg];
    return kq_config_parse_principals(s->value, out, why, whylen);
}
