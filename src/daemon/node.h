/* One quorum node: owns the Raft core, the log, producer state, handlers,
 * listener and peer channels, and carries out the core's actions. */
#ifndef KQ_DAEMON_NODE_H
#define KQ_DAEMON_NODE_H

#include <uv.h>

#include "kq/config.h"

typedef struct node node;

/* Opens the log and starts listening. Returns NULL with err filled. */
struct kq_cred_store;
/* creds: the SASL credential store (kq/auth.h), NULL without SASL
 * listeners; it must outlive the node. */
node *node_start(uv_loop_t *loop, const kq_config *config, const struct kq_cred_store *creds,
                 char *err, size_t errlen);
/* Begins a graceful shutdown (leader resigns with EndQuorumEpoch); the loop
 * stops once it is done or a deadline passes. */
void node_request_shutdown(node *n);
/* Closes the log after the loop stopped. */
void node_close(node *n);

#endif
