/* The snapshot part's steps that touch the core, in the coordinator: a
 * durable snapshot is published (the part adds the file, the core is told,
 * retention runs: the log start may move, the core is told again, the
 * snapshots below it are forgotten); a finished snapshot job; a candidate's
 * job started. The part never steps the core: it returns what it needs.
 * Telling the core steps a SNAPSHOTS event at once, or, while an output is
 * being carried out, after it (the part's follow-up). */
#include "exec_internal.h"
#include "kq/mutants.h"

static void exec_tell_core(kq_exec *x)
{
    if (!x->raft)
        return;
    if (x->stepping) {
        exec_snapshot_tell_later(x);
        return;
    }
    raft_event ev;
    exec_snapshots_event(x, &ev);
    exec_step(x, &ev);
}

void exec_retention(kq_exec *x)
{
    if (exec_retention_advance(x))
        exec_tell_core(x);
    exec_txn_prune(x); /* aborted transactions below the log start leave */
    exec_retention_forget(x);
}

void exec_publish(kq_exec *x, raft_snapshot_id id, int64_t timestamp_ms)
{
    if (!exec_snapshot_add(x, id, timestamp_ms))
        return;
    exec_tell_core(x);
    exec_retention(x);
}

void exec_snapshot_done(kq_exec *x, struct exec_snapshot_job *job, int rc)
{
    int64_t ts;
    raft_snapshot_id id = exec_snapshot_job_id(job, &ts);
    int r = exec_snapshot_finished(x, job, rc);
    if (r > 0)
        exec_publish(x, id, ts);
    if (r >= 0)
        exec_snapshot_written(x, job);
    if (!x->failed)
        exec_settle(x);
}

/* exec_settle's snapshot step: a candidate when due, its job started once
 * covered (at once without env->snapshot_start), retention when due. */
void exec_settle_snapshots(kq_exec *x)
{
    exec_tables t = exec_tables_of(x);
    struct exec_snapshot_job *job = exec_snapshot_settle(x, &t);
    if (job) {
        int64_t ts;
        raft_snapshot_id id = exec_snapshot_job_id(job, &ts);
        if (x->cfg.mutants & KQ_MUTANT_DELETE_BEFORE_SNAPSHOT_DURABLE)
            exec_publish(x, id, ts); /* the bug: before it is durable */
        if (!x->env.snapshot_start)
            exec_snapshot_done(x, job, exec_snapshot_job_run(job));
        else
            x->env.snapshot_start(x->env.ctx, job);
    }
    if (exec_retention_due(x))
        exec_retention(x);
}
