/* The SASL connection state shared by sasl.c (the exchange and the wire)
 * and sasl_limits.c (issue 19: bounded pending handshakes, delayed failed
 * logins). Private to src/handler. */
#ifndef KQ_HANDLER_SASL_INTERNAL_H
#define KQ_HANDLER_SASL_INTERNAL_H

#include "handler_internal.h"
#include "kq/auth.h"

enum sasl_state { SASL_MECH_CHOSEN = 1, SASL_AUTHENTICATED, SASL_FAILED };

struct handler_sasl {
    enum sasl_state state;
    bool raw_tokens;          /* after SaslHandshake v0 */
    kq_sasl_session *session; /* malloc'd while SASL_MECH_CHOSEN, else NULL */
    int pending;              /* index in h->sasl_pending while SASL_MECH_CHOSEN; -1 */
    void **cell;              /* the connection's session cell (svc.session_close) */
    char principal[AUTH_PRINCIPAL_BYTES_MAX];
};

/* Ends s's exchange in state (AUTHENTICATED or FAILED): the session's keys
 * are wiped and freed, its pending slot released. */
void sasl_end_exchange(handler *h, handler_sasl *s, enum sasl_state state);

/* sasl_limits.c. Registers s (just SASL_MECH_CHOSEN) as pending for the
 * address of peer ("ip:port"), evicting another pending handshake first
 * when the address's share or the total is full (limits.h). */
void sasl_pending_add(handler *h, handler_sasl *s, const char *peer);
void sasl_pending_remove(handler *h, handler_sasl *s);
/* Holds a failed login's answer (data/len, copied; or the close, after a v0
 * handshake) for svc.failed_auth_delay_ms. false: not held (no delay, or
 * KQ_SASL_FAILED_DELAYED_MAX already wait): the caller answers at once. */
bool sasl_delay_failure(handler *h, void *slot, const uint8_t *data, size_t len, bool close);
void sasl_limits_on_tick(handler *h, int64_t now_ms);
int64_t sasl_limits_next_deadline(const handler *h);
void sasl_limits_destroy(handler *h);

#endif
