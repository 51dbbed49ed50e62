/* The group-offsets part of the executor (exec_offsets.c): committed group
 * offsets follow the log. Its state: kq_exec.offsets. */
#ifndef KQ_EXEC_OFFSETS_H
#define KQ_EXEC_OFFSETS_H

#include "exec_state.h"

/* exec_offsets.c: committed group offsets follow the log */
void exec_offsets_note(kq_exec *x, const uint8_t *batches, size_t len);
/* Notes batches, skipping (logged, counted) unparsable records of ours;
 * < 0 only when a batch is not whole or commits do not ascend. */
int exec_offsets_note_batches(kq_exec *x, const uint8_t *batches, size_t len);
void exec_offsets_settle(kq_exec *x);

#endif
