/* Value parsers shared by the config loader and its tests. Each returns 0,
 * or -1 with a reason (without file, line or key) written to why. */
#ifndef KQ_CONFIG_INTERNAL_H
#define KQ_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kq/config.h"

int kq_config_parse_int(const char *s, int64_t min, int64_t max, int64_t *out,
                        char *why, size_t whylen);
int kq_config_parse_bool(const char *s, bool *out, char *why, size_t whylen);
/* "host:port" or "[v6addr]:port"; the host may be empty. */
int kq_config_parse_hostport(const char *s, size_t n, char *host,
                             size_t hostlen, uint16_t *port, char *why,
                             size_t whylen);
/* Calls fn on each comma-separated, trimmed, non-empty element; an empty
 * element (",,") is refused. */
typedef int (*kq_config_item_fn)(const char *s, size_t n, void *ctx, char *why, size_t whylen);
int kq_config_for_each_item(const char *s, kq_config_item_fn fn, void *ctx, char *why,
                            size_t whylen);
/* listeners (NAME://host:port,...), listener.security.protocol.map
 * (NAME:PROTOCOL,...; NULL: Kafka's default, where each protocol name maps
 * to itself) and controller.listener.names (NULL: none) into cfg->listeners.
 * Only the PLAINTEXT protocol is served. */
int kq_config_parse_listener_set(const char *listeners, const char *protocol_map,
                                 const char *controller_names, kq_config *cfg, char *why,
                                 size_t whylen);
/* advertised.listeners (NAME://host:port,...), each name one of
 * cfg->listeners, after kq_config_parse_listener_set. */
int kq_config_parse_advertised(const char *advertised, kq_config *cfg, char *why,
                               size_t whylen);
/* sasl.enabled.mechanisms: a comma list of PLAIN, SCRAM-SHA-256 and
 * SCRAM-SHA-512 into bits 1 << enum kq_sasl_mech. */
int kq_config_parse_mechanisms(const char *s, uint32_t *bits, char *why, size_t whylen);
/* Listener names compare without case (listener.name.<name>. is lower case). */
bool kq_config_listener_name_is(const kq_config_listener *l, const char *s, size_t n);
/* A list of principals separated by ';' or ',' ("User:name" each). */
int kq_config_parse_principals(const char *s, kq_config_principals *out, char *why,
                               size_t whylen);
/* "1@host:port,2@host:port"; an empty string gives zero voters. */
int kq_config_parse_voters(const char *s, kq_config_endpoint *voters,
                           int *count, char *why, size_t whylen);
/* "host:port,..." (quorum.bootstrap.servers); ids are left at -1. */
int kq_config_parse_servers(const char *s, kq_config_endpoint *out,
                            int *count, char *why, size_t whylen);
/* "1,2,3" (quorum.bootstrap.voters); duplicates are refused. */
int kq_config_parse_ids(const char *s, int32_t *ids, int *count, char *why,
                        size_t whylen);

/* The checks of the ssl.* keys and controller.quorum.voter.principals
 * (config_ssl.c) and of the connection limits (config_conn.c) once the
 * whole file is read: 0, or -1 with the whole "<file>[:<line>]: <key>:
 * <reason>" line in err. Their values are read by the parse functions the
 * key table names (config_keys.h). */
int kq_config_ssl_resolve(kq_config *cfg, char *err, size_t errlen);
int kq_config_conn_resolve(const kq_config *cfg, char *err, size_t errlen);

/* Formats "<why>" into why; returns -1 (for "return kq_config_why(...)"). */
int kq_config_why(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
