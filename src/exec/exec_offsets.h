/* The group-offsets part of the executor (exec_offsets.c): committed group
 * offsets follow the log. Its state: kq_exec.offsets. */
#ifndef KQ_EXEC_OFFSETS_H
#define KQ_EXEC_OFFSETS_H

#include "exec_state.h"

/* The part's state (kq_exec.offsets), touched only by exec_offsets.c. */
typedef struct exec_offsets {
    group_offsets *table; /* committed group offsets (kq/group_offsets.h) */
    int64_t unparsable_reported_next; /* skips logged below this */
} exec_offsets;

/* NULL: out of memory. Destroy takes NULL. */
/* mutants: kq/mutants.h (KQ_MUTANT_ABORT_KEEPS_OFFSETS is the table's). */
exec_offsets *exec_offsets_create(uint32_t mutants);
void exec_offsets_destroy(exec_offsets *o);
/* The table itself: the handlers hold it, the rebuild clears it, the
 * metrics read it, a snapshot install swaps its contents. */
group_offsets *exec_offsets_table(exec_offsets *o);

/* exec_offsets.c: committed group offsets follow the log */
void exec_offsets_note(kq_exec *x, const uint8_t *batches, size_t len);
/* Notes batches, skipping (logged, counted) unparsable records of ours;
 * < 0 only when a batch is not whole or commits do not ascend. */
int exec_offsets_note_batches(kq_exec *x, const uint8_t *batches, size_t len);
void exec_offsets_settle(kq_exec *x);

#endif
