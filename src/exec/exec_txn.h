/* The transactions part of the executor (exec_txn.c): the transaction
 * table follows the log (issue 23, KIP-98). Its state: kq_exec.txn. */
#ifndef KQ_EXEC_TXN_H
#define KQ_EXEC_TXN_H

#include "exec_state.h"

/* The part's state (kq_exec.txn), touched only by exec_txn.c. */
typedef struct exec_txn {
    txn_table *table; /* the transaction table (kq/txn.h) */
    int64_t unparsable_reported_next; /* skips logged below this */
} exec_txn;

/* NULL: out of memory. Destroy takes NULL. */
exec_txn *exec_txn_create(void);
void exec_txn_destroy(exec_txn *t);
/* The table itself: the handlers hold it, the rebuild clears it, the
 * metrics read it, a snapshot install swaps its contents. */
txn_table *exec_txn_table(exec_txn *t);

/* exec_txn.c: the transaction table follows the log */
void exec_txn_note(kq_exec *x, const uint8_t *batches, size_t len);
/* Notes batches, skipping (logged, counted) unparsable records of ours;
 * < 0 only when a batch is not whole, offsets do not ascend or memory runs
 * out. */
int exec_txn_note_batches(kq_exec *x, const uint8_t *batches, size_t len);
/* Transactions whose markers are below the high watermark are stable. */
void exec_txn_settle(kq_exec *x);
/* The log start moved: aborted transactions below it leave the index. */
void exec_txn_prune(kq_exec *x);

#endif
