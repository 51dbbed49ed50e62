/* Start-up check of the log directory's identity (KIP-853, issue 20 item 1):
 * when <log dir>/meta.properties exists (a directory formatted by kq-storage
 * or Kafka's kafka-storage.sh), its node.id and cluster.id must be the
 * configured ones. Kafka's bootstrap snapshot
 * (__cluster_metadata-0/00000000000000000000-0000000000.checkpoint), when
 * present, must decode; at kraft.version 1 the voters live in the log:
 * the node starts with the checkpoint's voters as its first peers
 * (config->voters, config->voters_from_log), static voters if given must
 * be the same, and without initial voters it needs
 * controller.quorum.bootstrap.servers. A directory without
 * meta.properties is the seed's unformatted mode and starts as before;
 * nothing is written to it. */
#ifndef KQ_DAEMON_FORMAT_CHECK_H
#define KQ_DAEMON_FORMAT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "kq/config.h"

/* True when the directory is unformatted or agrees with the configuration.
 * False with err naming the file, the key and both values (exit 2). */
bool format_check(kq_config *config, char *err, size_t errlen);

#endif
