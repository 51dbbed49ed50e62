/* The daemon's seams for the executor (kq/exec.h): libuv's clock, timer and
 * thread pool, the listener and peer channels of src/net, and the POSIX file
 * system. Everything the node decides happens in src/exec; this file only
 * adapts callbacks. */
#include "node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <unistd.h>

#include "committed_printer.h"
#include "node_metrics.h"
#include "kq/assert.h"
#include "kq/config_ssl.h"
#include "kq/exec.h"
#include "kq/handler.h"
#include "kq/fs.h"
#include "kq/log_line.h"
#include "kq/meta_properties.h"
#include "kq/uuid.h"
#include "kq/net.h"
#include "conn_budget.h"

struct node {
    uv_loop_t *loop;
    kq_config config;
    /* The authorizer's lists, pointing into config. */
    handler_acl acl;
    const char *super_users[KQ_CONFIG_PRINCIPALS_MAX];
    const char *allowed[KQ_ACL_OP_COUNT][KQ_CONFIG_PRINCIPALS_MAX];
    kq_exec *exec;
    net_server *servers[KQ_CONFIG_LISTENERS_MAX]; /* one per listener, tag = index */
    /* max.connections: every client listener's connections, and the
     * controller listeners' own (conn_budget.h). */
    kq_conn_pool client_pool, controller_pool;
    /* queued.max.response.bytes: every listener's responses (kq/budget.h). */
    kq_budget budget;
    /* queued.max.request.bytes and the client frames per loop turn: every
     * listener's (kq/net.h). */
    net_shared *net_shared;
    /* One channel per peer: the configured voters, then voters the log
     * named (env_peer_endpoint); bounded by the executor's peer table. */
    net_peer *peers[EXEC_PEERS_MAX];
    int peer_count;
    /* TLS per SSL listener, and toward peers (kq/config_ssl.h). */
    kq_tls_ctx *tls_server[KQ_CONFIG_LISTENERS_MAX];
    kq_tls_principal_rules *tls_rules[KQ_CONFIG_LISTENERS_MAX];
    kq_tls_ctx *tls_client;
    /* The listener proves voters by certificate: a controller listener on
     * SSL with ssl.client.auth=required and voter principals configured. */
    bool voter_proof[KQ_CONFIG_LISTENERS_MAX];
    /* Where Metadata names this node on each listener (port 0: the client
     * endpoint; node_listener_endpoints). */
    handler_endpoint listener_endpoints[KQ_CONFIG_LISTENERS_MAX];
    uv_timer_t timer;
    int64_t clock_offset_ms; /* wall clock at start minus uv_now at start */
    bool flush_in_flight;
    uv_work_t flush_work;
    kq_log_flush_job *flush_job;
    int flush_rc;
    /* The snapshot job on the thread pool (NULL: none), and what its worker
     * signals when it is done (node_close waits for it). */
    struct node_snapshot_work *snapshot;
    uv_mutex_t snapshot_mutex;
    uv_cond_t snapshot_cond;
    /* ListOffsets searches on the thread pool whose worker has not
     * returned (under snapshot_mutex; node_close waits for 0). */
    int searches_running;
    committed_printer printer;
    node_metrics *metrics; /* NULL: metrics.port unset */
    bool shutdown_requested;
    bool stopped;
    uv_timer_t shutdown_deadline;
};

static int64_t wall_clock_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static int64_t env_now(void *ctx)
{
    node *n = ctx;
    return (int64_t)uv_now(n->loop) + n->clock_offset_ms;
}

static int64_t env_now_us(void *ctx)
{
    (void)ctx;
    return (int64_t)(uv_hrtime() / 1000);
}

static uint64_t *env_slot_stamp(void *ctx, void *slot)
{
    (void)ctx;
    return net_slot_stamp(slot);
}

static net_peer *node_peer(node *n, int32_t id)
{
    for (int i = 0; i < n->peer_count; i++)
        if (net_peer_node_id(n->peers[i]) == id)
            return n->peers[i];
    return NULL;
}

static bool env_peer_send(void *ctx, int32_t node_id, int32_t corr, const uint8_t *frame,
                          size_t len, uint64_t tag)
{
    net_peer *peer = node_peer(ctx, node_id);
    _Static_assert(sizeof(void *) >= sizeof(uint64_t), "a tag rides in a pointer");
    return peer && net_peer_send(peer, corr, frame, len, (void *)(uintptr_t)tag);
}

static void on_peer_response(void *ctx, net_peer *peer, void *request_ctx, const uint8_t *frame,
                             size_t len)
{
    node *n = ctx;
    exec_on_peer_response(n->exec, net_peer_node_id(peer), (uint64_t)(uintptr_t)request_ctx,
                          len ? frame : NULL, len);
}

static void env_reply(void *ctx, void *slot, const uint8_t *d, size_t len)
{
    (void)ctx;
    net_slot_respond(slot, d, len);
}
static void env_reply_take(void *ctx, void *slot, uint8_t *frame, size_t len)
{
    (void)ctx;
    net_slot_respond_take(slot, frame, len);
}
/* A streamed Fetch answer (issue 19): net reads the pieces through the
 * executor as the socket drains, never knowing the log. */
typedef struct node_stream {
    node *n;
    exec_stream_piece *pieces;
} node_stream;
static ssize_t node_stream_read(void *ctx, uint32_t piece, uint8_t *buf, size_t cap, size_t *need)
{
    node_stream *ns = ctx;
    if (!ns->n->exec)
        return -ECANCELED;
    return exec_stream_read(ns->n->exec, &ns->pieces[piece].cur, buf, cap, need);
}
static void node_stream_release(void *ctx)
{
    node_stream *ns = ctx;
    free(ns->pieces);
    free(ns);
}
static void env_reply_stream(void *ctx, void *slot, uint8_t *frame, size_t len,
                             exec_stream_piece *pieces, uint32_t count)
{
    node_stream *ns = malloc(sizeof(*ns));
    net_stream_piece *np = malloc(sizeof(*np) * (count ? count : 1));
    if (!ns || !np || count == 0) {
        free(ns);
        free(np);
        free(frame);
        free(pieces);
        net_slot_close(slot, "out of memory");
        return;
    }
    *ns = (node_stream){.n = ctx, .pieces = pieces};
    for (uint32_t i = 0; i < count; i++)
        np[i] = (net_stream_piece){.at = pieces[i].at, .len = pieces[i].cur.range.len};
    net_stream_source src = {.ctx = ns, .read = node_stream_read, .release = node_stream_release};
    net_slot_respond_stream(slot, frame, len, np, count, src);
    free(np);
}
static void env_reply_none(void *ctx, void *slot)
{
    (void)ctx;
    net_slot_skip(slot);
}
static void env_reply_close(void *ctx, void *slot, const char *why)
{
    (void)ctx;
    net_slot_close(slot, why);
}
static uint64_t env_slot_grant(void *ctx, void *slot, uint64_t want)
{
    (void)ctx;
    return net_slot_grant(slot, want);
}
static void env_slot_authenticated(void *ctx, void *slot)
{
    (void)ctx;
    net_slot_authenticated(slot);
}
/* A shared listener's connection carried an accepted quorum request: it
 * gets the quorum's reserved share, turns and pool protection (issue 19;
 * net_slot_promote_quorum does nothing on a controller listener). */
static void env_slot_quorum_accepted(void *ctx, void *slot, int32_t replica_id)
{
    const node *n = ctx;
    if (n->config.controller_listener_named || !net_slot_promote_quorum(slot))
        return;
    const kq_config_listener *l = &n->config.listeners[net_slot_listener_tag(slot)];
    LOG_LINE_LIMITED("connection %s on listener %s: quorum request of replica %d accepted; "
                     "the connection now has the quorum's reserved response share and turns, "
                     "and is never evicted",
                     net_slot_peer(slot), l->name, replica_id);
}
static const char *env_slot_peer(void *ctx, void *slot)
{
    (void)ctx;
    return net_slot_peer(slot);
}
/* Without controller.listener.names every listener speaks for the quorum
 * (the seed's single-listener files). */
static void env_slot_conn(void *ctx, void *slot, handler_conn *out)
{
    const node *n = ctx;
    uint32_t i = net_slot_listener_tag(slot);
    KQ_ASSERT(i < (uint32_t)n->config.listener_count);
    const kq_config_listener *l = &n->config.listeners[i];
    const char *principal = net_slot_tls_principal(slot);
    *out = (handler_conn){.quorum_listener = !n->config.controller_listener_named || l->controller,
                          .principal = principal,
                          .voter_proof_required = n->voter_proof[i],
                          .voter_id = kq_config_voter_for_principal(&n->config, principal),
                          .sasl_listener = l->sasl,
                          .sasl_mechanisms = l->sasl_mechanisms,
                          .session = l->sasl ? net_slot_conn_user(slot) : NULL,
                          .advertised = &n->listener_endpoints[i],
                          .listener_name = l->name};
}

/* A SASL handshake evicted or expired: its connection closes now. */
static void env_session_close(void *ctx, void **session, const char *why)
{
    (void)ctx;
    net_conn_close_user(session, why);
}

static void on_conn_closed(void *ctx, void *user)
{
    node *n = ctx;
    exec_conn_closed(n->exec, user);
}

static void flush_work(uv_work_t *w)
{
    node *n = w->data;
    n->flush_rc = kq_log_flush_run(n->flush_job);
}

static void flush_done(uv_work_t *w, int status)
{
    node *n = w->data;
    (void)status;
    kq_log_flush_job *job = n->flush_job;
    n->flush_job = NULL;
    n->flush_in_flight = false;
    exec_flush_done(n->exec, job, n->flush_rc);
}

static void env_flush_start(void *ctx, kq_log_flush_job *job)
{
    node *n = ctx;
    n->flush_job = job;
    n->flush_in_flight = true;
    n->flush_work.data = n;
    uv_queue_work(n->loop, &n->flush_work, flush_work, flush_done);
}

/* One snapshot job on the thread pool. Allocated per job: node_close may
 * hand a finished job to the executor before libuv delivers its after-work
 * callback, and the next job must not reuse a request libuv still holds. */
typedef struct node_snapshot_work {
    uv_work_t work;
    node *n;
    struct exec_snapshot_job *job;
    int rc;
    bool finished;  /* the worker returned (under n->snapshot_mutex) */
    bool delivered; /* exec_snapshot_done was called */
} node_snapshot_work;

static void snapshot_work(uv_work_t *w)
{
    node_snapshot_work *s = w->data;
    int rc = exec_snapshot_job_run(s->job);
    uv_mutex_lock(&s->n->snapshot_mutex);
    s->rc = rc;
    s->finished = true;
    uv_cond_broadcast(&s->n->snapshot_cond);
    uv_mutex_unlock(&s->n->snapshot_mutex);
}

/* On the loop thread, once the worker finished: exactly once per job. */
static void snapshot_deliver(node_snapshot_work *s)
{
    node *n = s->n;
    s->delivered = true;
    if (n->snapshot == s)
        n->snapshot = NULL;
    exec_snapshot_done(n->exec, s->job, s->rc);
}

static void snapshot_after(uv_work_t *w, int status)
{
    node_snapshot_work *s = w->data;
    (void)status; /* never cancelled */
    if (!s->delivered)
        snapshot_deliver(s);
    free(s);
}

static void env_snapshot_start(void *ctx, struct exec_snapshot_job *job)
{
    node *n = ctx;
    KQ_ASSERT(!n->snapshot);
    node_snapshot_work *s = calloc(1, sizeof *s);
    if (!s) {
        /* As without the seam: written here, on the loop. */
        exec_snapshot_done(n->exec, job, exec_snapshot_job_run(job));
        return;
    }
    *s = (node_snapshot_work){.n = n, .job = job};
    s->work.data = s;
    n->snapshot = s;
    uv_queue_work(n->loop, &s->work, snapshot_work, snapshot_after);
}

/* One ListOffsets search on the thread pool (exec_search.c). */
typedef struct node_search_work {
    uv_work_t work;
    node *n;
    struct exec_search_job *job;
    int rc;
} node_search_work;

static void search_work(uv_work_t *w)
{
    node_search_work *s = w->data;
    s->rc = exec_search_job_run(s->job);
    uv_mutex_lock(&s->n->snapshot_mutex);
    s->n->searches_running--;
    uv_cond_broadcast(&s->n->snapshot_cond);
    uv_mutex_unlock(&s->n->snapshot_mutex);
}

static void search_after(uv_work_t *w, int status)
{
    node_search_work *s = w->data;
    (void)status; /* never cancelled */
    if (s->n->exec)
        exec_search_done(s->n->exec, s->job, s->rc);
    free(s);
}

static void env_search_start(void *ctx, struct exec_search_job *job)
{
    node *n = ctx;
    node_search_work *s = calloc(1, sizeof *s);
    if (!s) {
        exec_search_done(n->exec, job, exec_search_job_run(job)); /* on the loop */
        return;
    }
    *s = (node_search_work){.n = n, .job = job};
    s->work.data = s;
    uv_mutex_lock(&n->snapshot_mutex);
    n->searches_running++;
    uv_mutex_unlock(&n->snapshot_mutex);
    uv_queue_work(n->loop, &s->work, search_work, search_after);
}

/* After the loop stopped: no worker may read a search job the executor
 * frees (their after-work callbacks never run; exec_destroy frees the jobs). */
static void node_finish_searches(node *n)
{
    uv_mutex_lock(&n->snapshot_mutex);
    while (n->searches_running > 0)
        uv_cond_wait(&n->snapshot_cond, &n->snapshot_mutex);
    uv_mutex_unlock(&n->snapshot_mutex);
}

/* After the loop stopped: waits for the snapshot being written and hands it
 * to the executor (again for one it starts then), so no worker touches a
 * job or half a file when the executor closes. Its after-work callback never
 * runs (the loop is not run again); the request stays referenced by it. */
static void node_finish_snapshot(node *n)
{
    while (n->snapshot) {
        node_snapshot_work *s = n->snapshot;
        uv_mutex_lock(&n->snapshot_mutex);
        while (!s->finished)
            uv_cond_wait(&n->snapshot_cond, &n->snapshot_mutex);
        uv_mutex_unlock(&n->snapshot_mutex);
        snapshot_deliver(s);
    }
}

static void on_timer(uv_timer_t *t)
{
    node *n = t->data;
    exec_on_timer(n->exec);
}

static void env_arm_timer(void *ctx, int64_t due_ms)
{
    node *n = ctx;
    int64_t now = env_now(n);
    uint64_t delay = due_ms > now ? (uint64_t)(due_ms - now) : 0;
    if (delay > 60000)
        delay = 60000;
    uv_timer_start(&n->timer, on_timer, delay, 0);
}

static void env_fatal(void *ctx, const char *what, const char *detail)
{
    (void)ctx;
    (void)what;
    (void)detail; /* the executor logged both */
    fflush(stdout);
    fflush(stderr);
    _exit(1);
}

static void env_on_committed(void *ctx, int64_t hw)
{
    node *n = ctx;
    if (n->config.verbose)
        committed_printer_advance(&n->printer, exec_log(n->exec), hw);
}

static void env_on_truncated(void *ctx, int64_t end_offset)
{
    node *n = ctx;
    committed_printer_truncated(&n->printer, end_offset);
}

static void env_on_shutdown_complete(void *ctx)
{
    node *n = ctx;
    if (n->shutdown_requested && !n->stopped) {
        n->stopped = true;
        uv_stop(n->loop);
    }
}

static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    node *n = ctx;
    exec_on_frame(n->exec, slot, frame, len);
}

static void on_shutdown_deadline(uv_timer_t *t)
{
    node *n = t->data;
    if (!n->stopped) {
        log_line("node %d: graceful shutdown timed out; stopping", n->config.node_id);
        n->stopped = true;
        uv_stop(n->loop);
    }
}

void node_request_shutdown(node *n)
{
    if (n->shutdown_requested)
        return;
    n->shutdown_requested = true;
    log_line("node %d: shutting down", n->config.node_id);
    uv_timer_init(n->loop, &n->shutdown_deadline);
    n->shutdown_deadline.data = n;
    uv_timer_start(&n->shutdown_deadline, on_shutdown_deadline,
                   n->config.request_timeout_ms + 1000, 0);
    exec_request_shutdown(n->exec);
}

/* Whether a listener takes clients: with controller.listener.names, one
 * not named there. A node with controller listeners alone (as Kafka's
 * TestRaftServer runs, issue 22) asks its peers for no client endpoints:
 * it has no Metadata to fill in, and a TestRaftServer peer logs an ERROR
 * for every DescribeCluster it is asked. */
static bool node_serves_clients(const kq_config *c)
{
    for (int i = 0; i < c->listener_count; i++)
        if (!c->controller_listener_named || !c->listeners[i].controller)
            return true;
    return false;
}

/* What Metadata names this node by: the client listener (the first one not
 * a controller listener) at its advertised address. With one listener and
 * nothing advertised, the voter endpoint as before (port 0). */
static void node_client_endpoint(const kq_config *c, exec_config *ec)
{
    const kq_config_listener *l = &c->listeners[0];
    for (int i = c->listener_count - 1; i >= 0; i--)
        if (!c->listeners[i].controller)
            l = &c->listeners[i];
    if (!c->controller_listener_named && !l->advertised)
        return;
    const char *host = l->advertised_host;
    if (host[0] == '\0' || strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0) {
        host = "localhost";
        for (int i = 0; i < c->voter_count; i++)
            if (c->voters[i].id == c->node_id)
                host = c->voters[i].host;
    }
    ec->client_endpoint.node_id = c->node_id;
    snprintf(ec->client_endpoint.host, sizeof(ec->client_endpoint.host), "%s", host);
    ec->client_endpoint.port = l->advertised_port;
    ec->discover_client_endpoints = c->voter_count > 1;
}

/* KIP-853: where this node's voters live (the log, or static), the
 * bootstrap servers, auto-join, and this node's endpoint on its controller
 * listener (the first one named, or the only listener) as AddRaftVoter
 * names it. */
static void node_quorum_settings(const kq_config *c, exec_config *ec)
{
    ec->voters_from_log = c->voters_from_log;
    ec->auto_join = c->auto_join;
    ec->bootstrap_server_count = c->bootstrap_server_count;
    for (int i = 0; i < c->bootstrap_server_count; i++) {
        exec_endpoint *b = &ec->bootstrap_servers[i];
        b->node_id = c->bootstrap_servers[i].id;
        snprintf(b->host, sizeof b->host, "%s", c->bootstrap_servers[i].host);
        b->port = c->bootstrap_servers[i].port;
    }
    const kq_config_listener *l = &c->listeners[0];
    for (int i = c->listener_count - 1; i >= 0; i--)
        if (c->listeners[i].controller)
            l = &c->listeners[i];
    const char *host = l->advertised_host[0] ? l->advertised_host : l->host;
    if (host[0] == '\0' || strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0)
        host = "localhost";
    snprintf(ec->controller_listener, sizeof ec->controller_listener, "%s", l->name);
    ec->controller_endpoint.node_id = c->node_id;
    snprintf(ec->controller_endpoint.host, sizeof ec->controller_endpoint.host, "%s", host);
    ec->controller_endpoint.port = l->advertised_port ? l->advertised_port : l->port;
    if (c->voters_from_log)
        ec->discover_client_endpoints = true; /* the peers come and go */
}

/* This node on each client listener, as Kafka's brokers advertise one
 * endpoint per listener name (issue 19 item 13): the listener's
 * advertised.listeners entry, else its bound address (0.0.0.0 or empty:
 * the voter host). A controller listener, and a seed-style listener that
 * is the voter endpoint and advertises nothing, keep the client endpoint
 * (port 0). */
static void node_listener_endpoints(node *n)
{
    const kq_config *c = &n->config;
    const char *voter_host = "localhost";
    uint16_t voter_port = 0;
    for (int i = 0; i < c->voter_count; i++)
        if (c->voters[i].id == c->node_id) {
            voter_host = c->voters[i].host;
            voter_port = c->voters[i].port;
        }
    for (int i = 0; i < c->listener_count; i++) {
        const kq_config_listener *l = &c->listeners[i];
        handler_endpoint *e = &n->listener_endpoints[i];
        *e = (handler_endpoint){.node_id = c->node_id};
        if ((c->controller_listener_named && l->controller) ||
            (!c->controller_listener_named && !l->advertised && l->port == voter_port))
            continue;
        const char *host = l->advertised_host;
        if (host[0] == '\0' || strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0)
            host = voter_host;
        snprintf(e->host, sizeof e->host, "%s", host);
        e->port = l->advertised_port;
    }
}

/* KIP-848 consumer groups' keys (config.h) into the coordinator's config. */
static void node_consumer_group_settings(const kq_config *c, group_config *g)
{
    g->consumer_session_timeout_ms = c->group_consumer_session_timeout_ms;
    g->consumer_min_session_timeout_ms = c->group_consumer_min_session_timeout_ms;
    g->consumer_max_session_timeout_ms = c->group_consumer_max_session_timeout_ms;
    g->consumer_heartbeat_interval_ms = c->group_consumer_heartbeat_interval_ms;
    g->consumer_min_heartbeat_interval_ms = c->group_consumer_min_heartbeat_interval_ms;
    g->consumer_max_heartbeat_interval_ms = c->group_consumer_max_heartbeat_interval_ms;
    g->consumer_max_size = c->group_consumer_max_size;
    g->consumer_assignor_count = 0;
    for (int i = 0; i < GROUP_ASSIGNORS_MAX; i++) {
        int a = (c->group_consumer_assignors >> (4 * i)) & 15;
        if (a)
            g->consumer_assignors[g->consumer_assignor_count++] = (enum group_assignor)(a - 1);
    }
    g->consumer_migration_policy = (enum group_migration_policy)c->group_consumer_migration_policy;
}

/* handler_acl over the node's own copy of the configuration. */
static void node_acl(node *n)
{
    const kq_config *c = &n->config;
    _Static_assert((int)KQ_ACL_OP_COUNT == (int)HANDLER_OP_COUNT &&
                       (int)KQ_ACL_PRODUCE == (int)HANDLER_OP_PRODUCE &&
                       (int)KQ_ACL_CONSUME == (int)HANDLER_OP_CONSUME &&
                       (int)KQ_ACL_DESCRIBE == (int)HANDLER_OP_DESCRIBE &&
                       (int)KQ_ACL_CLUSTER_ACTION == (int)HANDLER_OP_CLUSTER_ACTION &&
                       (int)KQ_ACL_DELETE == (int)HANDLER_OP_DELETE,
                   "the config's operations are the handlers'");
    n->acl = (handler_acl){.enabled = c->authorizer_enabled, .super_users = n->super_users,
                           .super_user_count = c->super_users.count};
    for (int i = 0; i < c->super_users.count; i++)
        n->super_users[i] = c->super_users.names[i];
    for (int op = 0; op < KQ_ACL_OP_COUNT; op++) {
        for (int i = 0; i < c->acl[op].count; i++)
            n->allowed[op][i] = c->acl[op].names[i];
        n->acl.allowed[op] = n->allowed[op];
        n->acl.allowed_count[op] = c->acl[op].count;
    }
}

static void node_exec_config(const kq_config *c, int64_t wall_ms, exec_config *ec)
{
    *ec = (exec_config){
        .node_id = c->node_id,
        .cluster_id = c->cluster_id,
        .topic_name = c->topic_name,
        .topic_id = c->topic_id,
        .raft_record_check = c->raft_record_check,
        .log_dir = c->log_dir,
        .segment_bytes = c->segment_bytes,
        .frame_bytes_max = c->socket_request_max_bytes,
        .election_timeout_ms = c->election_timeout_ms,
        .fetch_timeout_ms = c->fetch_timeout_ms,
        .election_backoff_max_ms = c->election_backoff_max_ms,
        .request_timeout_ms = c->request_timeout_ms,
        .retry_backoff_ms = c->retry_backoff_ms,
        .append_linger_ms = c->append_linger_ms,
        /* Explicit values (0 in exec_config means the default). Kafka's
         * interval 0 (no time-based snapshots) is never; a retention of 0
         * is 1 (whole segments go either way). */
        .snapshot_bytes_between = c->snapshot_bytes_between,
        .snapshot_interval_ms = c->snapshot_interval_ms ? c->snapshot_interval_ms : UINT64_MAX,
        .retention_bytes = c->retention_bytes ? c->retention_bytes : 1,
        .retention_ms = c->retention_ms ? c->retention_ms : 1,
        .fetch_snapshot_max_bytes = c->fetch_snapshot_max_bytes,
        .random_seed = (uint64_t)wall_ms ^ ((uint64_t)c->node_id << 32) ^ (uint64_t)getpid(),
        /* Producer ids: the node id (mod 2^22) in the top bits, then the
         * start time in milliseconds (40 bits) plus one per id handed out. */
        .producer_id_base = (int64_t)(((uint64_t)c->node_id & ((1u << 22) - 1)) << 40 |
                                      ((uint64_t)wall_ms & ((UINT64_C(1) << 40) - 1))),
    };
    _Static_assert(KQ_CONFIG_VOTERS_MAX <= EXEC_VOTERS_MAX, "every configured voter fits");
    for (int i = 0; i < c->voter_count; i++) {
        ec->voters[i].node_id = c->voters[i].id;
        snprintf(ec->voters[i].host, sizeof(ec->voters[i].host), "%s", c->voters[i].host);
        ec->voters[i].port = c->voters[i].port;
    }
    ec->voter_count = c->voter_count;
    node_client_endpoint(c, ec);
    node_quorum_settings(c, ec);
    group_config *gcfg = &ec->group;
    *gcfg = group_config_default();
    gcfg->max_size = c->group_max_size;
    gcfg->min_session_timeout_ms = c->group_min_session_timeout_ms;
    gcfg->max_session_timeout_ms = c->group_max_session_timeout_ms;
    gcfg->initial_rebalance_delay_ms = c->group_initial_rebalance_delay_ms;
    gcfg->random_seed = ec->random_seed ^ 0x67726f7570ull; /* "group" */
    gcfg->members_per_connection_max = KQ_GROUP_MEMBERS_PER_CONNECTION_MAX;
    gcfg->offsets_retention_ms = c->offsets_retention_ms;
    gcfg->offsets_retention_check_interval_ms = c->offsets_retention_check_interval_ms;
    node_consumer_group_settings(c, gcfg);
    ec->txn_max_timeout_ms = c->txn_max_timeout_ms;
    ec->txn_id_expiration_ms = c->txn_id_expiration_ms;
    ec->txn_abort_interval_ms = c->txn_abort_interval_ms;
    ec->workload_records_per_s = c->workload_records_per_s;
    ec->workload_record_bytes = c->workload_record_bytes;
}

/* The contexts of every SSL listener and, when the peers' listener is SSL,
 * the client context toward them (the load already built each once). */
static bool node_open_tls(node *n, char *err, size_t errlen)
{
    const kq_config *c = &n->config;
    for (int i = 0; i < c->listener_count; i++) {
        if (!kq_config_listener_tls(&c->listeners[i]))
            continue;
        n->tls_server[i] = kq_config_tls_server(c, i, err, errlen);
        if (!n->tls_server[i] || !(n->tls_rules[i] = kq_config_tls_rules(c, i, err, errlen)))
            return false;
        const char *auth = kq_config_ssl_value(c, i, KQ_SSL_CLIENT_AUTH, NULL);
        bool quorum = !c->controller_listener_named || c->listeners[i].controller;
        n->voter_proof[i] = quorum && c->voter_principal_count > 0 && auth &&
                            strcasecmp(auth, "required") == 0;
    }
    int peer = kq_config_peer_listener(c);
    bool peers = c->voter_count > 1 || c->voters_from_log; /* KIP-853: peers come later */
    if (peers && kq_config_listener_tls(&c->listeners[peer]) &&
        !(n->tls_client = kq_config_tls_client(c, peer, err, errlen)))
        return false;
    return true;
}

/* The channel to node id at host:port, with the settings every peer
 * channel shares (TLS toward the peer listener, timeouts, frame limit);
 * replaces node id's channel when it has one (its requests in flight are
 * dropped unanswered: the executor gave them up). */
static void node_peer_open(node *n, int32_t id, const char *host, uint16_t port)
{
    const kq_config *config = &n->config;
    net_peer_config pc = {
        .node_id = id,
        .host = host,
        .port = port,
        .request_timeout_ms = config->request_timeout_ms,
        .retry_backoff_ms = config->retry_backoff_ms,
        .frame_bytes_max = config->socket_request_max_bytes,
        .on_response = on_peer_response,
        .ctx = n,
        .tls = n->tls_client,
    };
    int i = 0;
    while (i < n->peer_count && net_peer_node_id(n->peers[i]) != id)
        i++;
    KQ_ASSERT(i < EXEC_PEERS_MAX); /* the executor's table bounds its peers */
    if (i < n->peer_count)
        net_peer_destroy(n->peers[i]);
    else
        n->peer_count++;
    n->peers[i] = net_peer_create(n->loop, &pc);
}

/* env->peer_endpoint: the voter set in force named node id at host:port,
 * or (host NULL) no longer names it. */
static void env_peer_endpoint(void *ctx, int32_t id, const char *host, uint16_t port)
{
    node *n = ctx;
    if (host) {
        node_peer_open(n, id, host, port);
        return;
    }
    for (int i = 0; i < n->peer_count; i++) {
        if (net_peer_node_id(n->peers[i]) != id)
            continue;
        net_peer_destroy(n->peers[i]);
        n->peers[i] = n->peers[--n->peer_count];
        return;
    }
}

/* One outbound channel per other configured voter, and per bootstrap
 * server (KIP-853; the core's ids -2, -3, ...). */
static void node_open_peers(node *n)
{
    const kq_config *config = &n->config;
    for (int i = 0; i < config->voter_count; i++)
        if (config->voters[i].id != config->node_id)
            node_peer_open(n, config->voters[i].id, config->voters[i].host,
                           config->voters[i].port);
    for (int i = 0; i < config->bootstrap_server_count; i++)
        node_peer_open(n, config->bootstrap_servers[i].id, config->bootstrap_servers[i].host,
                       config->bootstrap_servers[i].port);
}

static bool node_open_network(node *n, char *err, size_t errlen)
{
    const kq_config *config = &n->config;
    if (!node_open_tls(n, err, errlen) ||
        !conn_budget_setup(config, &n->client_pool, &n->controller_pool, err, errlen))
        return false;
    node_open_peers(n);
    /* queued.max.request.bytes is one budget for every listener (Kafka: per
     * broker), and so is queued.max.response.bytes, the controller
     * listener's connections in the quorum's reserved share. */
    kq_budget_init(&n->budget, config->queued_max_response_bytes, 0, 0);
    if (!(n->net_shared = net_shared_create(config->queued_max_request_bytes))) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (int i = 0; i < config->listener_count; i++) {
        const kq_config_listener *l = &config->listeners[i];
        bool quorum_only = config->controller_listener_named && l->controller;
        net_server_config sc = {
            .budget = &n->budget,
            .budget_class = quorum_only ? KQ_BUDGET_QUORUM : KQ_BUDGET_CLIENT,
            .unauthenticated_frame_bytes_max =
                l->sasl ? config->sasl_server_max_receive_size : 0,
            .host = l->host,
            .port = l->port,
            .frame_bytes_max = config->socket_request_max_bytes,
            .shared = n->net_shared,
            .idle_ms = config->connections_max_idle_ms,
            .on_frame = on_frame,
            .ctx = n,
            .tag = (uint32_t)i,
            .on_conn_closed = on_conn_closed,
            .tls = n->tls_server[i],
            .tls_principal_rules = n->tls_rules[i],
            .pool = kq_conn_pool_of_listener(&n->client_pool, &n->controller_pool,
                                             config->controller_listener_named, l->controller),
            .pool_name = config->controller_listener_named && l->controller
                             ? "KQ_CONTROLLER_CONNECTIONS_MAX"
                             : "max.connections",
            .pool_per_ip_name = config->controller_listener_named && l->controller
                                    ? "KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX"
                                    : "max.connections.per.ip",
        };
        n->servers[i] = net_server_start(n->loop, &sc, err, errlen);
        if (!n->servers[i])
            return false;
        log_line("node %d: listener %s on %s:%u (%s%s)%s", config->node_id, l->name,
                 l->host[0] ? l->host : "0.0.0.0", l->port,
                 l->protocol == KQ_PROTOCOL_SSL        ? "SSL"
                 : l->protocol == KQ_PROTOCOL_SASL_SSL ? "SASL_SSL"
                 : l->sasl                             ? "SASL_PLAINTEXT"
                                                       : "PLAINTEXT",
                 n->voter_proof[i] ? ", voters proven by certificate" : "",
                 l->controller || !config->controller_listener_named ? " (quorum)" : "");
    }
    return true;
}

/* Issue 20 item 6: a formatted directory's id is meta.properties'
 * directory.id (format_check read it already); an unformatted one takes a
 * random id the first time, or --replica-directory-id's (issue 22), and
 * keeps it in its quorum state (the executor decides which applies). */
static void node_directory_ids(const kq_config *c, exec_config *ec)
{
    kq_meta_properties m;
    char why[256];
    if (kq_meta_properties_load(kq_fs_posix(), c->log_dir, &m, why, sizeof why) == 1 &&
        m.has_directory_id)
        ec->directory_id = m.directory_id;
    if (!kq_uuid_is_zero(&c->cli_directory_id))
        ec->new_directory_id = c->cli_directory_id; /* directory_arg_check: it agrees */
    else if (kq_uuid_random(&ec->new_directory_id) != 0)
        memset(&ec->new_directory_id, 0, sizeof ec->new_directory_id); /* no checks */
}

node *node_start(uv_loop_t *loop, const kq_config *config, const struct kq_cred_store *creds,
                 char *err, size_t errlen)
{
    node *n = calloc(1, sizeof(*n));
    if (!n) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    n->loop = loop;
    n->config = *config;
    if (uv_mutex_init(&n->snapshot_mutex) != 0 || uv_cond_init(&n->snapshot_cond) != 0) {
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    uv_update_time(loop);
    int64_t wall = wall_clock_ms();
    n->clock_offset_ms = wall - (int64_t)uv_now(loop);
    exec_config ec;
    node_exec_config(&n->config, wall, &ec);
    node_directory_ids(&n->config, &ec);
    node_acl(n);
    node_listener_endpoints(n);
    for (int i = 0; i < n->config.listener_count; i++) {
        const handler_endpoint *e = &n->listener_endpoints[i];
        if (e->port == 0)
            continue;
        int k = ec.client_listener_count++;
        snprintf(ec.client_listeners[k].name, sizeof ec.client_listeners[k].name, "%s",
                 n->config.listeners[i].name);
        ec.client_listeners[k].endpoint.node_id = e->node_id;
        snprintf(ec.client_listeners[k].endpoint.host, sizeof ec.client_listeners[k].endpoint.host,
                 "%s", e->host);
        ec.client_listeners[k].endpoint.port = e->port;
    }
    if (ec.client_listener_count > 0 && (n->config.voter_count > 1 || n->config.voters_from_log))
        ec.discover_client_endpoints = true;
    if (!node_serves_clients(&n->config))
        ec.discover_client_endpoints = false; /* no Metadata to fill in */
    ec.acl = &n->acl;
    ec.sasl_credentials = creds;
    ec.failed_auth_delay_ms = n->config.failed_auth_delay_ms;
    exec_env env = {
        .ctx = n,
        .fs = kq_fs_posix(),
        .now_ms = env_now,
        .now_us = env_now_us,
        .peer_send = env_peer_send,
        .peer_endpoint = env_peer_endpoint,
        .reply = env_reply,
        .reply_take = env_reply_take,
        .reply_stream = env_reply_stream,
        .reply_none = env_reply_none,
        .reply_close = env_reply_close,
        .slot_peer = env_slot_peer,
        .slot_stamp = env_slot_stamp,
        .slot_conn = env_slot_conn,
        .slot_grant = env_slot_grant,
        .slot_authenticated = env_slot_authenticated,
        .slot_quorum_accepted = env_slot_quorum_accepted,
        .session_close = env_session_close,
        .flush_start = env_flush_start,
        .snapshot_start = env_snapshot_start,
        .search_start = env_search_start,
        .arm_timer = env_arm_timer,
        .fatal = env_fatal,
        .on_committed = env_on_committed,
        .on_truncated = env_on_truncated,
        .on_shutdown_complete = env_on_shutdown_complete,
    };
    uv_timer_init(loop, &n->timer);
    n->timer.data = n;
    n->exec = exec_create(&ec, &env, err, errlen);
    if (!n->exec)
        return NULL;
    committed_printer_init(&n->printer, config->node_id);
    if (!node_open_network(n, err, errlen))
        return NULL;
    node_metrics_sources ms = {.loop = loop, .exec = n->exec, .servers = n->servers,
                               .peers = n->peers, .peer_count = &n->peer_count,
                               .net_shared = n->net_shared, .response_budget = &n->budget};
    if (!node_metrics_start(&n->config, &ms, &n->metrics, err, errlen))
        return NULL;
    log_line("node %d: listening on %s:%u, log dir %s, %d voter(s)", config->node_id,
             config->listener_host[0] ? config->listener_host : "0.0.0.0", config->listener_port,
             config->log_dir, config->voter_count);
    exec_start(n->exec);
    return n;
}

void node_close(node *n)
{
    if (!n)
        return;
    node_finish_snapshot(n);
    node_finish_searches(n);
    if (n->flush_in_flight)
        return; /* a worker still uses the log; the OS closes it */
    exec_destroy(n->exec, false);
    n->exec = NULL;
}
