/* The producer-id part of the executor (exec_producer_ids.c). Its state:
 * kq_exec.pids. */
#ifndef KQ_EXEC_PRODUCER_IDS_H
#define KQ_EXEC_PRODUCER_IDS_H

#include "exec_state.h"

/* The part's state (kq_exec.pids), touched only by exec_producer_ids.c. */
typedef struct exec_producer_ids {
    /* Next to hand out; [next, reserved_end) is reserved durably
     * (producer-id-block). */
    int64_t next;
    int64_t reserved_end;
    int64_t log_max; /* largest id of ours found in the log, -1 */
} exec_producer_ids;

/* NULL: out of memory. Destroy takes NULL. */
exec_producer_ids *exec_producer_ids_create(void);
void exec_producer_ids_destroy(exec_producer_ids *p);
/* An id of ours found in the log (the rebuild). */
void exec_producer_ids_seen(exec_producer_ids *p, int64_t producer_id);
/* Where the largest id of ours in the log is kept (exec_tables). */
int64_t *exec_producer_ids_log_max(exec_producer_ids *p);

bool exec_producer_ids_open(kq_exec *x, char *err, size_t errlen);
/* The next producer id, reserved durably; false: the node stopped. */
bool exec_next_producer_id(kq_exec *x, int64_t *producer_id);
bool exec_producer_id_is_ours(const kq_exec *x, int64_t producer_id);

#endif
