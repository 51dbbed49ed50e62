/* The executor's base (exec_state.h): the clock, fail-stop, and whose
 * producer ids are whose. Every part may call these; they call nothing in
 * the executor. */
#include <stdio.h>

#include "exec_state.h"
#include "kq/log_line.h"

int64_t exec_now(kq_exec *x)
{
    return x->env.now_ms(x->env.ctx);
}

int64_t exec_now_us(kq_exec *x)
{
    return x->env.now_us ? x->env.now_us(x->env.ctx) : exec_now(x) * 1000;
}

void exec_fatal(kq_exec *x, const char *what, const char *detail)
{
    if (x->failed)
        return;
    x->failed = true;
    log_line("FATAL: node %d: %s: %s; stopping the node (never retried)", x->cfg.node_id, what,
             detail);
    x->env.fatal(x->env.ctx, what, detail);
}

int64_t exec_producer_id_node_prefix(const kq_exec *x)
{
    return (int64_t)((uint64_t)x->cfg.node_id & ((1u << 22) - 1)) << EXEC_PRODUCER_ID_NODE_BITS;
}

bool exec_producer_id_is_ours(const kq_exec *x, int64_t producer_id)
{
    return producer_id >= 0 && (producer_id >> EXEC_PRODUCER_ID_NODE_BITS) ==
                                   (exec_producer_id_node_prefix(x) >> EXEC_PRODUCER_ID_NODE_BITS);
}
