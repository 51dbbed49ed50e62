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

exec_searches *exec_searches_create(void)
{
    return calloc(1, sizeof(exec_searches));
}

static void job_free(struct exec_search_job *job)
{
    kq_log_search_free(job->view);
    free(job);
}

/* Links job into the list of jobs out (so exec_destroy can free them). */
static void mark_out(kq_exec *x, struct exec_search_job *job)
{
    job->next = x->search->out;
    if (job->next)
        job->next->prev_next = &job->next;
    job->prev_next = &x->search->out;
    x->search->out = job;
    x->search->out_count++;
}

static void unmark_out(kq_exec *x, struct exec_search_job *job)
{
    *job->prev_next = job->next;
    if (job->next)
        job->next->prev_next = job->prev_next;
    x->search->out_count--;
}

/* Starts waiting jobs while there is room. */
static void pump(kq_exec *x)
{
    if (x->search->pumping)
        return; /* a job done inline: the loop below goes on */
    x->search->pumping = true;
    while (!x->failed && x->search->head && x->search->out_count < EXEC_TIME_SEARCHES_RUNNING_MAX) {
        struct exec_search_job *job = x->search->head;
        x->search->head = job->next;
        if (!x->search->head)
            x->search->tail = NULL;
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
    x->search->pumping = false;
}

void exec_time_search(kq_exec *x, const handler_time_search *s)
{
    struct exec_search_job *job = calloc(1, sizeof(*job));
    if (!job) {
        handler_time_search_result(x->handler, s, -ENOMEM);
        return;
    }
    job->search = *s;
    if (x->search->tail)
        x->search->tail->next = job;
    else
        x->search->head = job;
    x->search->tail = job;
    pump(x);
}

bool exec_search_finished(kq_exec *x, struct exec_search_job *job, int rc)
{
    unmark_out(x, job);
    if (!x->failed)
        handler_time_search_result(x->handler, &job->search, rc);
    job_free(job);
    if (x->failed || x->search->pumping)
        return false; /* done inline: pump() goes on, and its caller settles */
    pump(x);
    return true;
}

void exec_searches_destroy(kq_exec *x)
{
    if (!x->search)
        return;
    while (x->search->head) {
        struct exec_search_job *job = x->search->head;
        x->search->head = job->next;
        job_free(job);
    }
    x->search->tail = NULL;
    while (x->search->out) {
        struct exec_search_job *job = x->search->out;
        unmark_out(x, job);
        job_free(job);
    }
    free(x->search);
    x->search = NULL;
}
