/* Descriptors and connections at start (issue 19 item 2): RLIMIT_NOFILE is
 * raised from the soft to the hard limit, KQ_FD_RESERVE and the controller
 * listeners' slots are kept out of the clients' reach, and the client and
 * controller connection pools are set up from max.connections,
 * max.connections.per.ip and its overrides (kq/conn_limits.h). */
#ifndef KQ_DAEMON_CONN_BUDGET_H
#define KQ_DAEMON_CONN_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "kq/config.h"
#include "kq/conn_limits.h"

/* Raises the soft limit and logs the figures; false with err when too few
 * descriptors are left for KQ_CLIENT_CONNECTIONS_MIN client connections.
 * controller: the pool of the controller listeners (used only when
 * controller.listener.names is given). */
bool conn_budget_setup(const kq_config *config, kq_conn_pool *clients, kq_conn_pool *controller,
                       char *err, size_t errlen);

#endif
