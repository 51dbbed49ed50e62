/* Kafka's ssl.* keys per listener, and the TLS contexts, principal rules
 * and voter identities built from them (src/config/config_ssl.c).
 *
 * A listener's value of a key is its listener.name.<name>.ssl.* form
 * (the listener name in lower case, as Kafka writes it) when set, else the
 * plain ssl.* key, else Kafka's default. Every error is one line
 * "<file>[:<line>]: <key>: <reason>", the line and key of the setting at
 * fault (no line when the key is not set at all). */
#ifndef KQ_CONFIG_SSL_H
#define KQ_CONFIG_SSL_H

#include <stdbool.h>
#include <stddef.h>

#include "kq/config.h"
#include "kq/tls.h"

/* The value listener (an index of cfg->listeners, or -1 for the plain
 * keys only) sees for key, or NULL when unset; *line (if not NULL) gets its
 * line, 0 when unset. */
const char *kq_config_ssl_value(const kq_config *cfg, int listener, enum kq_config_ssl_key key,
                                int *line);

/* The listener a peer channel connects to as a client: the first controller
 * listener, else (no controller.listener.names) the first listener. Every
 * node uses the same listener configuration, so this node's settings for it
 * are the ones its peers' listeners use. */
int kq_config_peer_listener(const kq_config *cfg);

/* Contexts for listener (whose protocol is SSL): the server side, and the
 * client side used toward peers (presenting this node's keystore). NULL
 * with the error line in err. */
kq_tls_ctx *kq_config_tls_server(const kq_config *cfg, int listener, char *err, size_t errlen);
kq_tls_ctx *kq_config_tls_client(const kq_config *cfg, int listener, char *err, size_t errlen);
/* ssl.principal.mapping.rules of listener; NULL with the error line. */
kq_tls_principal_rules *kq_config_tls_rules(const kq_config *cfg, int listener, char *err,
                                            size_t errlen);

/* The voter whose controller.quorum.voter.principals entry is principal,
 * or -1 (also for NULL). */
int32_t kq_config_voter_for_principal(const kq_config *cfg, const char *principal);

#endif
