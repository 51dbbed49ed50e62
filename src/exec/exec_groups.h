/* The group-membership part of the executor (exec_groups.c, issue 24): the
 * group store (kq/group_store.h) follows the log. Its state:
 * kq_exec.groups. */
#ifndef KQ_EXEC_GROUPS_H
#define KQ_EXEC_GROUPS_H

#include "exec_state.h"

/* The part's state (kq_exec.groups), touched only by exec_groups.c. */
typedef struct exec_groups {
    group_store *store; /* the latest group and member records at the log end */
    int64_t unparsable_reported_next; /* skips logged below this */
} exec_groups;

/* NULL: out of memory. Destroy takes NULL. */
exec_groups *exec_groups_create(void);
void exec_groups_destroy(exec_groups *g);
/* The store itself: the handlers hold it, the rebuild clears it, the
 * metrics read it, a snapshot install swaps its contents. */
group_store *exec_groups_store(exec_groups *g);

/* exec_groups.c: the group store follows the log */
void exec_groups_note(kq_exec *x, const uint8_t *batches, size_t len);
/* Notes batches, skipping (logged, counted) unparsable records of ours;
 * < 0 only when a batch is not whole, offsets do not ascend or memory runs
 * out. */
int exec_groups_note_batches(kq_exec *x, const uint8_t *batches, size_t len);

#endif
