/* Server configuration read from a Kafka-style .properties file. */
#ifndef KQ_CONFIG_H
#define KQ_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kq/buf.h" /* kq_uuid */
#include "kq/conn_limits.h"
#include "kq/limits.h"


typedef struct kq_config_endpoint {
    int32_t id;
    char host[256];
    uint16_t port;
} kq_config_endpoint;

/* listener.security.protocol.map values. PLAINTEXT and SSL are served;
 * the SASL ones are refused ("not supported yet"). */
typedef enum kq_config_protocol {
    KQ_PROTOCOL_PLAINTEXT = 0,
    KQ_PROTOCOL_SSL,
    KQ_PROTOCOL_SASL_PLAINTEXT,
    KQ_PROTOCOL_SASL_SSL,
} kq_config_protocol;

/* One entry of listeners=NAME://host:port (any names; the security protocol
 * comes from listener.security.protocol.map). */
typedef struct kq_config_listener {
    char name[KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
    char host[256];
    uint16_t port;
    /* Named in controller.listener.names: Raft RPCs and replica fetches are
     * taken here only (or on every listener when no name is given). */
    bool controller;
    /* advertised.listeners for this name, else the bound address (an empty
     * host: the node's own voter host, or localhost). */
    char advertised_host[256];
    uint16_t advertised_port;
    bool advertised; /* named in advertised.listeners */
    kq_config_protocol protocol; /* from listener.security.protocol.map */
    /* SASL_PLAINTEXT or SASL_SSL: clients authenticate with one of
     * sasl_mechanisms (bits 1 << enum kq_sasl_mech), from
     * listener.name.<name>.sasl.enabled.mechanisms or sasl.enabled.mechanisms. */
    bool sasl;
    uint32_t sasl_mechanisms;
} kq_config_listener;

/* SSL and SASL_SSL listeners run TLS. */
static inline bool kq_config_listener_tls(const kq_config_listener *l)
{
    return l->protocol == KQ_PROTOCOL_SSL || l->protocol == KQ_PROTOCOL_SASL_SSL;
}

/* Kafka's ssl.* keys (src/config/config_ssl.c, kq/config_ssl.h). */
enum kq_config_ssl_key {
    KQ_SSL_KEYSTORE_TYPE = 0,
    KQ_SSL_KEYSTORE_LOCATION,
    KQ_SSL_KEYSTORE_PASSWORD,
    KQ_SSL_KEY_PASSWORD,
    KQ_SSL_KEYSTORE_CERTIFICATE_CHAIN,
    KQ_SSL_KEYSTORE_KEY,
    KQ_SSL_TRUSTSTORE_TYPE,
    KQ_SSL_TRUSTSTORE_LOCATION,
    KQ_SSL_TRUSTSTORE_PASSWORD,
    KQ_SSL_TRUSTSTORE_CERTIFICATES,
    KQ_SSL_CLIENT_AUTH,
    KQ_SSL_ENABLED_PROTOCOLS,
    KQ_SSL_PROTOCOL,
    KQ_SSL_CIPHER_SUITES,
    KQ_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
    KQ_SSL_PRINCIPAL_MAPPING_RULES,
    KQ_SSL_KEY_COUNT
};

/* One ssl.* line: the plain key (listener "") or its
 * listener.name.<listener>.ssl.* form, which overrides it there. */
typedef struct kq_config_ssl_entry {
    char listener[KQ_CONFIG_LISTENER_NAME_BYTES_MAX]; /* lower case as written; "" plain */
    int key;                                          /* enum kq_config_ssl_key */
    int line;
    uint32_t offset; /* the value, NUL-terminated, in kq_config_ssl.text */
} kq_config_ssl_entry;

typedef struct kq_config_ssl {
    kq_config_ssl_entry entries[KQ_CONFIG_SSL_ENTRIES_MAX];
    int count;
    char text[KQ_CONFIG_SSL_TEXT_BYTES_MAX];
    uint32_t text_used;
} kq_config_ssl;

/* controller.quorum.voter.principals (our key): the principal each voter's
 * TLS certificate maps to on a controller listener with mutual TLS. */
typedef struct kq_config_voter_principal {
    int32_t id;
    char principal[KQ_CONFIG_PRINCIPAL_BYTES_MAX];
} kq_config_voter_principal;

/* A list of principals ("User:name", "User:*" for everyone). */
typedef struct kq_config_principals {
    char names[KQ_CONFIG_PRINCIPALS_MAX][KQ_CONFIG_PRINCIPAL_BYTES_MAX];
    int count;
} kq_config_principals;

/* Operations of the allow-list authorizer, as handler_acl counts them. */
enum kq_config_acl_op {
    KQ_ACL_PRODUCE = 0,
    KQ_ACL_CONSUME,
    KQ_ACL_DESCRIBE,
    KQ_ACL_CLUSTER_ACTION, /* acl.cluster.action.principals (issue 19) */
    KQ_ACL_DELETE,         /* acl.delete.principals (issue 24) */
    KQ_ACL_OP_COUNT
};

typedef struct kq_config {
    char path[4096];
    int32_t node_id;                  /* broker.id or node.id (required) */
    /* Every listener; an empty host binds 0.0.0.0. Default PLAINTEXT://:9092. */
    kq_config_listener listeners[KQ_CONFIG_LISTENERS_MAX];
    int listener_count;
    bool controller_listener_named; /* controller.listener.names was given */
    int listeners_line; /* the listeners= line (0: the default), for errors */
    /* The client listener (the first one not named a controller listener,
     * else the first), for log lines. */
    char listener_host[256];
    uint16_t listener_port;
    /* Never empty after a successful load: without configured voters the
     * node is the single voter of its own quorum (host "localhost" when the
     * listener host is empty or 0.0.0.0). */
    kq_config_endpoint voters[KQ_CONFIG_VOTERS_MAX];
    int voter_count;
    /* The voters were given (quorum.voters or quorum.bootstrap.*): Kafka's
     * static quorum, kraft.version 0. False: this node alone by default. */
    bool voters_static;
    /* controller.quorum.bootstrap.servers given alone (KIP-853): the
     * endpoints a node asks for the leader (the core's ids -2, -3, ...);
     * the voters then come from the formatted directory and the log. */
    kq_config_endpoint bootstrap_servers[KQ_CONFIG_BOOTSTRAP_SERVERS_MAX];
    int bootstrap_server_count;
    /* Set by the start-up check of a directory formatted at kraft.version
     * 1 (src/daemon/format_check.c): the voters live in the log; voters[]
     * then holds the bootstrap checkpoint's voters (their endpoints), not
     * a static set. */
    bool voters_from_log;
    bool auto_join; /* controller.quorum.auto.join.enable */
    /* cluster.id was in the file; if not, a formatted directory's
     * meta.properties gives it (as Kafka takes it from there). */
    bool cluster_id_given;
    /* metadata.log.dir, else the first entry of log.dirs, else log.dir */
    char log_dir[4096];
    bool verbose;
    uint32_t election_timeout_ms;     /* quorum.election.timeout.ms, 1000 */
    uint32_t fetch_timeout_ms;        /* quorum.fetch.timeout.ms, 2000 */
    uint32_t election_backoff_max_ms; /* quorum.election.backoff.max.ms, 1000 */
    uint32_t request_timeout_ms;      /* quorum.request.timeout.ms, 2000 */
    uint32_t retry_backoff_ms;        /* quorum.retry.backoff.ms, 20 */
    uint32_t append_linger_ms;        /* quorum.append.linger.ms, 0 */
    /* log.segment.bytes or metadata.log.segment.bytes (which wins), 1 GiB,
     * min 14 (Kafka's metadata log: 8 MiB; small segments serve tests of
     * retention) */
    uint64_t segment_bytes;
    /* Snapshots and retention (docs/snapshots.md), Kafka's
     * KRaft names and defaults (limits.h EXEC_SNAPSHOT_*, EXEC_RETENTION_*):
     * metadata.log.max.record.bytes.between.snapshots, 20 MiB, min 1 */
    uint64_t snapshot_bytes_between;
    /* metadata.log.max.snapshot.interval.ms, 1 h; 0: no time-based snapshots */
    uint64_t snapshot_interval_ms;
    /* metadata.max.retention.bytes (alias log.retention.bytes), 100 MiB;
     * -1: unlimited */
    int64_t retention_bytes;
    /* metadata.max.retention.ms (aliases log.retention.ms, .minutes, .hours,
     * in that order of precedence), 7 days; -1: unlimited */
    int64_t retention_ms;
    /* controller.quorum.fetch.snapshot.max.bytes, 1 MiB, 1 .. KQ_SNAPSHOT_BYTES_MAX */
    uint32_t fetch_snapshot_max_bytes;
    int32_t socket_request_max_bytes; /* socket.request.max.bytes, 100 MiB */
    /* queued.max.request.bytes, 256 MiB (Kafka: -1, unbounded; refused
     * here), at least socket.request.max.bytes */
    uint64_t queued_max_request_bytes;
    int64_t connections_max_idle_ms;  /* connections.max.idle.ms, 600000; -1 never */
    /* connection.failed.authentication.delay.ms (issue 19): a failed SASL
     * login is answered this much later; KQ_FAILED_AUTH_DELAY_MS_DEFAULT. */
    int32_t failed_auth_delay_ms;
    /* The group coordinator (Kafka's keys and defaults, limits.h KQ_GROUP_*):
     * group.max.size 1 .. KQ_GROUP_MAX_SIZE_DEFAULT (its default),
     * group.min.session.timeout.ms (6000) <= group.max.session.timeout.ms
     * (1800000), group.initial.rebalance.delay.ms (3000, >= 0). */
    int32_t group_max_size;
    int32_t group_min_session_timeout_ms;
    int32_t group_max_session_timeout_ms;
    int32_t group_initial_rebalance_delay_ms;
    /* offsets.retention.minutes (10080, as ms here) and
     * offsets.retention.check.interval.ms (600000): committed offsets of a
     * group without members expire (issue 19, KIP-211). */
    int64_t offsets_retention_ms;
    int64_t offsets_retention_check_interval_ms;
    /* KIP-848 consumer groups (Kafka's keys and defaults, limits.h
     * KQ_GROUP_CONSUMER_*): group.consumer.session.timeout.ms (45000) within
     * its min (45000) and max (60000); group.consumer.heartbeat.interval.ms
     * (5000) within its min (5000) and max (15000) and below the session
     * timeout; group.consumer.max.size 1 .. KQ_GROUP_CONSUMER_MAX_SIZE_DEFAULT. */
    int32_t group_consumer_session_timeout_ms;
    int32_t group_consumer_min_session_timeout_ms;
    int32_t group_consumer_max_session_timeout_ms;
    int32_t group_consumer_heartbeat_interval_ms;
    int32_t group_consumer_min_heartbeat_interval_ms;
    int32_t group_consumer_max_heartbeat_interval_ms;
    int32_t group_consumer_max_size;
    /* group.consumer.assignors: enum group_assignor (kq/group.h) + 1 in
     * each 4 bits, the first (the default) lowest: 0x21 is "uniform,range". */
    int32_t group_consumer_assignors;
    /* group.consumer.migration.policy: enum group_migration_policy. */
    int32_t group_consumer_migration_policy;
    /* Transactions (issue 23): transaction.max.timeout.ms (900000),
     * transactional.id.expiration.ms (604800000) and
     * transaction.abort.timed.out.transaction.cleanup.interval.ms (10000). */
    int32_t txn_max_timeout_ms;
    int64_t txn_id_expiration_ms;
    int64_t txn_abort_interval_ms;
    char cluster_id[KQ_CLUSTER_ID_BYTES_MAX + 1]; /* cluster.id, "kq-raft-test-cluster" */
    /* The replicated partition (issue 22): quorum.topic.name (partition 0,
     * "__cluster_metadata") and quorum.topic.id (its Kafka topic id; the
     * default follows the two names Kafka's nodes use). */
    char topic_name[KQ_TOPIC_NAME_BYTES_MAX];
    kq_uuid topic_id;
    /* produce.raft.record.check: client records must have the shape Kafka's
     * Raft reader accepts (on by default unless the topic is
     * __cluster_metadata). */
    bool raft_record_check;
    /* metrics.port (our key): the Prometheus endpoint http://host:port/metrics
     * (docs/metrics.md); 0: off. metrics.host: where it binds; empty: the
     * first listener's host. */
    uint16_t metrics_port;
    char metrics_host[256];
    /* authorizer.class.name set (to anything): requests are checked against
     * super.users (User:a;User:b, as Kafka writes it) and the allow-lists
     * acl.produce.principals, acl.consume.principals and
     * acl.describe.principals (our keys; produce and consume imply
     * describe). Unset: everything is allowed, as in Kafka. */
    /* Not from the file: raft-server's --throughput and --record-size (the
     * built-in workload, as Kafka's TestRaftServer); 0: off. */
    uint32_t workload_records_per_s;
    uint32_t workload_record_bytes;
    /* Not from the file: raft-server's --replica-directory-id (TestRaftServer's
     * flag), this node's log directory id; zero: not given. */
    kq_uuid cli_directory_id;
    bool authorizer_enabled;
    /* sasl.credentials.file (our key; Kafka keeps SCRAM credentials in its
     * metadata log): required when a listener is SASL; its line, for the
     * error when the daemon cannot load it. */
    char sasl_credentials_file[4096];
    int sasl_credentials_line;
    kq_config_principals super_users;
    kq_config_principals acl[KQ_ACL_OP_COUNT];
    /* ssl.* and listener.name.<name>.ssl.* as written (kq/config_ssl.h
     * reads them per listener). */
    kq_config_ssl ssl;
    kq_config_voter_principal voter_principals[KQ_CONFIG_VOTERS_MAX];
    int voter_principal_count;
    int voter_principals_line;
    /* Connections (src/config/config_conn.c, kq/conn_limits.h): Kafka's
     * max.connections and max.connections.per.ip (0 .. KQ_MAX_CONNECTIONS_LIMIT;
     * -1, the default: derived from RLIMIT_NOFILE at start, the per-ip one
     * equal to max.connections) and max.connections.per.ip.overrides
     * ("ip:count,ip:count"). Each line is kept for the check after parsing. */
    int64_t max_connections;
    int64_t max_connections_per_ip;
    kq_conn_ip_override max_connections_ip_overrides[KQ_CONN_IP_OVERRIDES_MAX];
    int max_connections_ip_override_count;
    int max_connections_per_ip_line;
    /* Memory held for clients (issue 19; kq/budget.h, limits.h):
     * queued.max.response.bytes (our key), 128 MiB, at least 1 MiB; and
     * sasl.server.max.receive.size (Kafka's), 512 KiB, 1 .. socket.request.max.bytes. */
    uint64_t queued_max_response_bytes;
    int32_t sasl_server_max_receive_size;
} kq_config;

/* Fills *out with the defaults (node_id -1, no voters, no path). */
void kq_config_defaults(kq_config *out);

/* Loads path. Returns 0, or -1 with err holding one line of the form
 * "<file>:<line>: <key>: <reason>" (line and key left out when they do not
 * apply, e.g. an unreadable file). Keys this server does not use are
 * accepted with one warning line each on stderr. */
int kq_config_load(const char *path, kq_config *out, char *err, size_t errlen);

/* Same, with warnings written to warn (NULL discards them). */
int kq_config_load_warn(const char *path, kq_config *out, char *err,
                        size_t errlen, FILE *warn);

#endif
