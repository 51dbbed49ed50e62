/* The built-in workload part of the executor (exec_workload.c). Its state:
 * kq_exec.workload. */
#ifndef KQ_EXEC_WORKLOAD_H
#define KQ_EXEC_WORKLOAD_H

#include "exec_state.h"

/* exec_workload.c: the built-in workload (--throughput, --record-size) */
typedef struct exec_workload exec_workload;
bool exec_workload_create(kq_exec *x);
void exec_workload_destroy(kq_exec *x);
/* Starts or stops with leadership; true when appends may be due. The
 * coordinator then takes each batch the rate makes due (exec_workload_next:
 * a CLIENT_APPEND event over the part's buffer, false when none is due),
 * steps it as a client's append, and hands back the core's answer
 * (exec_workload_appended: false stops this tick's appends). */
bool exec_workload_tick(kq_exec *x);
bool exec_workload_next(kq_exec *x, raft_event *ev);
bool exec_workload_appended(kq_exec *x, const kq_request_result *res);
void exec_workload_committed(kq_exec *x, int64_t hw);
void exec_workload_report(kq_exec *x);
int64_t exec_workload_due(const kq_exec *x);

#endif
