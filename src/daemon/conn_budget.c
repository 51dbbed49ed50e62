/* RLIMIT_NOFILE and the connection pools (conn_budget.h). */
#include "conn_budget.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "kq/log_line.h"

/* The soft limit after raising it to the hard one (as far as allowed). */
static uint64_t raise_nofile(int32_t node_id)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        log_line("node %d: getrlimit(RLIMIT_NOFILE): %s; assuming 1024", node_id, strerror(errno));
        return 1024;
    }
    rlim_t was = rl.rlim_cur;
    if (rl.rlim_cur != rl.rlim_max) {
        struct rlimit want = {.rlim_cur = rl.rlim_max, .rlim_max = rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl.rlim_cur = rl.rlim_max;
        else
            log_line("node %d: cannot raise RLIMIT_NOFILE to its hard limit %llu: %s", node_id,
                     (unsigned long long)rl.rlim_max, strerror(errno));
    }
    uint64_t soft = rl.rlim_cur == RLIM_INFINITY ? (uint64_t)KQ_MAX_CONNECTIONS_LIMIT * 2
                                                 : (uint64_t)rl.rlim_cur;
    log_line("node %d: RLIMIT_NOFILE soft %llu -> %llu (hard %llu)", node_id,
             (unsigned long long)was, (unsigned long long)soft,
             (unsigned long long)rl.rlim_max);
    return soft;
}

bool conn_budget_setup(const kq_config *config, kq_conn_pool *clients, kq_conn_pool *controller,
                       char *err, size_t errlen)
{
    uint64_t nofile = raise_nofile(config->node_id);
    bool reserved = config->controller_listener_named;
    uint32_t budget = kq_conn_client_budget(nofile, reserved);
    if (budget < KQ_CLIENT_CONNECTIONS_MIN) {
        snprintf(err, errlen,
                 "RLIMIT_NOFILE %llu leaves %u client connections after %d reserved descriptors "
                 "and %d controller slots (at least %d needed): raise ulimit -n",
                 (unsigned long long)nofile, (unsigned)budget, KQ_FD_RESERVE,
                 reserved ? KQ_CONTROLLER_CONNECTIONS_MAX : 0, KQ_CLIENT_CONNECTIONS_MIN);
        return false;
    }
    uint32_t max = kq_conn_effective_max(config->max_connections, budget);
    if (config->max_connections >= 0 && (uint64_t)config->max_connections > max)
        log_line("node %d: max.connections=%lld cut to %u: RLIMIT_NOFILE %llu keeps %d "
                 "descriptors for storage and peers%s",
                 config->node_id, (long long)config->max_connections, (unsigned)max,
                 (unsigned long long)nofile, KQ_FD_RESERVE,
                 reserved ? " and the controller listeners' slots" : "");
    /* Default: a share of max.connections, so that one address never holds
     * every slot (Kafka's is unbounded; docs/deviations.md). */
    uint32_t per_ip_default =
        (uint32_t)((uint64_t)max * KQ_MAX_CONNECTIONS_PER_IP_DEFAULT_QUARTERS / 4);
    if (per_ip_default == 0)
        per_ip_default = 1;
    uint32_t per_ip = config->max_connections_per_ip < 0 ? per_ip_default
                      : (uint64_t)config->max_connections_per_ip > max
                          ? max
                          : (uint32_t)config->max_connections_per_ip;
    kq_conn_pool_init(clients, &(kq_conn_pool_config){
                                   .max_connections = max,
                                   .max_per_ip = per_ip,
                                   .overrides = config->max_connections_ip_overrides,
                                   .override_count = config->max_connections_ip_override_count,
                                   .evict = true,
                               });
    kq_conn_pool_init(controller, &(kq_conn_pool_config){
                                      .max_connections = KQ_CONTROLLER_CONNECTIONS_MAX,
                                      .max_per_ip = KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX,
                                  });
    log_line("node %d: max.connections=%u, max.connections.per.ip=%u (%d overrides); %d "
             "descriptors reserved%s",
             config->node_id, (unsigned)max, (unsigned)per_ip,
             config->max_connections_ip_override_count, KQ_FD_RESERVE,
             reserved ? "; controller listeners: their own slots" : "");
    return true;
}
