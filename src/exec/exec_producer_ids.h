/* The producer-id part of the executor (exec_producer_ids.c). Its state:
 * kq_exec.pid_*. */
#ifndef KQ_EXEC_PRODUCER_IDS_H
#define KQ_EXEC_PRODUCER_IDS_H

#include "exec_state.h"

bool exec_producer_ids_open(kq_exec *x, char *err, size_t errlen);
/* The next producer id, reserved durably; false: the node stopped. */
bool exec_next_producer_id(kq_exec *x, int64_t *producer_id);
bool exec_producer_id_is_ours(const kq_exec *x, int64_t producer_id);

#endif
