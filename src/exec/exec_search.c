/* ListOffsets by timestamp off the event loop (issue 19): the handler
 * decides a search (HANDLER_TIME_SEARCH); jobs wait here in arrival order
 * and at most EXEC_TIME_SEARCHES_RUNNING_MAX are out at once, each with a
 * storage view of the log (kq_log_search_begin) taken when it starts, run
 * by env->search_start (the daemon's thread pool, the simulator's
 * scheduled events) or at once on the loop without one. The handler then
 * answers with the results. */
#include <errno.h>
#include <stdlib.h>

#include "exec_search.h"
#include "kq/assert.h"
#include "kq/log_line.h"

struct exec_search_job {
    struct exec_search_job *next; /* in the queue, or in the list of jobs out */
    struct exec_search_job **prev_next; /* while out */
    handler_time_search search;
    kq_log_search_job *view; /* NULL until started */
};

int exec_search_job_run(struct exec_search_job *job)
{
    int rc = kq_log_search_run(job->view, handler_time_search_batch, &job->search);
    return rc < 0 ? rc : 0;
}

static void job_free(struct exec_search_job *job)
{
    kq_log_search_free(job->view);
    free(job);
}

/* Links job into the list of jobs out (so exec_destroy can free them). */
static void mark_out(kq_exec *x, struct exec_search_job *job)
{
    job->next = x->search_out;
    if (job->next)
        job->next->prev_next = &job->next;
    job->prev_next = &x->search_out;
    x->search_out = job;
    x->searches_out++;
}

static void unmark_out(kq_exec *x, struct exec_search_job *job)
{
    *job->prev_next = job->next;
    if (job->next)
        job->next->prev_next = job->prev_next;
    x->searches_out--;
}

/* Starts waiting jobs while there is room. */
static void pump(kq_exec *x)
{
    if (x->search_pumping)
        return; /* a job done inline: the loop below goes on */
    x->search_pumping = true;
    while (!x->failed && x->search_head && x->searches_out < EXEC_TIME_SEARCHES_RUNNING_MAX) {
        struct exec_search_job *job = x->search_head;
        x->search_head = job->next;
        if (!x->search_head)
            x->search_tail = NULL;
        char err[256];
        job->view = kq_log_search_begin(x->log, job->search.from, job->search.limit, err,
                                        sizeof(err));
        mark_out(x, job);
        if (!job->view) {
            log_line("node %d: ListOffsets search: %s", x->cfg.node_id, err);
            exec_search_finished(x, job, -EIO);
        } else if (!x->env.search_start) {
            exec_search_finished(x, job, exec_search_job_run(job));
        } else {
            x->env.search_start(x->env.ctx, job);
        }
    }
    x->search_pumping = false;
}

void exec_time_search(kq_exec *x, const handler_time_search *s)
{
    struct exec_search_job *job = calloc(1, sizeof(*job));
    if (!job) {
        handler_time_search_result(x->handler, s, -ENOMEM);
        return;
    }
    job->search = *s;
    if (x->search_tail)
        x->search_tail->next = job;
    else
        x->search_head = job;
    x->search_tail = job;
    pump(x);
}

bool exec_search_finished(kq_exec *x, struct exec_search_job *job, int rc)
{
    unmark_out(x, job);
    if (!x->failed)
        handler_time_search_result(x->handler, &job->search, rc);
    job_free(job);
    if (x->failed || x->search_pumping)
        return false; /* done inline: pump() goes on, and its caller settles */
    pump(x);
    return true;
}

void exec_searches_destroy(kq_exec *x)
{
    while (x->search_head) {
        struct exec_search_job *job = x->search_head;
        x->search_head = job->next;
        job_free(job);
    }
    x->search_tail = NULL;
    while (x->search_out) {
        struct exec_search_job *job = x->search_out;
        unmark_out(x, job);
        job_free(job);
    }
}
