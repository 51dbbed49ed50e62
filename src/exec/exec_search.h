/* The ListOffsets search part of the executor (exec_search.c). Its state:
 * kq_exec.search. */
#ifndef KQ_EXEC_SEARCH_H
#define KQ_EXEC_SEARCH_H

#include "exec_state.h"

/* The part's state (kq_exec.search), touched only by exec_search.c:
 * ListOffsets searches waiting in order, and out. */
typedef struct exec_searches {
    struct exec_search_job *head, *tail;
    struct exec_search_job *out; /* a list of the jobs handed out */
    int out_count;
    bool pumping; /* pump() is starting jobs */
} exec_searches;

/* NULL: out of memory. */
exec_searches *exec_searches_create(void);

/* exec_search.c: searches of the log off the loop (issue 19) */
void exec_time_search(kq_exec *x, const handler_time_search *s);
/* Frees the jobs waiting and out, then x->search (NULL: nothing). */
void exec_searches_destroy(kq_exec *x);
/* A job is done (exec_search_done, in the coordinator, or inline): the
 * handler answers, the next waiting jobs start. True when the coordinator
 * must settle (a job done off the loop). */
bool exec_search_finished(kq_exec *x, struct exec_search_job *job, int rc);

#endif
