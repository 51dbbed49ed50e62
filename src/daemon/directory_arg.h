/* raft-server's --replica-directory-id (Kafka's TestRaftServer flag, issue
 * 22): this node's log directory id (KIP-853) given on the command line.
 * It must agree with the id the directory already has: meta.properties'
 * directory.id (a formatted directory) or the one an unformatted directory
 * keeps in its quorum state. A directory with neither takes it instead of a
 * random one, and keeps it. */
#ifndef KQ_DAEMON_DIRECTORY_ARG_H
#define KQ_DAEMON_DIRECTORY_ARG_H

#include <stdbool.h>
#include <stddef.h>

#include "kq/config.h"

/* Kafka's Uuid text (22 base64url characters, no padding), neither the
 * zero id nor one Kafka reserves for directories. False with the reason. */
bool directory_arg_parse(const char *text, kq_uuid *out, char *err, size_t errlen);

/* True when config->cli_directory_id is zero (not given) or agrees with
 * the directory's own; false with err naming the file and both ids. */
bool directory_arg_check(const kq_config *config, char *err, size_t errlen);

#endif
