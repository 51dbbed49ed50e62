/* The built-in workload part of the executor (exec_workload.c). Its state:
 * kq_exec.workload. */
#ifndef KQ_EXEC_WORKLOAD_H
#define KQ_EXEC_WORKLOAD_H

#include "exec_state.h"

/* exec_workload.c: the built-in workload (--throughput, --record-size) */
typedef struct exec_workload exec_workload;
bool exec_workload_create(kq_exec *x);
void exec_workload_destroy(kq_exec *x);
void exec_workload_tick(kq_exec *x);
void exec_workload_committed(kq_exec *x, int64_t hw);
void exec_workload_report(kq_exec *x);
int64_t exec_workload_due(const kq_exec *x);

#endif
