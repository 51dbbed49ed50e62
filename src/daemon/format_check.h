/* Start-up check of the log directory's identity (KIP-853, issue 20 item 1):
 * when <log dir>/meta.properties exists (a directory formatted by kq-storage
 * or Kafka's kafka-storage.sh), its node.id and cluster.id must be the
 * configured ones. A directory without it is the seed's unformatted mode
 * and starts as before; nothing is written to it. */
#ifndef KQ_DAEMON_FORMAT_CHECK_H
#define KQ_DAEMON_FORMAT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "kq/config.h"

/* True when the directory is unformatted or agrees with the configuration.
 * False with err naming the file, the key and both values (exit 2). */
bool format_check(const kq_config *config, char *err, size_t errlen);

#endif
