/* Transactions (KIP-98, issue 23): the transaction coordinator's state (one
 * entry per transactional id) and the replicated partition's transaction
 * state (open transactions, the last stable offset, the aborted-transaction
 * index), kept from the Raft log as the committed group offsets are
 * (kq/group_offsets.h). src/storage/FORMAT.md "Transactions" gives the
 * records' bytes.
 *
 * Every node feeds every batch it appends (and, at start and after a
 * truncation, every batch it scans from its latest snapshot on) to
 * txn_table_note_batches(). The table is the state at the log end: a
 * leader decides on it (it is the only writer of its epoch). Four kinds of
 * batch move it:
 *   - our KQ_CONTROL_TXN record (a control batch, no producer id): a
 *     transactional id's whole coordinator state, written by InitProducerId,
 *     AddPartitionsToTxn and AddOffsetsToTxn; state TXN_DEAD forgets the id
 *     (transactional.id.expiration.ms);
 *   - a transactional data batch (attributes bit 4, producer id >= 0): opens
 *     the producer's transaction on the partition at its base offset, unless
 *     one is open;
 *   - a COMMIT or ABORT marker (Kafka's control batch, control types 1 and 0,
 *     transactional bit, producer id and epoch): closes the producer's open
 *     transaction (an ABORT adds it to the aborted index) and completes the
 *     coordinator's entry of the producer id (CompleteCommit/CompleteAbort;
 *     the entry's epoch becomes the marker's if higher: a timed-out
 *     transaction is aborted with the epoch bumped, fencing the producer);
 *   - anything else is skipped.
 * A transaction whose marker lies at or above the high watermark is not
 * stable yet: txn_table_settle(hw) retires it once the marker is below.
 *
 * Pure: no I/O, clock or globals; not thread-safe. Strings are copied in;
 * pointers handed out stay valid until the next call that takes a
 * non-const txn_table *. */
#ifndef KQ_TXN_H
#define KQ_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/limits.h"

/* Our control record type for a transactional id's state (next to
 * KQ_CONTROL_OFFSET_COMMIT 19281 and KQ_CONTROL_OFFSET_EXPIRE 19282). */
#define KQ_CONTROL_TXN 19283

/* Kafka's TransactionState, with its numbering (TransactionState.java). */
enum txn_state {
    TXN_EMPTY = 0,
    TXN_ONGOING = 1,
    TXN_PREPARE_COMMIT = 2,
    TXN_PREPARE_ABORT = 3,
    TXN_COMPLETE_COMMIT = 4,
    TXN_COMPLETE_ABORT = 5,
    TXN_DEAD = 6,
    TXN_PREPARE_EPOCH_FENCE = 7,
};
/* Kafka's name ("Empty", "Ongoing", ..., "PrepareEpochFence"); "Unknown"
 * for another value. */
const char *txn_state_name(int state);
/* The state of that name (as ListTransactions filters name them), or -1. */
int txn_state_parse(const char *name, size_t len);

/* One transactional id as the coordinator knows it. */
typedef struct txn_entry {
    const char *transactional_id; /* 1..KQ_TXN_ID_BYTES_MAX-1 bytes */
    int64_t producer_id;          /* >= 0 */
    int16_t producer_epoch;       /* >= 0 */
    int32_t timeout_ms;           /* > 0 */
    int8_t state;                 /* enum txn_state */
    /* The replicated partition was added to the ongoing transaction
     * (AddPartitionsToTxn). */
    bool partition_added;
    /* Groups whose offsets the ongoing transaction commits (AddOffsetsToTxn). */
    int group_count; /* 0..KQ_TXN_GROUPS_MAX */
    const char *groups[KQ_TXN_GROUPS_MAX];
    int64_t start_timestamp_ms;  /* when the ongoing transaction began; -1 */
    int64_t update_timestamp_ms; /* the time of the last change */
} txn_entry;

/* Why an entry breaks the rules above (static text), or NULL. */
const char *txn_entry_invalid(const txn_entry *e);

typedef struct txn_table txn_table;

txn_table *txn_table_create(void);
void txn_table_destroy(txn_table *t);
/* Forgets everything. */
void txn_table_clear(txn_table *t);
/* Exchanges the contents of a and b (an installed snapshot's table takes
 * the place of the one in use, which others hold a pointer to). */
void txn_table_swap(txn_table *a, txn_table *b);

/* ---- records the leader appends (base offset and leader epoch 0: the log
 * sets both) */
/* One control batch holding one KQ_CONTROL_TXN record with e (timestamped
 * e->update_timestamp_ms). false if e breaks a rule or the writer fails. */
bool txn_build_state_batch(kq_writer *out, const txn_entry *e);
/* Kafka's transaction marker: a control batch (attributes control and
 * transactional) of producer_id/producer_epoch, base sequence -1, holding
 * one record with key {version 0, type commit ? 1 : 0} and value
 * EndTransactionMarker v0 {version 0, coordinator epoch 0}. */
bool txn_build_marker(kq_writer *out, int64_t producer_id, int16_t producer_epoch, bool commit,
                      int64_t timestamp_ms);
/* The control type (0 abort, 1 commit) and producer of a marker batch;
 * false if batch is not one. */
bool txn_parse_marker(const uint8_t *batch, size_t len, int64_t *producer_id,
                      int16_t *producer_epoch, bool *commit);

/* ---- following the log */
typedef struct txn_skipped {
    int count;            /* our records skipped by this call */
    int64_t first_offset; /* log offset of the first (-1: none) */
    const char *reason;   /* why the first did not parse (static text) */
} txn_skipped;
/* Batches appended at the log end (whole v2 batches back to back, with their
 * log offsets). Returns the number of batches that moved the table, or -1 if
 * a batch is not whole or offsets do not ascend past what was noted (nothing
 * of the call is noted). A record of ours that passed its CRC but does not
 * parse is skipped, never fatal (issue 19); skipped may be NULL. -1 also
 * when memory runs out (the caller stops: the table is then partly
 * noted). */
int txn_table_note_batches(txn_table *t, const uint8_t *batches, size_t len,
                           txn_skipped *skipped);
/* The log end after the last batch noted (-1: nothing noted since clear). */
int64_t txn_table_noted_to(const txn_table *t);
/* The high watermark is hw: transactions whose markers lie below it are
 * stable. Never moves back. */
void txn_table_settle(txn_table *t, int64_t hw);
/* The log start advanced to log_start: aborted transactions whose markers
 * lie below it are dropped from the index. */
void txn_table_prune(txn_table *t, int64_t log_start);

/* ---- the coordinator's view */
/* The entry of a transactional id; false if unknown. */
bool txn_table_get(const txn_table *t, const char *transactional_id, txn_entry *out);
/* The transactional id whose producer id is pid, or NULL. */
const char *txn_table_id_of(const txn_table *t, int64_t pid);
/* Every entry, in transactional-id order (equal tables give equal
 * snapshots); cb returning non-zero stops the walk and is returned. */
typedef int (*txn_entry_cb)(void *ctx, const txn_entry *e);
int txn_table_foreach(const txn_table *t, txn_entry_cb cb, void *ctx);
int txn_table_count(const txn_table *t);
/* Entries in state TXN_ONGOING. */
int txn_table_ongoing_count(const txn_table *t);

/* ---- the partition's view */
/* The last stable offset at high watermark hw: hw, or the first offset of
 * the earliest transaction open at the log end or whose marker lies at or
 * above hw, whichever is lower. */
int64_t txn_table_lso(const txn_table *t, int64_t hw);
/* pid's open transaction on the partition: its first offset and epoch. */
bool txn_table_open_of(const txn_table *t, int64_t pid, int64_t *first_offset,
                       int16_t *producer_epoch);
/* Open transactions on the partition. */
int txn_table_open_count(const txn_table *t);

typedef struct txn_aborted {
    int64_t producer_id;
    int64_t first_offset; /* its first data batch */
    int64_t last_offset;  /* its ABORT marker */
} txn_aborted;
/* The aborted transactions a read of [from, upper) needs (Fetch's
 * AbortedTransactions): those with last_offset >= from and first_offset <
 * upper, in first_offset order, at most max into out. Returns how many
 * there are in all (more than max: out holds the first max). */
int txn_table_aborted(const txn_table *t, int64_t from, int64_t upper, txn_aborted *out,
                      int max);
/* Entries in the aborted index (at most KQ_TXN_ABORTED_MAX are admitted). */
int txn_table_aborted_count(const txn_table *t);

/* ---- snapshots (src/snapshot: "kq.txn", "kq.txn-open", "kq.txn-aborted") */
typedef struct txn_open {
    int64_t producer_id;
    int16_t producer_epoch;
    int64_t first_offset;
} txn_open;
typedef int (*txn_open_cb)(void *ctx, const txn_open *o);
/* Open transactions in producer-id order. */
int txn_table_foreach_open(const txn_table *t, txn_open_cb cb, void *ctx);
typedef int (*txn_aborted_cb)(void *ctx, const txn_aborted *a);
/* The aborted index in last_offset order. */
int txn_table_foreach_aborted(const txn_table *t, txn_aborted_cb cb, void *ctx);
/* Loading a snapshot ending at end_offset into a cleared table: entries,
 * open transactions and aborted ones, each in the order above. false if
 * one breaks a rule (an entry: txn_entry_invalid; an id or producer twice;
 * offsets negative or at or above end_offset, or aborted ones out of
 * order) or memory runs out. txn_table_noted_to becomes end_offset. */
bool txn_table_restore_entry(txn_table *t, const txn_entry *e);
bool txn_table_restore_open(txn_table *t, const txn_open *o, int64_t end_offset);
bool txn_table_restore_aborted(txn_table *t, const txn_aborted *a, int64_t end_offset);
void txn_table_restored(txn_table *t, int64_t end_offset);

/* The value layouts of the snapshot records (shared with the log's
 * KQ_CONTROL_TXN record, whose value is the "kq.txn" one). */
void txn_write_entry_value(kq_writer *w, const txn_entry *e);
/* Checks a whole value (exact length, version 0, the rules of txn_entry,
 * no NUL inside a string) and parses it into out; NULL or why it is
 * refused. The value's strings are not NUL-terminated, so out's strings
 * are NULL here: txn_read_entry_value_copy gives them. */
const char *txn_read_entry_value(kq_slice value, txn_entry *out);
/* A parsed value whose strings live in it, NUL-terminated. */
typedef struct txn_entry_value {
    char transactional_id[KQ_TXN_ID_BYTES_MAX];
    char groups[KQ_TXN_GROUPS_MAX][KQ_GROUP_NAME_BYTES_MAX];
    txn_entry entry; /* strings point into this struct */
} txn_entry_value;
/* The same checks as txn_read_entry_value, the strings copied into out. */
const char *txn_read_entry_value_copy(kq_slice value, txn_entry_value *out);
void txn_write_open_value(kq_writer *w, const txn_open *o);
const char *txn_read_open_value(kq_slice value, txn_open *out);
/* Up to KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD entries per record. */
void txn_write_aborted_value(kq_writer *w, const txn_aborted *a, int count);
/* Calls cb for each entry of the value; NULL or why it is refused (cb's
 * non-zero return refuses with "refused by the loader"). */
const char *txn_read_aborted_value(kq_slice value, txn_aborted_cb cb, void *ctx);

/* ---- bytes (the snapshot bound, include/kq/limits.h) */
/* An upper bound of what the table costs in a snapshot. */
uint64_t txn_table_bytes(const txn_table *t);

#endif
