/* Loads a Kafka .properties file with inih. Lines are fed to inih through our
 * own reader so that we count lines ourselves (the line of every key is kept
 * for checks made after parsing), accept lines longer than inih's buffer and
 * keep ';' inside values (inih would take " ;" as an inline comment). */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "kq/assert.h"
#include "kq/config_ssl.h"
#include "kq/limits.h"

/* Stands in for a value handed to the handler through cfg_ctx.side_value. */
#define CFG_SIDE_MARK "\x01"

enum cfg_key {
    K_BROKER_ID,
    K_NODE_ID,
    K_LISTENERS,
    K_VOTERS,
    K_BOOT_SERVERS,
    K_BOOT_VOTERS,
    K_LOG_DIRS,
    K_LOG_DIR,
    K_META_LOG_DIR,
    K_VERBOSE,
    K_ELECTION_TIMEOUT,
    K_FETCH_TIMEOUT,
    K_ELECTION_BACKOFF,
    K_REQUEST_TIMEOUT,
    K_RETRY_BACKOFF,
    K_APPEND_LINGER,
    K_SEGMENT_BYTES,
    K_META_SEGMENT_BYTES,
    K_SNAPSHOT_BYTES,
    K_SNAPSHOT_INTERVAL,
    K_RETENTION_BYTES,
    K_LOG_RETENTION_BYTES,
    K_RETENTION_MS,
    K_LOG_RETENTION_MS,
    K_LOG_RETENTION_MINUTES,
    K_LOG_RETENTION_HOURS,
    K_FETCH_SNAPSHOT_MAX,
    K_GROUP_MAX_SIZE,
    K_GROUP_MIN_SESSION,
    K_GROUP_MAX_SESSION,
    K_GROUP_REBALANCE_DELAY,
    K_OFFSETS_RETENTION,
    K_OFFSETS_RETENTION_CHECK,
    K_SOCKET_MAX,
    K_QUEUED_MAX,
    K_IDLE_MAX,
    K_FAILED_AUTH_DELAY,
    K_CLUSTER_ID,
    K_PROTOCOL_MAP,
    K_CONTROLLER_NAMES,
    K_ADVERTISED,
    K_AUTHORIZER,
    K_SUPER_USERS,
    K_ACL_PRODUCE,
    K_ACL_CONSUME,
    K_ACL_DESCRIBE,
    K_ACL_CLUSTER_ACTION,
    K_SASL_MECHANISMS,
    K_SASL_CREDENTIALS,
    K_METRICS_PORT,
    K_METRICS_HOST,
    K_QUEUED_RESPONSE_MAX, /* issue 19: memory held for clients */
    K_SASL_RECEIVE_MAX,
    K_COUNT
};

static const struct cfg_key_def {
    const char *name;
    enum cfg_key key;
} cfg_keys[] = {
    {"broker.id", K_BROKER_ID},
    {"node.id", K_NODE_ID},
    {"listeners", K_LISTENERS},
    {"quorum.voters", K_VOTERS},
    {"controller.quorum.voters", K_VOTERS},
    {"quorum.bootstrap.servers", K_BOOT_SERVERS},
    {"controller.quorum.bootstrap.servers", K_BOOT_SERVERS},
    {"quorum.bootstrap.voters", K_BOOT_VOTERS},
    {"controller.quorum.bootstrap.voters", K_BOOT_VOTERS},
    {"log.dirs", K_LOG_DIRS},
    {"log.dir", K_LOG_DIR},
    {"metadata.log.dir", K_META_LOG_DIR},
    {"verbose", K_VERBOSE},
    {"quorum.election.timeout.ms", K_ELECTION_TIMEOUT},
    {"controller.quorum.election.timeout.ms", K_ELECTION_TIMEOUT},
    {"quorum.fetch.timeout.ms", K_FETCH_TIMEOUT},
    {"controller.quorum.fetch.timeout.ms", K_FETCH_TIMEOUT},
    {"quorum.election.backoff.max.ms", K_ELECTION_BACKOFF},
    {"controller.quorum.election.backoff.max.ms", K_ELECTION_BACKOFF},
    {"quorum.request.timeout.ms", K_REQUEST_TIMEOUT},
    {"controller.quorum.request.timeout.ms", K_REQUEST_TIMEOUT},
    {"quorum.retry.backoff.ms", K_RETRY_BACKOFF},
    {"controller.quorum.retry.backoff.ms", K_RETRY_BACKOFF},
    {"quorum.append.linger.ms", K_APPEND_LINGER},
    {"controller.quorum.append.linger.ms", K_APPEND_LINGER},
    {"log.segment.bytes", K_SEGMENT_BYTES},
    {"metadata.log.segment.bytes", K_META_SEGMENT_BYTES},
    {"metadata.log.max.record.bytes.between.snapshots", K_SNAPSHOT_BYTES},
    {"metadata.log.max.snapshot.interval.ms", K_SNAPSHOT_INTERVAL},
    {"metadata.max.retention.bytes", K_RETENTION_BYTES},
    {"log.retention.bytes", K_LOG_RETENTION_BYTES},
    {"metadata.max.retention.ms", K_RETENTION_MS},
    {"log.retention.ms", K_LOG_RETENTION_MS},
    {"log.retention.minutes", K_LOG_RETENTION_MINUTES},
    {"log.retention.hours", K_LOG_RETENTION_HOURS},
    {"controller.quorum.fetch.snapshot.max.bytes", K_FETCH_SNAPSHOT_MAX},
    {"group.max.size", K_GROUP_MAX_SIZE},
    {"group.min.session.timeout.ms", K_GROUP_MIN_SESSION},
    {"group.max.session.timeout.ms", K_GROUP_MAX_SESSION},
    {"group.initial.rebalance.delay.ms", K_GROUP_REBALANCE_DELAY},
    {"offsets.retention.minutes", K_OFFSETS_RETENTION},
    {"offsets.retention.check.interval.ms", K_OFFSETS_RETENTION_CHECK},
    {"socket.request.max.bytes", K_SOCKET_MAX},
    {"queued.max.request.bytes", K_QUEUED_MAX},
    {"connections.max.idle.ms", K_IDLE_MAX},
    {"connection.failed.authentication.delay.ms", K_FAILED_AUTH_DELAY},
    {"cluster.id", K_CLUSTER_ID},
    {"listener.security.protocol.map", K_PROTOCOL_MAP},
    {"controller.listener.names", K_CONTROLLER_NAMES},
    {"advertised.listeners", K_ADVERTISED},
    {"authorizer.class.name", K_AUTHORIZER},
    {"super.users", K_SUPER_USERS},
    {"acl.produce.principals", K_ACL_PRODUCE},
    {"acl.consume.principals", K_ACL_CONSUME},
    {"acl.describe.principals", K_ACL_DESCRIBE},
    {"acl.cluster.action.principals", K_ACL_CLUSTER_ACTION},
    {"sasl.enabled.mechanisms", K_SASL_MECHANISMS},
    {"sasl.credentials.file", K_SASL_CREDENTIALS},
    {"metrics.port", K_METRICS_PORT},
    {"metrics.host", K_METRICS_HOST},
    {"queued.max.response.bytes", K_QUEUED_RESPONSE_MAX},
    {"sasl.server.max.receive.size", K_SASL_RECEIVE_MAX},
};

/* listener.name.<name>.sasl.enabled.mechanisms, kept until the listeners
 * are known. */
#define LISTENER_SASL_SUFFIX ".sasl.enabled.mechanisms"
typedef struct listener_override {
    char name[KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
    char *value;
    int line;
} listener_override;

typedef struct cfg_ctx {
    const char *path;
    FILE *fp;
    FILE *warn;
    kq_config *cfg;
    int line;
    char *linebuf;      /* CFG_LINE_MAX + 1 bytes */
    char *side_value;   /* value of the current line when it bypasses inih */
    char *err;
    size_t errlen;
    int err_line;       /* 0 when no error yet */
    bool failed;
    int key_line[K_COUNT];
    const char *key_name[K_COUNT]; /* spelling seen last, for messages */
    char *str[K_COUNT];            /* raw values checked after parsing */
    listener_override sasl_overrides[KQ_CONFIG_LISTENERS_MAX];
    int sasl_override_count;
    int rank[K_COUNT]; /* per value (num_keys' .value): the rank that set it */
} cfg_ctx;

static void cfg_fail(cfg_ctx *c, int line, const char *key, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));

/* Records the first error only: "<file>[:<line>]: [<key>: ]<reason>". */
static void cfg_fail(cfg_ctx *c, int line, const char *key, const char *fmt,
                     ...)
{
    if (c->failed)
        return;
    c->failed = true;
    c->err_line = line > 0 ? line : 0;
    char reason[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (!c->err || !c->errlen)
        return;
    char where[64] = "";
    if (line > 0)
        snprintf(where, sizeof where, ":%d", line);
    if (key)
        snprintf(c->err, c->errlen, "%s%s: %s: %s", c->path, where, key, reason);
    else
        snprintf(c->err, c->errlen, "%s%s: %s", c->path, where, reason);
}

static void trim_copy(char *dst, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t' || *s == '\f')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\f'))
        n--;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* Returns one physical line to inih, rewritten so inih parses it the way a
 * properties file is meant: no indentation continuation, '!' comments, and
 * values that would not survive inih (too long, or holding ';') are passed
 * on the side. */
static char *cfg_reader(char *buf, int num, void *stream)
{
    cfg_ctx *c = stream;
    size_t n = 0;
    bool any = false, too_long = false;
    int ch;
    while ((ch = getc(c->fp)) != EOF) {
        any = true;
        if (ch == '\n')
            break;
        if (n < CFG_LINE_MAX)
            c->linebuf[n++] = (char)ch;
        else
            too_long = true;
    }
    if (!any || num < 8)
        return NULL;
    c->line++;
    free(c->side_value);
    c->side_value = NULL;
    if (n && c->linebuf[n - 1] == '\r')
        n--;
    c->linebuf[n] = '\0';
    char *s = c->linebuf;
    while (*s == ' ' || *s == '\t' || *s == '\f')
        s++;
    n = strlen(s); /* also stops at a stray NUL byte */
    size_t cap = (size_t)num;
    if (too_long) {
        cfg_fail(c, c->line, NULL, "line too long (max %d bytes)", CFG_LINE_MAX);
        strcpy(buf, "#\n");
        return buf;
    }
    if (n == 0 || s[0] == '#' || s[0] == '!' || s[0] == ';') {
        strcpy(buf, "#\n");
        return buf;
    }
    if (n + 2 <= cap && !strchr(s, ';')) {
        memcpy(buf, s, n);
        buf[n] = '\n';
        buf[n + 1] = '\0';
        return buf;
    }
    size_t kn = strcspn(s, "=:");
    if (s[kn] == '\0' || kn + sizeof CFG_SIDE_MARK + 2 > cap) {
        /* No separator: let inih report the malformed line. A key too long
         * for inih's buffer cannot be one we know either. */
        if (s[kn] != '\0') {
            char key[64];
            trim_copy(key, s, kn < 60 ? kn : 60);
            cfg_fail(c, c->line, NULL, "key too long: \"%s...\"", key);
            strcpy(buf, "#\n");
            return buf;
        }
        size_t m = n + 2 <= cap ? n : cap - 2;
        memcpy(buf, s, m);
        buf[m] = '\n';
        buf[m + 1] = '\0';
        return buf;
    }
    const char *v = s + kn + 1;
    c->side_value = malloc(strlen(v) + 1);
    if (!c->side_value) {
        cfg_fail(c, c->line, NULL, "out of memory");
        strcpy(buf, "#\n");
        return buf;
    }
    trim_copy(c->side_value, v, strlen(v));
    memcpy(buf, s, kn);
    memcpy(buf + kn, "=" CFG_SIDE_MARK "\n", sizeof CFG_SIDE_MARK + 2);
    return buf;
}

static int set_u32(cfg_ctx *c, const char *key, const char *v, int64_t min,
                   uint32_t *dst)
{
    int64_t x;
    char why[256];
    if (kq_config_parse_int(v, min, INT32_MAX, &x, why, sizeof why) != 0) {
        cfg_fail(c, c->line, key, "%s", why);
        return 0;
    }
    *dst = (uint32_t)x;
    return 1;
}

/* queued.max.request.bytes: Kafka reads <= 0 as unbounded; this server
 * always bounds it. Checked against socket.request.max.bytes after parsing. */
static int set_queued_max(cfg_ctx *c, const char *key, const char *v)
{
    int64_t x;
    char why[256];
    if (kq_config_parse_int(v, INT64_MIN, INT64_MAX, &x, why, sizeof why) != 0) {
        cfg_fail(c, c->line, key, "%s", why);
        return 0;
    }
    if (x <= 0) {
        cfg_fail(c, c->line, key,
                 "%lld (unbounded in Kafka) is not supported: this server always bounds the "
                 "memory of requests being read (default %u)",
                 (long long)x, KQ_QUEUED_REQUEST_BYTES_DEFAULT);
        return 0;
    }
    c->cfg->queued_max_request_bytes = (uint64_t)x;
    return 1;
}

/* connections.max.idle.ms: -1 never closes idle connections (as in Kafka). */
static int set_idle_max(cfg_ctx *c, const char *key, const char *v)
{
    int64_t x;
    char why[256];
    if (kq_config_parse_int(v, -1, INT64_MAX, &x, why, sizeof why) != 0) {
        cfg_fail(c, c->line, key, "%s", why);
        return 0;
    }
    if (x == 0) {
        cfg_fail(c, c->line, key, "must be positive, or -1 to never close idle connections");
        return 0;
    }
    c->cfg->connections_max_idle_ms = x;
    return 1;
}

/* Numeric keys of the segments, snapshots and retention. Spellings of one
 * value share .value; the one of the highest rank wins wherever it is in
 * the file (Kafka: metadata.* over log.*, log.retention.ms over .minutes
 * over .hours). scale turns minutes and hours into ms (-1 stays -1). */
static const struct num_key_def {
    enum cfg_key key;
    enum cfg_key value;
    int rank;
    int64_t min, max, scale;
} num_keys[] = {
    {K_SEGMENT_BYTES, K_SEGMENT_BYTES, 1, 14, INT32_MAX, 1},
    {K_META_SEGMENT_BYTES, K_SEGMENT_BYTES, 2, 14, INT32_MAX, 1},
    {K_SNAPSHOT_BYTES, K_SNAPSHOT_BYTES, 1, 1, INT64_MAX, 1},
    {K_SNAPSHOT_INTERVAL, K_SNAPSHOT_INTERVAL, 1, 0, INT64_MAX, 1},
    {K_LOG_RETENTION_BYTES, K_RETENTION_BYTES, 1, -1, INT64_MAX, 1},
    {K_RETENTION_BYTES, K_RETENTION_BYTES, 2, -1, INT64_MAX, 1},
    {K_LOG_RETENTION_HOURS, K_RETENTION_MS, 1, -1, INT32_MAX, 3600000},
    {K_LOG_RETENTION_MINUTES, K_RETENTION_MS, 2, -1, INT32_MAX, 60000},
    {K_LOG_RETENTION_MS, K_RETENTION_MS, 3, -1, INT64_MAX, 1},
    {K_RETENTION_MS, K_RETENTION_MS, 4, -1, INT64_MAX, 1},
    {K_FETCH_SNAPSHOT_MAX, K_FETCH_SNAPSHOT_MAX, 1, 1, KQ_SNAPSHOT_BYTES_MAX, 1},
    /* The group coordinator's (Kafka's names; group.max.size is capped,
     * src/group/README.md). */
    {K_GROUP_MAX_SIZE, K_GROUP_MAX_SIZE, 1, 1, KQ_GROUP_MAX_SIZE_DEFAULT, 1},
    {K_GROUP_MIN_SESSION, K_GROUP_MIN_SESSION, 1, 0, INT32_MAX, 1},
    {K_GROUP_MAX_SESSION, K_GROUP_MAX_SESSION, 1, 1, INT32_MAX, 1},
    {K_GROUP_REBALANCE_DELAY, K_GROUP_REBALANCE_DELAY, 1, 0, INT32_MAX, 1},
    /* Committed offsets' expiry (issue 19, KIP-211): Kafka's keys, at least 1. */
    {K_OFFSETS_RETENTION, K_OFFSETS_RETENTION, 1, 1, INT32_MAX, 60000},
    {K_OFFSETS_RETENTION_CHECK, K_OFFSETS_RETENTION_CHECK, 1, 1, INT32_MAX, 1},
};

static void store_num(kq_config *cfg, enum cfg_key value, int64_t x)
{
    switch (value) {
    case K_SEGMENT_BYTES:
        cfg->segment_bytes = (uint64_t)x;
        break;
    case K_SNAPSHOT_BYTES:
        cfg->snapshot_bytes_between = (uint64_t)x;
        break;
    case K_SNAPSHOT_INTERVAL:
        cfg->snapshot_interval_ms = (uint64_t)x;
        break;
    case K_RETENTION_BYTES:
        cfg->retention_bytes = x;
        break;
    case K_RETENTION_MS:
        cfg->retention_ms = x;
        break;
    case K_FETCH_SNAPSHOT_MAX:
        cfg->fetch_snapshot_max_bytes = (uint32_t)x;
        break;
    case K_GROUP_MAX_SIZE:
        cfg->group_max_size = (int32_t)x;
        break;
    case K_GROUP_MIN_SESSION:
        cfg->group_min_session_timeout_ms = (int32_t)x;
        break;
    case K_GROUP_MAX_SESSION:
        cfg->group_max_session_timeout_ms = (int32_t)x;
        break;
    case K_GROUP_REBALANCE_DELAY:
        cfg->group_initial_rebalance_delay_ms = (int32_t)x;
        break;
    case K_OFFSETS_RETENTION:
        cfg->offsets_retention_ms = x;
        break;
    case K_OFFSETS_RETENTION_CHECK:
        cfg->offsets_retention_check_interval_ms = x;
        break;
    default:
        KQ_ASSERT(!"a value of num_keys");
    }
}

/* 1 when k is one of num_keys (stored unless outranked), 0 on an error,
 * -1 when it is not one. */
static int set_num(cfg_ctx *c, enum cfg_key k, const char *key, const char *v)
{
    const struct num_key_def *d = NULL;
    for (size_t i = 0; i < sizeof num_keys / sizeof num_keys[0]; i++)
        if (num_keys[i].key == k)
            d = &num_keys[i];
    if (!d)
        return -1;
    int64_t x;
    char why[256];
    if (kq_config_parse_int(v, d->min, d->max, &x, why, sizeof why) != 0) {
        cfg_fail(c, c->line, key, "%s", why);
        return 0;
    }
    if (d->rank < c->rank[d->value])
        return 1; /* a spelling of higher precedence set it */
    c->rank[d->value] = d->rank;
    store_num(c->cfg, d->value, x < 0 ? -1 : x * d->scale);
    return 1;
}

static int set_principals(cfg_ctx *c, const char *key, const char *v, kq_config_principals *out)
{
    char why[512];
    if (kq_config_parse_principals(v, out, why, sizeof why) != 0) {
        cfg_fail(c, c->line, key, "%s", why);
        return 0;
    }
    return 1;
}

static int keep_string(cfg_ctx *c, enum cfg_key k, const char *v)
{
    char *copy = strdup(v);
    if (!copy) {
        cfg_fail(c, c->line, c->key_name[k], "out of memory");
        return 0;
    }
    free(c->str[k]);
    c->str[k] = copy;
    return 1;
}

/* listener.name.<name>.sasl.enabled.mechanisms: 1 if taken, 0 on an error,
 * -1 if name is not one. */
static int listener_sasl_key(cfg_ctx *c, const char *name, const char *value)
{
    size_t n = strlen(name), pre = strlen("listener.name."), suf = strlen(LISTENER_SASL_SUFFIX);
    if (n <= pre + suf || strncmp(name, "listener.name.", pre) != 0 ||
        strcmp(name + n - suf, LISTENER_SASL_SUFFIX) != 0)
        return -1;
    size_t ln = n - pre - suf;
    if (ln >= KQ_CONFIG_LISTENER_NAME_BYTES_MAX || c->sasl_override_count == KQ_CONFIG_LISTENERS_MAX) {
        cfg_fail(c, c->line, name, "listener name too long, or too many listeners");
        return 0;
    }
    listener_override *o = &c->sasl_overrides[c->sasl_override_count];
    memcpy(o->name, name + pre, ln);
    o->name[ln] = '\0';
    o->value = strdup(value);
    o->line = c->line;
    if (!o->value) {
        cfg_fail(c, c->line, name, "out of memory");
        return 0;
    }
    c->sasl_override_count++;
    return 1;
}

static int cfg_handler(void *user, const char *section, const char *name,
                       const char *value)
{
    cfg_ctx *c = user;
    if (strcmp(value, CFG_SIDE_MARK) == 0 && c->side_value)
        value = c->side_value;
    int taken = section[0] == '\0' ? listener_sasl_key(c, name, value) : -1;
    if (taken >= 0)
        return taken;
    const struct cfg_key_def *def = NULL;
    char ssl_why[512];
    if (section[0] == '\0' && kq_config_ssl_is_key(name)) { /* config_ssl.c */
        if (kq_config_ssl_set(c->cfg, name, value, c->line, ssl_why, sizeof ssl_why) == 0)
            return 1;
        cfg_fail(c, c->line, name, "%s", ssl_why);
        return 0;
    }
    if (section[0] == '\0' && kq_config_conn_is_key(name)) { /* config_conn.c */
        if (kq_config_conn_set(c->cfg, name, value, c->line, ssl_why, sizeof ssl_why) == 0)
            return 1;
        cfg_fail(c, c->line, name, "%s", ssl_why);
        return 0;
    }
    if (section[0] == '\0') {
        for (size_t i = 0; i < sizeof cfg_keys / sizeof cfg_keys[0]; i++) {
            if (strcmp(cfg_keys[i].name, name) == 0) {
                def = &cfg_keys[i];
                break;
            }
        }
    }
    if (!def) {
        if (c->warn)
            fprintf(c->warn, "warning: %s:%d: %s is not used by this server\n",
                    c->path, c->line, name);
        return 1;
    }
    enum cfg_key k = def->key;
    const char *key = def->name;
    c->key_line[k] = c->line;
    c->key_name[k] = key;
    kq_config *cfg = c->cfg;
    char why[512];
    int64_t x;
    switch (k) {
    case K_BROKER_ID:
    case K_NODE_ID:
        if (kq_config_parse_int(value, 0, INT32_MAX, &x, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        return keep_string(c, k, value);
    case K_LISTENERS:
    case K_PROTOCOL_MAP:
    case K_CONTROLLER_NAMES:
    case K_ADVERTISED:
        return keep_string(c, k, value); /* resolve_listeners, once all are read */
    case K_AUTHORIZER:
        cfg->authorizer_enabled = value[0] != '\0';
        return 1;
    case K_SUPER_USERS:
        return set_principals(c, key, value, &cfg->super_users);
    case K_ACL_PRODUCE:
        return set_principals(c, key, value, &cfg->acl[KQ_ACL_PRODUCE]);
    case K_ACL_CONSUME:
        return set_principals(c, key, value, &cfg->acl[KQ_ACL_CONSUME]);
    case K_ACL_DESCRIBE:
        return set_principals(c, key, value, &cfg->acl[KQ_ACL_DESCRIBE]);
    case K_ACL_CLUSTER_ACTION:
        return set_principals(c, key, value, &cfg->acl[KQ_ACL_CLUSTER_ACTION]);
    case K_SASL_MECHANISMS:
        return keep_string(c, k, value); /* resolve_sasl */
    case K_SASL_CREDENTIALS:
        if (value[0] == '\0' || strlen(value) >= sizeof cfg->sasl_credentials_file) {
            cfg_fail(c, c->line, key, "must be a path shorter than %zu bytes",
                     sizeof cfg->sasl_credentials_file);
            return 0;
        }
        strcpy(cfg->sasl_credentials_file, value);
        cfg->sasl_credentials_line = c->line;
        return 1;
    case K_VERBOSE:
        if (kq_config_parse_bool(value, &cfg->verbose, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        return 1;
    case K_ELECTION_TIMEOUT:
        return set_u32(c, key, value, 1, &cfg->election_timeout_ms);
    case K_FETCH_TIMEOUT:
        return set_u32(c, key, value, 1, &cfg->fetch_timeout_ms);
    case K_ELECTION_BACKOFF:
        return set_u32(c, key, value, 0, &cfg->election_backoff_max_ms);
    case K_REQUEST_TIMEOUT:
        return set_u32(c, key, value, 1, &cfg->request_timeout_ms);
    case K_RETRY_BACKOFF:
        return set_u32(c, key, value, 0, &cfg->retry_backoff_ms);
    case K_APPEND_LINGER:
        if (kq_config_parse_int(value, 0, RAFT_APPEND_LINGER_MS_MAX, &x, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        cfg->append_linger_ms = (uint32_t)x;
        return 1;
    case K_SEGMENT_BYTES:
    case K_META_SEGMENT_BYTES:
    case K_SNAPSHOT_BYTES:
    case K_SNAPSHOT_INTERVAL:
    case K_RETENTION_BYTES:
    case K_LOG_RETENTION_BYTES:
    case K_RETENTION_MS:
    case K_LOG_RETENTION_MS:
    case K_LOG_RETENTION_MINUTES:
    case K_LOG_RETENTION_HOURS:
    case K_FETCH_SNAPSHOT_MAX:
    case K_GROUP_MAX_SIZE:
    case K_GROUP_MIN_SESSION:
    case K_GROUP_MAX_SESSION:
    case K_GROUP_REBALANCE_DELAY:
    case K_OFFSETS_RETENTION:
    case K_OFFSETS_RETENTION_CHECK:
        return set_num(c, k, key, value);
    case K_SOCKET_MAX:
        if (kq_config_parse_int(value, 1, INT32_MAX, &x, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        cfg->socket_request_max_bytes = (int32_t)x;
        return 1;
    case K_QUEUED_MAX:
        return set_queued_max(c, key, value);
    case K_IDLE_MAX:
        return set_idle_max(c, key, value);
    case K_QUEUED_RESPONSE_MAX: /* issue 19 */
        if (kq_config_parse_int(value, 1 << 20, INT64_MAX, &x, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        cfg->queued_max_response_bytes = (uint64_t)x;
        return 1;
    case K_SASL_RECEIVE_MAX:
        if (kq_config_parse_int(value, 1, INT32_MAX, &x, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        cfg->sasl_server_max_receive_size = (int32_t)x;
        return 1;
    case K_FAILED_AUTH_DELAY:
        if (kq_config_parse_int(value, 0, KQ_FAILED_AUTH_DELAY_MS_MAX, &x, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        cfg->failed_auth_delay_ms = (int32_t)x;
        return 1;
    case K_METRICS_PORT:
        if (kq_config_parse_int(value, 1, 65535, &x, why, sizeof why) != 0) {
            cfg_fail(c, c->line, key, "%s", why);
            return 0;
        }
        cfg->metrics_port = (uint16_t)x;
        return 1;
    case K_METRICS_HOST:
        if (strlen(value) >= sizeof cfg->metrics_host) {
            cfg_fail(c, c->line, key, "must be shorter than %zu bytes", sizeof cfg->metrics_host);
            return 0;
        }
        strcpy(cfg->metrics_host, value);
        return 1;
    case K_CLUSTER_ID:
        if (value[0] == '\0' || strlen(value) >= sizeof cfg->cluster_id) {
            cfg_fail(c, c->line, key, "must be 1 to %zu characters",
                     sizeof cfg->cluster_id - 1);
            return 0;
        }
        strcpy(cfg->cluster_id, value);
        return 1;
    case K_LOG_DIRS:
    case K_LOG_DIR:
    case K_META_LOG_DIR:
    case K_VOTERS:
    case K_BOOT_SERVERS:
    case K_BOOT_VOTERS:
        return keep_string(c, k, value);
    case K_COUNT:
        break;
    }
    return 1;
}

static int resolve_node_id(cfg_ctx *c)
{
    int64_t b = -1, n = -1;
    char why[256];
    if (c->str[K_BROKER_ID])
        kq_config_parse_int(c->str[K_BROKER_ID], 0, INT32_MAX, &b, why, sizeof why);
    if (c->str[K_NODE_ID])
        kq_config_parse_int(c->str[K_NODE_ID], 0, INT32_MAX, &n, why, sizeof why);
    if (b < 0 && n < 0) {
        cfg_fail(c, 0, "broker.id", "required (set broker.id or node.id)");
        return -1;
    }
    if (b >= 0 && n >= 0 && b != n) {
        cfg_fail(c, c->key_line[K_NODE_ID], "node.id",
                 "%lld differs from broker.id %lld", (long long)n, (long long)b);
        return -1;
    }
    c->cfg->node_id = (int32_t)(b >= 0 ? b : n);
    return 0;
}

static int resolve_log_dir(cfg_ctx *c)
{
    enum cfg_key k;
    if (c->str[K_META_LOG_DIR])
        k = K_META_LOG_DIR;
    else if (c->str[K_LOG_DIRS])
        k = K_LOG_DIRS;
    else if (c->str[K_LOG_DIR])
        k = K_LOG_DIR;
    else
        return 0; /* default stays */
    const char *v = c->str[k];
    size_t n = k == K_LOG_DIRS ? strcspn(v, ",") : strlen(v);
    char dir[sizeof c->cfg->log_dir];
    if (n >= sizeof dir) {
        cfg_fail(c, c->key_line[k], c->key_name[k], "path too long (max %zu)",
                 sizeof dir - 1);
        return -1;
    }
    trim_copy(dir, v, n);
    if (dir[0] == '\0') {
        cfg_fail(c, c->key_line[k], c->key_name[k], "empty directory");
        return -1;
    }
    strcpy(c->cfg->log_dir, dir);
    return 0;
}

static int resolve_voters(cfg_ctx *c)
{
    kq_config *cfg = c->cfg;
    char why[512];
    const char *member_key = NULL;
    int member_line = 0;
    bool have_voters = c->str[K_VOTERS] != NULL;
    bool have_servers = c->str[K_BOOT_SERVERS] != NULL;
    bool have_ids = c->str[K_BOOT_VOTERS] != NULL;
    if (have_voters && (have_servers || have_ids)) {
        enum cfg_key k = have_servers ? K_BOOT_SERVERS : K_BOOT_VOTERS;
        cfg_fail(c, c->key_line[k], c->key_name[k],
                 "cannot be combined with %s (line %d); use one way of naming the voters",
                 c->key_name[K_VOTERS], c->key_line[K_VOTERS]);
        return -1;
    }
    if (have_voters) {
        if (kq_config_parse_voters(c->str[K_VOTERS], cfg->voters,
                                   &cfg->voter_count, why, sizeof why) != 0) {
            cfg_fail(c, c->key_line[K_VOTERS], c->key_name[K_VOTERS], "%s", why);
            return -1;
        }
        member_key = c->key_name[K_VOTERS];
        member_line = c->key_line[K_VOTERS];
    } else if (have_servers || have_ids) {
        if (!have_ids) {
            cfg_fail(c, c->key_line[K_BOOT_SERVERS], c->key_name[K_BOOT_SERVERS],
                     "needs quorum.bootstrap.voters listing the voter ids in the same order");
            return -1;
        }
        if (!have_servers) {
            cfg_fail(c, c->key_line[K_BOOT_VOTERS], c->key_name[K_BOOT_VOTERS],
                     "needs quorum.bootstrap.servers listing host:port in the same order");
            return -1;
        }
        int ns = 0, ni = 0;
        int32_t ids[KQ_CONFIG_VOTERS_MAX];
        if (kq_config_parse_servers(c->str[K_BOOT_SERVERS], cfg->voters, &ns,
                                    why, sizeof why) != 0) {
            cfg_fail(c, c->key_line[K_BOOT_SERVERS], c->key_name[K_BOOT_SERVERS],
                     "%s", why);
            return -1;
        }
        if (kq_config_parse_ids(c->str[K_BOOT_VOTERS], ids, &ni, why,
                                sizeof why) != 0) {
            cfg_fail(c, c->key_line[K_BOOT_VOTERS], c->key_name[K_BOOT_VOTERS],
                     "%s", why);
            return -1;
        }
        if (ns != ni) {
            cfg_fail(c, c->key_line[K_BOOT_VOTERS], c->key_name[K_BOOT_VOTERS],
                     "%d voter ids but %s (line %d) lists %d servers", ni,
                     c->key_name[K_BOOT_SERVERS], c->key_line[K_BOOT_SERVERS], ns);
            return -1;
        }
        for (int i = 0; i < ns; i++)
            cfg->voters[i].id = ids[i];
        cfg->voter_count = ns;
        member_key = c->key_name[K_BOOT_VOTERS];
        member_line = c->key_line[K_BOOT_VOTERS];
    }
    if (cfg->voter_count == 0) {
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
        return 0;
    }
    for (int i = 0; i < cfg->voter_count; i++)
        if (cfg->voters[i].id == cfg->node_id)
            return 0;
    cfg_fail(c, member_line, member_key,
             "this node's id %d (%s) is not one of the voters", (int)cfg->node_id,
             c->str[K_BROKER_ID] ? "broker.id" : "node.id");
    return -1;
}

/* listeners, listener.security.protocol.map and controller.listener.names
 * together; an error names the key at fault. */
static int resolve_listeners(cfg_ctx *c)
{
    char why[512];
    const char *listeners = c->str[K_LISTENERS] ? c->str[K_LISTENERS] : "PLAINTEXT://:9092";
    c->cfg->listeners_line = c->key_line[K_LISTENERS];
    if (kq_config_parse_listener_set(listeners, c->str[K_PROTOCOL_MAP],
                                     c->str[K_CONTROLLER_NAMES], c->cfg, why, sizeof why) == 0) {
        if (!c->str[K_ADVERTISED] ||
            kq_config_parse_advertised(c->str[K_ADVERTISED], c->cfg, why, sizeof why) == 0)
            return 0;
        cfg_fail(c, c->key_line[K_ADVERTISED], c->key_name[K_ADVERTISED], "%s", why);
        return -1;
    }
    enum cfg_key k = K_LISTENERS;
    if (strstr(why, "protocol") && c->str[K_PROTOCOL_MAP])
        k = K_PROTOCOL_MAP;
    else if (strstr(why, "not one of the listeners") || strstr(why, "names no listener"))
        k = K_CONTROLLER_NAMES;
    cfg_fail(c, c->key_line[k], c->key_name[k] ? c->key_name[k] : "listeners", "%s", why);
    return -1;
}

/* Each SASL listener's mechanisms: its listener.name.<name>. override, else
 * sasl.enabled.mechanisms (Kafka's default, GSSAPI, is not served here). */
static int resolve_sasl(cfg_ctx *c)
{
    kq_config *cfg = c->cfg;
    char why[512];
    bool any = false;
    for (int i = 0; i < cfg->listener_count; i++) {
        kq_config_listener *l = &cfg->listeners[i];
        const char *v = c->str[K_SASL_MECHANISMS];
        int line = c->key_line[K_SASL_MECHANISMS];
        char key[128];
        snprintf(key, sizeof key, "sasl.enabled.mechanisms");
        for (int k = 0; k < c->sasl_override_count; k++) {
            if (!kq_config_listener_name_is(l, c->sasl_overrides[k].name,
                                            strlen(c->sasl_overrides[k].name)))
                continue;
            v = c->sasl_overrides[k].value;
            line = c->sasl_overrides[k].line;
            snprintf(key, sizeof key, "listener.name.%s%s", c->sasl_overrides[k].name,
                     LISTENER_SASL_SUFFIX);
        }
        if (!l->sasl)
            continue;
        any = true;
        if (!v) {
            cfg_fail(c, c->key_line[K_LISTENERS], "listeners",
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
        cfg_fail(c, c->key_line[K_LISTENERS], "listeners",
                 "a SASL listener needs sasl.credentials.file (see kq-scram-credential)");
        return -1;
    }
    return 0;
}

/* The voters talk to each other on a quorum listener without SASL (they
 * prove who they are with certificates): a SASL one would refuse them. */
static int check_sasl_quorum(cfg_ctx *c)
{
    const kq_config *cfg = c->cfg;
    if (cfg->voter_count < 2)
        return 0;
    int l = kq_config_peer_listener(cfg);
    if (!cfg->listeners[l].sasl)
        return 0;
    cfg_fail(c, c->key_line[K_LISTENERS], "listeners",
             "listener %s carries the voters' traffic and cannot be SASL (use SSL with "
             "ssl.client.auth=required, or name a controller listener)", cfg->listeners[l].name);
    return -1;
}

/* Kafka's rule: a positive queued.max.request.bytes must admit one request of
 * socket.request.max.bytes. Blames the key the file set (the other is at
 * its default), queued.max.request.bytes when it set both. */
static int check_request_memory(cfg_ctx *c)
{
    const kq_config *cfg = c->cfg;
    if (cfg->queued_max_request_bytes >= (uint64_t)cfg->socket_request_max_bytes)
        return 0;
    if (c->key_line[K_QUEUED_MAX] > 0)
        cfg_fail(c, c->key_line[K_QUEUED_MAX], "queued.max.request.bytes",
                 "%llu is less than socket.request.max.bytes (%d): one request of the "
                 "largest size must fit",
                 (unsigned long long)cfg->queued_max_request_bytes,
                 (int)cfg->socket_request_max_bytes);
    else
        cfg_fail(c, c->key_line[K_SOCKET_MAX], "socket.request.max.bytes",
                 "%d exceeds queued.max.request.bytes (%llu, the default): raise "
                 "queued.max.request.bytes to at least this",
                 (int)cfg->socket_request_max_bytes,
                 (unsigned long long)cfg->queued_max_request_bytes);
    return -1;
}

/* A member's session timeout must be able to lie between the two. Blames
 * the key the file set (group.max.session.timeout.ms when it set both). */
static int check_group_sessions(cfg_ctx *c)
{
    const kq_config *cfg = c->cfg;
    if (cfg->group_min_session_timeout_ms <= cfg->group_max_session_timeout_ms)
        return 0;
    bool max_set = c->key_line[K_GROUP_MAX_SESSION] > 0;
    cfg_fail(c, max_set ? c->key_line[K_GROUP_MAX_SESSION] : c->key_line[K_GROUP_MIN_SESSION],
             max_set ? "group.max.session.timeout.ms" : "group.min.session.timeout.ms",
             "group.min.session.timeout.ms (%d) exceeds group.max.session.timeout.ms (%d)",
             (int)cfg->group_min_session_timeout_ms, (int)cfg->group_max_session_timeout_ms);
    return -1;
}

void kq_config_defaults(kq_config *out)
{
    memset(out, 0, sizeof *out);
    out->node_id = -1;
    out->listener_port = 9092;
    strcpy(out->log_dir, "/tmp/kraft-logs");
    out->election_timeout_ms = 1000;
    out->fetch_timeout_ms = 2000;
    out->election_backoff_max_ms = 1000;
    out->request_timeout_ms = 2000;
    out->retry_backoff_ms = 20;
    out->append_linger_ms = 0;
    out->segment_bytes = 1073741824u;
    out->snapshot_bytes_between = EXEC_SNAPSHOT_BYTES_BETWEEN_DEFAULT;
    out->snapshot_interval_ms = EXEC_SNAPSHOT_INTERVAL_MS_DEFAULT;
    out->retention_bytes = EXEC_RETENTION_BYTES_DEFAULT;
    out->retention_ms = EXEC_RETENTION_MS_DEFAULT;
    out->fetch_snapshot_max_bytes = EXEC_FETCH_SNAPSHOT_MAX_BYTES_DEFAULT;
    out->socket_request_max_bytes = KQ_REQUEST_FRAME_BYTES_DEFAULT;
    out->queued_max_request_bytes = KQ_QUEUED_REQUEST_BYTES_DEFAULT;
    out->connections_max_idle_ms = KQ_CONNECTION_IDLE_MS_DEFAULT;
    out->queued_max_response_bytes = KQ_QUEUED_RESPONSE_BYTES_DEFAULT;
    out->sasl_server_max_receive_size = KQ_SASL_RECEIVE_BYTES_DEFAULT;
    out->failed_auth_delay_ms = KQ_FAILED_AUTH_DELAY_MS_DEFAULT;
    out->group_max_size = KQ_GROUP_MAX_SIZE_DEFAULT;
    out->group_min_session_timeout_ms = KQ_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT;
    out->group_max_session_timeout_ms = KQ_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT;
    out->group_initial_rebalance_delay_ms = KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT;
    out->offsets_retention_ms = (int64_t)KQ_OFFSETS_RETENTION_MINUTES_DEFAULT * 60000;
    out->offsets_retention_check_interval_ms = KQ_OFFSETS_RETENTION_CHECK_INTERVAL_MS_DEFAULT;
    strcpy(out->cluster_id, "kq-raft-test-cluster");
    kq_config_conn_defaults(out);
}

int kq_config_load_warn(const char *path, kq_config *out, char *err,
                        size_t errlen, FILE *warn)
{
    kq_config_defaults(out);
    if (err && errlen)
        err[0] = '\0';
    cfg_ctx c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.warn = warn;
    c.cfg = out;
    c.err = err;
    c.errlen = errlen;
    if (strlen(path) >= sizeof out->path) {
        cfg_fail(&c, 0, NULL, "path too long");
        return -1;
    }
    strcpy(out->path, path);
    c.fp = fopen(path, "r");
    if (!c.fp) {
        cfg_fail(&c, 0, NULL, "cannot open: %s", strerror(errno));
        return -1;
    }
    c.linebuf = malloc(CFG_LINE_MAX + 1);
    int rc = -1;
    if (!c.linebuf) {
        cfg_fail(&c, 0, NULL, "out of memory");
        goto out;
    }
    errno = 0;
    int bad = ini_parse_stream(cfg_reader, &c, cfg_handler, &c);
    if (ferror(c.fp)) {
        int e = errno;
        c.failed = false;
        cfg_fail(&c, 0, NULL, "cannot read: %s", e ? strerror(e) : "I/O error");
        goto out;
    }
    if (bad > 0 && (!c.failed || bad < c.err_line)) {
        c.failed = false;
        cfg_fail(&c, bad, NULL, "malformed line (expected key=value)");
    }
    if (bad < 0 && !c.failed)
        cfg_fail(&c, 0, NULL, "cannot parse (error %d)", bad);
    if (c.failed)
        goto out;
    if (resolve_node_id(&c) != 0 || resolve_log_dir(&c) != 0 || resolve_listeners(&c) != 0 ||
        resolve_sasl(&c) != 0 || resolve_voters(&c) != 0 || check_sasl_quorum(&c) != 0 ||
        check_request_memory(&c) != 0 || check_group_sessions(&c) != 0 ||
        kq_config_ssl_resolve(out, err, errlen) != 0 ||
        kq_config_conn_resolve(out, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    for (int k = 0; k < K_COUNT; k++)
        free(c.str[k]);
    for (int k = 0; k < c.sasl_override_count; k++)
        free(c.sasl_overrides[k].value);
    free(c.side_value);
    free(c.linebuf);
    fclose(c.fp);
    return rc;
}

int kq_config_load(const char *path, kq_config *out, char *err, size_t errlen)
{
    return kq_config_load_warn(path, out, err, errlen, stderr);
}
