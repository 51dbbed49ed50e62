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
    kq_conn_pools_init(clients, controller,
                       &(kq_conn_pools_config){
                           .max_connections = max,
                           .max_connections_per_ip = config->max_connections_per_ip,
                           .overrides = config->max_connections_ip_overrides,
                           .override_count = config->max_connections_ip_override_count,
                       });
    uint32_t per_ip = clients->max_per_ip;
    log_line("node %d: max.connections=%u, max.connections.per.ip=%u (%d overrides); %d "
             "descriptors reserved%s",
             config->node_id, (unsigned)max, (unsigned)per_ip,
             config->max_connections_ip_override_count, KQ_FD_RESERVE,
             reserved ? "; controller listeners: their own slots" : "");
    return true;
}
