/* The checks across keys, made once the whole file is read: this node's
 * id, the log directory, the listeners and their SASL mechanisms, the
 * voters, and the rules relating two keys. Each error names the line and
 * spelling of the key at fault (cfg_load.line, .spelling). */
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "config_load.h"
#include "kq/config_ssl.h"

static int resolve_node_id(cfg_load *c)
{
    int64_t b = c->node_id[0], n = c->node_id[1]; /* broker.id, node.id */
    if (b < 0 && n < 0) {
        cfg_fail(c, 0, "broker.id", "required (set broker.id or node.id)");
        return -1;
    }
    if (b >= 0 && n >= 0 && b != n) {
        cfg_fail(c, c->node_id_line[1], "node.id", "%lld differs from broker.id %lld",
                 (long long)n, (long long)b);
        return -1;
    }
    c->cfg->node_id = (int32_t)(b >= 0 ? b : n);
    return 0;
}

/* The spelling that won (metadata.log.dir, else log.dirs' first entry,
 * else log.dir). */
static int resolve_log_dir(cfg_load *c)
{
    const char *v = c->raw[CFG_LOG_DIR];
    if (!v)
        return 0; /* default stays */
    const char *key = c->spelling[CFG_LOG_DIR];
    size_t n = strcmp(key, "log.dirs") == 0 ? strcspn(v, ",") : strlen(v);
    char dir[sizeof c->cfg->log_dir];
    while (n && (*v == ' ' || *v == '\t' || *v == '\f')) {
        v++;
        n--;
    }
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\f'))
        n--;
    if (n >= sizeof dir) {
        cfg_fail(c, c->line[CFG_LOG_DIR], key, "path too long (max %zu)", sizeof dir - 1);
        return -1;
    }
    if (n == 0) {
        cfg_fail(c, c->line[CFG_LOG_DIR], key, "empty directory");
        return -1;
    }
    memcpy(dir, v, n);
    dir[n] = '\0';
    strcpy(c->cfg->log_dir, dir);
    return 0;
}

/* quorum.bootstrap.servers and quorum.bootstrap.voters, matched by position. */
static int resolve_bootstrap(cfg_load *c, bool have_servers, bool have_ids)
{
    kq_config *cfg = c->cfg;
    char why[512];
    if (!have_ids) {
        cfg_fail(c, c->line[CFG_BOOT_SERVERS], c->spelling[CFG_BOOT_SERVERS],
                 "needs quorum.bootstrap.voters listing the voter ids in the same order");
        return -1;
    }
    if (!have_servers) {
        cfg_fail(c, c->line[CFG_BOOT_VOTERS], c->spelling[CFG_BOOT_VOTERS],
                 "needs quorum.bootstrap.servers listing host:port in the same order");
        return -1;
    }
    int ns = 0, ni = 0;
    int32_t ids[KQ_CONFIG_VOTERS_MAX];
    if (kq_config_parse_servers(c->raw[CFG_BOOT_SERVERS], cfg->voters, &ns, why, sizeof why) != 0) {
        cfg_fail(c, c->line[CFG_BOOT_SERVERS], c->spelling[CFG_BOOT_SERVERS], "%s", why);
        return -1;
    }
    if (kq_config_parse_ids(c->raw[CFG_BOOT_VOTERS], ids, &ni, why, sizeof why) != 0) {
        cfg_fail(c, c->line[CFG_BOOT_VOTERS], c->spelling[CFG_BOOT_VOTERS], "%s", why);
        return -1;
    }
    if (ns != ni) {
        cfg_fail(c, c->line[CFG_BOOT_VOTERS], c->spelling[CFG_BOOT_VOTERS],
                 "%d voter ids but %s (line %d) lists %d servers", ni,
                 c->spelling[CFG_BOOT_SERVERS], c->line[CFG_BOOT_SERVERS], ns);
        return -1;
    }
    for (int i = 0; i < ns; i++)
        cfg->voters[i].id = ids[i];
    cfg->voter_count = ns;
    return 0;
}

/* controller.quorum.bootstrap.servers alone (KIP-853): the servers to ask
 * for the leader. The voters come from the directory, which must be
 * formatted at kraft.version 1 (checked at start, format_check.c); until
 * then voters[] holds this node, as without voters. */
static void resolve_self_voter(kq_config *cfg);
static int resolve_dynamic_bootstrap(cfg_load *c)
{
    kq_config *cfg = c->cfg;
    char why[512];
    kq_config_endpoint *s = cfg->bootstrap_servers;
    if (kq_config_parse_servers(c->raw[CFG_BOOT_SERVERS], s, &cfg->bootstrap_server_count, why,
                                sizeof why) != 0) {
        cfg_fail(c, c->line[CFG_BOOT_SERVERS], c->spelling[CFG_BOOT_SERVERS], "%s", why);
        return -1;
    }
    if (cfg->bootstrap_server_count > KQ_CONFIG_BOOTSTRAP_SERVERS_MAX) {
        cfg_fail(c, c->line[CFG_BOOT_SERVERS], c->spelling[CFG_BOOT_SERVERS],
                 "more than %d servers", KQ_CONFIG_BOOTSTRAP_SERVERS_MAX);
        return -1;
    }
    for (int i = 0; i < cfg->bootstrap_server_count; i++)
        s[i].id = -2 - i; /* the core's raft_bootstrap_id(i), Kafka's ids */
    cfg->voters_static = false;
    resolve_self_voter(cfg);
    return 0;
}

/* No voters configured: this node alone, at its controller listener. */
static void resolve_self_voter(kq_config *cfg)
{
    kq_config_endpoint *self = &cfg->voters[0];
    self->id = cfg->node_id;
    /* Peers (none here, but the status shows it) use a controller listener. */
    const kq_config_listener *l = &cfg->listeners[0];
    for (int i = cfg->listener_count - 1; i >= 0; i--)
        if (cfg->listeners[i].controller)
            l = &cfg->listeners[i];
    const char *h = l->host;
    if (h[0] == '\0' || strcmp(h, "0.0.0.0") == 0 || strcmp(h, "::") == 0)
        h = "localhost";
    snprintf(self->host, sizeof self->host, "%s", h);
    self->port = l->port;
    cfg->voter_count = 1;
}

static int resolve_voters(cfg_load *c)
{
    kq_config *cfg = c->cfg;
    char why[512];
    bool have_voters = c->raw[CFG_VOTERS] != NULL;
    bool have_servers = c->raw[CFG_BOOT_SERVERS] != NULL;
    bool have_ids = c->raw[CFG_BOOT_VOTERS] != NULL;
    int member = have_voters ? CFG_VOTERS : CFG_BOOT_VOTERS; /* the key blamed below */
    if (have_voters && (have_servers || have_ids)) {
        int k = have_servers ? CFG_BOOT_SERVERS : CFG_BOOT_VOTERS;
        cfg_fail(c, c->line[k], c->spelling[k],
                 "cannot be combined with %s (line %d); use one way of naming the voters",
                 c->spelling[CFG_VOTERS], c->line[CFG_VOTERS]);
        return -1;
    }
    if (have_voters && kq_config_parse_voters(c->raw[CFG_VOTERS], cfg->voters,
                                              &cfg->voter_count, why, sizeof why) != 0) {
        cfg_fail(c, c->line[CFG_VOTERS], c->spelling[CFG_VOTERS], "%s", why);
        return -1;
    }
    if (!have_voters && have_servers && !have_ids) /* Kafka 3.9+: no voters here */
        return resolve_dynamic_bootstrap(c);
    if (!have_voters && (have_servers || have_ids) &&
        resolve_bootstrap(c, have_servers, have_ids) != 0)
        return -1;
    cfg->voters_static = cfg->voter_count > 0;
    if (cfg->voter_count == 0) {
        resolve_self_voter(cfg);
        return 0;
    }
    for (int i = 0; i < cfg->voter_count; i++)
        if (cfg->voters[i].id == cfg->node_id)
            return 0;
    cfg_fail(c, c->line[member], c->spelling[member],
             "this node's id %d (%s) is not one of the voters", (int)cfg->node_id,
             c->node_id[0] >= 0 ? "broker.id" : "node.id");
    return -1;
}

/* listeners, listener.security.protocol.map and controller.listener.names
 * together; an error names the key at fault. */
static int resolve_listeners(cfg_load *c)
{
    char why[512];
    const char *listeners = c->raw[CFG_LISTENERS] ? c->raw[CFG_LISTENERS]
                                                 : cfg_keys[CFG_LISTENERS].def_str;
    c->cfg->listeners_line = c->line[CFG_LISTENERS];
    if (kq_config_parse_listener_set(listeners, c->raw[CFG_PROTOCOL_MAP],
                                     c->raw[CFG_CONTROLLER_NAMES], c->cfg, why, sizeof why) == 0) {
        if (!c->raw[CFG_ADVERTISED] ||
            kq_config_parse_advertised(c->raw[CFG_ADVERTISED], c->cfg, why, sizeof why) == 0)
            return 0;
        cfg_fail(c, c->line[CFG_ADVERTISED], c->spelling[CFG_ADVERTISED], "%s", why);
        return -1;
    }
    int k = CFG_LISTENERS;
    if (strstr(why, "protocol") && c->raw[CFG_PROTOCOL_MAP])
        k = CFG_PROTOCOL_MAP;
    else if (strstr(why, "not one of the listeners") || strstr(why, "names no listener"))
        k = CFG_CONTROLLER_NAMES;
    cfg_fail(c, c->line[k], c->spelling[k] ? c->spelling[k] : "listeners", "%s", why);
    return -1;
}

/* Each SASL listener's mechanisms: its listener.name.<name>. override, else
 * sasl.enabled.mechanisms (Kafka's default, GSSAPI, is not served here). */
static int resolve_sasl(cfg_load *c)
{
    kq_config *cfg = c->cfg;
    char why[512];
    bool any = false;
    for (int i = 0; i < cfg->listener_count; i++) {
        kq_config_listener *l = &cfg->listeners[i];
        const char *v = c->raw[CFG_SASL_MECHANISMS];
        int line = c->line[CFG_SASL_MECHANISMS];
        const char *key = cfg_keys[CFG_SASL_MECHANISMS].name;
        for (int k = 0; k < c->sasl_override_count; k++) {
            if (!kq_config_listener_name_is(l, c->sasl_overrides[k].name,
                                            strlen(c->sasl_overrides[k].name)))
                continue;
            v = c->sasl_overrides[k].value;
            line = c->sasl_overrides[k].line;
            key = c->sasl_overrides[k].spelling;
        }
        if (!l->sasl)
            continue;
        any = true;
        if (!v) {
            cfg_fail(c, c->line[CFG_LISTENERS], "listeners",
                     "listener %s is SASL: set sasl.enabled.mechanisms (Kafka's default, GSSAPI, "
                     "is not supported)", l->name);
            return -1;
        }
        if (kq_config_parse_mechanisms(v, &l->sasl_mechanisms, why, sizeof why) != 0) {
            cfg_fail(c, line, key, "%s", why);
            return -1;
        }
    }
    if (any && cfg->sasl_credentials_file[0] == '\0') {
        cfg_fail(c, c->line[CFG_LISTENERS], "listeners",
                 "a SASL listener needs sasl.credentials.file (see kq-scram-credential)");
        return -1;
    }
    return 0;
}

/* The voters talk to each other on a quorum listener without SASL (they
 * prove who they are with certificates): a SASL one would refuse them. */
static int check_sasl_quorum(cfg_load *c)
{
    const kq_config *cfg = c->cfg;
    if (cfg->voter_count < 2)
        return 0;
    int l = kq_config_peer_listener(cfg);
    if (!cfg->listeners[l].sasl)
        return 0;
    cfg_fail(c, c->line[CFG_LISTENERS], "listeners",
             "listener %s carries the voters' traffic and cannot be SASL (use SSL with "
             "ssl.client.auth=required, or name a controller listener)", cfg->listeners[l].name);
    return -1;
}

/* Kafka's rule: a positive queued.max.request.bytes must admit one request of
 * socket.request.max.bytes. Blames the key the file set (the other is at
 * its default), queued.max.request.bytes when it set both. */
static int check_request_memory(cfg_load *c)
{
    const kq_config *cfg = c->cfg;
    if (cfg->queued_max_request_bytes >= (uint64_t)cfg->socket_request_max_bytes)
        return 0;
    if (c->line[CFG_QUEUED_MAX] > 0)
        cfg_fail(c, c->line[CFG_QUEUED_MAX], "queued.max.request.bytes",
                 "%llu is less than socket.request.max.bytes (%d): one request of the "
                 "largest size must fit",
                 (unsigned long long)cfg->queued_max_request_bytes,
                 (int)cfg->socket_request_max_bytes);
    else
        cfg_fail(c, c->line[CFG_SOCKET_MAX], "socket.request.max.bytes",
                 "%d exceeds queued.max.request.bytes (%llu, the default): raise "
                 "queued.max.request.bytes to at least this",
                 (int)cfg->socket_request_max_bytes,
                 (unsigned long long)cfg->queued_max_request_bytes);
    return -1;
}

/* A member's session timeout must be able to lie between the two. Blames
 * the key the file set (group.max.session.timeout.ms when it set both). */
static int check_group_sessions(cfg_load *c)
{
    const kq_config *cfg = c->cfg;
    if (cfg->group_min_session_timeout_ms <= cfg->group_max_session_timeout_ms)
        return 0;
    bool max_set = c->line[CFG_GROUP_MAX_SESSION] > 0;
    cfg_fail(c, max_set ? c->line[CFG_GROUP_MAX_SESSION] : c->line[CFG_GROUP_MIN_SESSION],
             max_set ? "group.max.session.timeout.ms" : "group.min.session.timeout.ms",
             "group.min.session.timeout.ms (%d) exceeds group.max.session.timeout.ms (%d)",
             (int)cfg->group_min_session_timeout_ms, (int)cfg->group_max_session_timeout_ms);
    return -1;
}

/* GroupCoordinatorConfig's requirements on the KIP-848 timeouts. */
static int check_consumer_groups(cfg_load *c)
{
    const kq_config *k = c->cfg;
    static const struct {
        int a, b; /* key ids: a's value must be <= (or < when strict) b's */
        bool strict;
    } rules[] = {
        {CFG_GROUP_CONSUMER_MIN_SESSION, CFG_GROUP_CONSUMER_MAX_SESSION, false},
        {CFG_GROUP_CONSUMER_MIN_SESSION, CFG_GROUP_CONSUMER_SESSION, false},
        {CFG_GROUP_CONSUMER_SESSION, CFG_GROUP_CONSUMER_MAX_SESSION, false},
        {CFG_GROUP_CONSUMER_MIN_HEARTBEAT, CFG_GROUP_CONSUMER_MAX_HEARTBEAT, false},
        {CFG_GROUP_CONSUMER_MIN_HEARTBEAT, CFG_GROUP_CONSUMER_HEARTBEAT, false},
        {CFG_GROUP_CONSUMER_HEARTBEAT, CFG_GROUP_CONSUMER_MAX_HEARTBEAT, false},
        {CFG_GROUP_CONSUMER_HEARTBEAT, CFG_GROUP_CONSUMER_SESSION, true},
    };
    const int32_t v[CFG_KEY_COUNT] = {
        [CFG_GROUP_CONSUMER_SESSION] = k->group_consumer_session_timeout_ms,
        [CFG_GROUP_CONSUMER_MIN_SESSION] = k->group_consumer_min_session_timeout_ms,
        [CFG_GROUP_CONSUMER_MAX_SESSION] = k->group_consumer_max_session_timeout_ms,
        [CFG_GROUP_CONSUMER_HEARTBEAT] = k->group_consumer_heartbeat_interval_ms,
        [CFG_GROUP_CONSUMER_MIN_HEARTBEAT] = k->group_consumer_min_heartbeat_interval_ms,
        [CFG_GROUP_CONSUMER_MAX_HEARTBEAT] = k->group_consumer_max_heartbeat_interval_ms,
    };
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        int a = rules[i].a, b = rules[i].b;
        if (rules[i].strict ? v[a] < v[b] : v[a] <= v[b])
            continue;
        int blame = c->line[b] > 0 ? b : a; /* the key the file set */
        cfg_fail(c, c->line[blame], cfg_keys[blame].name, "%s (%d) must be %s %s (%d)",
                 cfg_keys[a].name, (int)v[a], rules[i].strict ? "less than" : "at most",
                 cfg_keys[b].name, (int)v[b]);
        return -1;
    }
    return 0;
}

/* Kafka's topic ids for the two partitions its Raft nodes replicate:
 * KRaft's metadata log (Topic.CLUSTER_METADATA_TOPIC_ID) and TestRaftServer's
 * (Uuid.ONE_UUID and Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg")). */
static const struct {
    const char *name;
    uint8_t id_last_byte;
} known_topics[] = {{"__cluster_metadata", 1}, {"__raft_performance_test", 2}};

/* quorum.topic.name is a legal Kafka topic name (Topic.validate); the id
 * defaults from it; produce.raft.record.check defaults on when the
 * partition is one Kafka's Raft nodes may replicate beside ours. */
static int resolve_topic(cfg_load *c)
{
    kq_config *cfg = c->cfg;
    const char *n = cfg->topic_name;
    size_t len = strlen(n);
    bool legal = len > 0 && len < KQ_TOPIC_NAME_BYTES_MAX && strcmp(n, ".") != 0 &&
                 strcmp(n, "..") != 0 && strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
                                                   "NOPQRSTUVWXYZ0123456789._-") == len;
    if (!legal) {
        cfg_fail(c, c->line[CFG_TOPIC_NAME], "quorum.topic.name",
                 "\"%s\" is not a Kafka topic name (1-249 of a-z A-Z 0-9 . _ -)", n);
        return -1;
    }
    if (c->line[CFG_TOPIC_ID] == 0) {
        size_t i = 0;
        while (i < sizeof known_topics / sizeof known_topics[0] &&
               strcmp(known_topics[i].name, n) != 0)
            i++;
        if (i == sizeof known_topics / sizeof known_topics[0]) {
            cfg_fail(c, c->line[CFG_TOPIC_NAME], "quorum.topic.id",
                     "required: quorum.topic.name is %s, whose topic id has no default", n);
            return -1;
        }
        cfg->topic_id = (kq_uuid){{0}};
        cfg->topic_id.bytes[15] = known_topics[i].id_last_byte;
    }
    if (c->line[CFG_RAFT_RECORD_CHECK] == 0)
        cfg->raft_record_check = strcmp(n, "__cluster_metadata") != 0;
    return 0;
}

int cfg_resolve(cfg_load *c)
{
    c->cfg->cluster_id_given = c->line[CFG_CLUSTER_ID] > 0;
    if (resolve_node_id(c) != 0 || resolve_log_dir(c) != 0 || resolve_topic(c) != 0 || resolve_listeners(c) != 0 ||
        resolve_sasl(c) != 0 || resolve_voters(c) != 0 || check_sasl_quorum(c) != 0 ||
        check_request_memory(c) != 0 || check_group_sessions(c) != 0 ||
        check_consumer_groups(c) != 0 ||
        kq_config_ssl_resolve(c->cfg, c->err, c->errlen) != 0 ||
        kq_config_conn_resolve(c->cfg, c->err, c->errlen) != 0)
        return -1;
    return 0;
}
