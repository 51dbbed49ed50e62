/* Producer ids (InitProducerId) that never repeat, whatever the clock does:
 * the node id (mod 2^22) in the top bits keeps nodes apart; within a node,
 * ids come from blocks whose end is made durable (producer-id-block) before
 * any id in the block is handed out, and a restart starts above the stored
 * floor, the largest id of ours in the log and the configured base. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_producer_ids.h"
#include "kq/log_line.h"
#include "kq/mutants.h"
#include "kq/producer_id_file.h"

exec_producer_ids *exec_producer_ids_create(void)
{
    exec_producer_ids *p = calloc(1, sizeof(*p));
    if (p)
        p->log_max = -1;
    return p;
}

void exec_producer_ids_destroy(exec_producer_ids *p)
{
    free(p);
}

void exec_producer_ids_seen(exec_producer_ids *p, int64_t producer_id)
{
    if (producer_id > p->log_max)
        p->log_max = producer_id;
}

int64_t *exec_producer_ids_log_max(exec_producer_ids *p)
{
    return &p->log_max;
}

_Static_assert(EXEC_PRODUCER_ID_BLOCK < (INT64_C(1) << EXEC_PRODUCER_ID_NODE_BITS),
               "a block fits in one node's id range");

/* Called after the producer state was rebuilt from the log (pid_log_max). */
bool exec_producer_ids_open(kq_exec *x, char *err, size_t errlen)
{
    int64_t stored = -1;
    char note[512];
    if (kq_producer_id_floor_load(x->env.fs, x->log_dir, &stored, note, sizeof(note)) != 0) {
        snprintf(err, errlen, "refusing to start: %s", note);
        return false;
    }
    int64_t next = x->cfg.producer_id_base;
    if (!exec_producer_id_is_ours(x, next))
        next = exec_producer_id_node_prefix(x);
    if (x->cfg.mutants & KQ_MUTANT_PRODUCER_ID_REUSE) {
        x->pids->next = next; /* the bug: the clock alone decides */
        x->pids->reserved_end = INT64_MAX;
        return true;
    }
    if (stored > next)
        next = stored;
    if (x->pids->log_max >= next)
        next = x->pids->log_max + 1;
    x->pids->next = next;
    x->pids->reserved_end = next; /* nothing reserved yet */
    return true;
}

bool exec_next_producer_id(kq_exec *x, int64_t *producer_id)
{
    if (x->pids->next >= x->pids->reserved_end) {
        int64_t end = x->pids->next + EXEC_PRODUCER_ID_BLOCK;
        char err[512];
        if (!exec_producer_id_is_ours(x, end - 1) ||
            kq_producer_id_floor_store(x->env.fs, x->log_dir, end, err, sizeof(err)) != 0) {
            exec_fatal(x, "cannot reserve producer ids", err);
            return false;
        }
        x->pids->reserved_end = end;
    }
    *producer_id = x->pids->next++;
    return true;
}
