/* Helpers that fill a raft_output. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kq/assert.h"
#include "raft_internal.h"

raft_action *raft_out_push(raft_output *out, enum raft_action_type type)
{
    /* Optional work checks raft_out_has_room first and keeps
     * RAFT_ACTIONS_RESERVE free for what must not be dropped (quorum state,
     * answers): running out here is a bug, never a silent skip. */
    KQ_ASSERT(out->action_count < RAFT_ACTIONS_MAX);
    raft_action *a = &out->actions[out->action_count++];
    memset(a, 0, sizeof(*a));
    a->type = type;
    return a;
}

bool raft_out_has_room(raft *r, const raft_output *out)
{
    if (RAFT_ACTIONS_MAX - out->action_count > RAFT_ACTIONS_RESERVE)
        return true;
    r->action_overflow = true;
    return false;
}

void raft_out_send(raft_output *out, const raft_msg *msg)
{
    raft_action *a = raft_out_push(out, RAFT_ACTION_SEND);
    if (a)
        a->msg = *msg;
}

void raft_out_reason(raft_output *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
    va_end(ap);
}

void raft_wake(raft_output *out, int64_t at_ms)
{
    if (at_ms >= 0 && (out->wake_at_ms < 0 || at_ms < out->wake_at_ms))
        out->wake_at_ms = at_ms;
}
