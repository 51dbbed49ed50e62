/* Shared pieces of the transaction table (include/kq/txn.h): owned
 * entries sorted by transactional id and by producer id, the partition's
 * open transactions sorted by producer id, the FIFO of completed
 * transactions whose markers are not yet below the high watermark, and the
 * aborted index in marker order. Arrays, not maps: the leader admits at
 * most KQ_TXN_IDS_MAX ids and KQ_TXN_OPEN_MAX open transactions, and the
 * aborted index only grows at its end. */
#ifndef TXN_INTERNAL_H
#define TXN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/txn.h"

/* One owned entry: its strings are heap copies it owns. */
typedef struct txn_ent {
    txn_entry e;
    uint64_t cost; /* txn_entry_bytes(&e) */
} txn_ent;

struct txn_table {
    txn_ent **by_id;  /* [id_count], strcmp order of transactional_id */
    txn_ent **by_pid; /* the same entries, (producer_id, id) order */
    int id_count;
    int id_cap;
    int ongoing;
    uint64_t entry_bytes; /* sum of the entries' costs */
    txn_open *open;       /* [open_count], producer-id order */
    int open_count;
    int open_cap;
    /* Completed transactions (first_offset, marker as last_offset) whose
     * markers are not yet below settled_hw: [done_head, done_len). */
    txn_aborted *done;
    size_t done_head;
    size_t done_len;
    size_t done_cap;
    txn_aborted *aborted; /* [aborted_count], ascending last_offset */
    size_t aborted_count;
    size_t aborted_cap;
    int64_t span_max; /* >= every aborted last_offset - first_offset */
    int64_t noted_to;
    int64_t settled_hw;
};

/* What e costs in a snapshot, at most (KQ_TXN_ENTRY_FIXED_BYTES plus its
 * strings). */
uint64_t txn_entry_bytes(const txn_entry *e);

/* txn_entries.c */
/* The index in by_id of id, or -(insertion point) - 1. */
int txn_find_id(const txn_table *t, const char *id);
/* Inserts an owned copy of e, replacing the entry of its id; false when
 * memory runs out (the table is then unchanged). */
bool txn_upsert(txn_table *t, const txn_entry *e);
/* Forgets the entry of id; false if there is none. */
bool txn_remove(txn_table *t, const char *id);
/* The marker of pid (commit or abort, epoch, max timestamp) completes
 * every entry of pid; the number completed. */
int txn_complete_entries(txn_table *t, int64_t pid, int16_t epoch, bool commit,
                         int64_t timestamp_ms);
void txn_entries_free(txn_table *t);

/* txn_partition.c */
/* The index in open of pid, or -(insertion point) - 1. */
int txn_find_open(const txn_table *t, int64_t pid);
/* Room for n more open, completed and aborted transactions without
 * allocating (so that a call's batches apply whole); false: no memory. */
bool txn_reserve(txn_table *t, size_t n);
/* A transactional data batch of pid at base: opens its transaction unless
 * one is open; whether it opened one. Needs txn_reserve. */
bool txn_open_at(txn_table *t, int64_t pid, int16_t epoch, int64_t base);
/* A marker of pid at offset: closes its open transaction (an abort goes to
 * the aborted index); whether one was open. Needs txn_reserve. */
bool txn_close_at(txn_table *t, int64_t pid, bool commit, int64_t offset);
void txn_partition_free(txn_table *t);

#endif
