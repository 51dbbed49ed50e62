/* The allow-list authorizer (kq/handler.h, handler_acl): who may produce,
 * consume and describe. A denial is answered with Kafka's error by the
 * caller and logged here, naming the principal, at most once per
 * HANDLER_DENIAL_LOG_MS per operation (a client retrying in a loop must not
 * flood the log); the lines left out are counted in the next one. */
#include <string.h>

#include "handler_internal.h"
#include "kq/log_line.h"

#define ANONYMOUS "User:ANONYMOUS"

static bool listed(const char *const *list, int count, const char *principal)
{
    for (int i = 0; i < count; i++)
        if (strcmp(list[i], principal) == 0 || strcmp(list[i], "User:*") == 0)
            return true;
    return false;
}

bool handler_acl_allows(const handler_acl *acl, const char *principal, enum handler_op op)
{
    if (!acl || !acl->enabled)
        return true;
    if (!principal)
        principal = ANONYMOUS;
    if (listed(acl->super_users, acl->super_user_count, principal) ||
        listed(acl->allowed[op], acl->allowed_count[op], principal))
        return true;
    /* As Kafka's READ, WRITE and DELETE imply DESCRIBE. */
    return op == HANDLER_OP_DESCRIBE &&
           (listed(acl->allowed[HANDLER_OP_PRODUCE], acl->allowed_count[HANDLER_OP_PRODUCE],
                   principal) ||
            listed(acl->allowed[HANDLER_OP_CONSUME], acl->allowed_count[HANDLER_OP_CONSUME],
                   principal) ||
            listed(acl->allowed[HANDLER_OP_DELETE], acl->allowed_count[HANDLER_OP_DELETE],
                   principal));
}

bool handler_acl_cluster_action(const handler_acl *acl, const char *principal)
{
    if (!acl)
        return false;
    if (!principal)
        principal = ANONYMOUS;
    return listed(acl->super_users, acl->super_user_count, principal) ||
           listed(acl->allowed[HANDLER_OP_CLUSTER_ACTION],
                  acl->allowed_count[HANDLER_OP_CLUSTER_ACTION], principal);
}

static const char *op_name(enum handler_op op)
{
    switch (op) {
    case HANDLER_OP_PRODUCE: return "produce";
    case HANDLER_OP_CONSUME: return "consume";
    case HANDLER_OP_CLUSTER_ACTION: return "cluster action";
    case HANDLER_OP_DELETE: return "delete";
    default: return "describe";
    }
}

bool handler_authorized(handler *h, void *slot, enum handler_op op, const char *what)
{
    handler_conn conn;
    handler_get_conn(h, slot, &conn);
    if (handler_acl_allows(h->svc.acl, conn.principal, op))
        return true;
    int64_t now = h->svc.now_ms(h->svc.ctx);
    if (h->denials_logged_ms[op] != 0 && now - h->denials_logged_ms[op] < HANDLER_DENIAL_LOG_MS) {
        h->denials_unlogged[op]++;
        return false;
    }
    LOG_LINE_LIMITED("request from %s: %s denied to %s (may not %s)%s", h->svc.slot_peer(h->svc.ctx, slot),
             what, conn.principal ? conn.principal : ANONYMOUS, op_name(op),
             h->denials_unlogged[op] ? " (and earlier denials not logged)" : "");
    h->denials_logged_ms[op] = now;
    h->denials_unlogged[op] = 0;
    return false;
}
