/* Committed consumer-group offsets (OffsetCommit / OffsetFetch), kept in the
 * same Raft log as the data (issue 12, src/storage/FORMAT.md "Group offsets").
 *
 * An OffsetCommit is appended as one control batch (attributes bit 5, no
 * producer id) whose records all have the control key {version 0, type
 * KQ_CONTROL_OFFSET_COMMIT}: consumers skip control batches, Kafka's tools
 * list an unknown control type, so the data and the byte format that
 * Kafka's tools read are untouched. Every node feeds every batch it appends
 * (and, at start and after a truncation, every batch it scans from its
 * latest snapshot on) to group_offsets_note_batches(): its commits wait as
 * pending, by log offset. group_offsets_commit(hw) moves the pending commits
 * below the high watermark into the committed table, which is what
 * OffsetFetch answers: an offset is visible only once a majority holds it,
 * and a truncation (never below the high watermark) only drops pending
 * commits. The state at the log end (committed + pending, what a snapshot
 * taken there holds) is group_offsets_foreach_at_end().
 *
 * Pure: no I/O, clock or globals; not thread-safe. Strings are copied in;
 * pointers handed out stay valid until the next call that takes a
 * non-const group_offsets *. */
#ifndef KQ_GROUP_OFFSETS_H
#define KQ_GROUP_OFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/limits.h"

/* Our control record type (Kafka's are 0-6; a high number stays clear of
 * the ones Kafka adds). */
#define KQ_CONTROL_OFFSET_COMMIT 19281 /* 0x4B51, "KQ" */
/* An expired offset's tombstone (issue 19; Kafka writes a null value for the
 * offset's key). Its value is the commit it expires, in the same layout,
 * metadata null: applied (the key forgotten) only while the key still holds
 * that commit (offset, leader epoch and commit timestamp), so that a newer
 * commit appended before it survives. Every replica and every restart apply
 * it at the same log position. */
#define KQ_CONTROL_OFFSET_EXPIRE 19282
/* A deletion (issue 24: DeleteGroups, OffsetDelete): a tombstone of the same
 * type whose value's offset is KQ_GROUP_OFFSET_DELETED (no commit holds an
 * offset below -1). It removes its key whatever the key holds at its place
 * in the log, and drops the key's stashed transactional commits whose
 * records lie before it (Kafka's offset tombstone: a deleted group's open
 * transactions commit nothing of it; what a transaction commits after it
 * counts). src/storage/FORMAT.md "Group offsets". */
#define KQ_GROUP_OFFSET_DELETED (-2)

/* One committed offset of a group for one partition. */
typedef struct group_offset {
    const char *group_id;     /* < KQ_GROUP_NAME_BYTES_MAX bytes, not "" */
    const char *topic;        /* < KQ_TOPIC_NAME_BYTES_MAX bytes, not "" */
    int32_t partition;        /* >= 0 */
    int64_t offset;           /* committed offset (>= -1; Kafka stores what it is given) */
    int32_t leader_epoch;     /* -1: none */
    const char *metadata;     /* NULL: none; <= KQ_GROUP_OFFSET_METADATA_BYTES_MAX */
    int64_t commit_timestamp_ms;
    int64_t log_offset;       /* where its control record is in the log; -1 from a snapshot */
} group_offset;

typedef struct group_offsets group_offsets;

group_offsets *group_offsets_create(void);
void group_offsets_destroy(group_offsets *o);
/* Exchanges the contents of a and b (an installed snapshot's table takes
 * the place of the one in use, which others hold a pointer to). */
void group_offsets_swap(group_offsets *a, group_offsets *b);
/* Test only (KQ_MUTANT_ABORT_KEEPS_OFFSETS, kq/mutants.h): an ABORT marker
 * makes its producer's stashed commits visible, as a COMMIT does. The
 * setting stays with o across group_offsets_swap. */
void group_offsets_test_abort_keeps(group_offsets *o, bool on);
/* Test only (KQ_MUTANT_EXPIRY_RESURRECTS): while on, tombstones (expiries
 * and deletions) are not noted (the executor turns it on around a rebuild:
 * a restart brings deleted and expired offsets back). Stays with o across
 * group_offsets_swap. */
void group_offsets_test_skip_tombstones(group_offsets *o, bool on);
/* Forgets everything (committed and pending); committed_to becomes from. */
void group_offsets_clear(group_offsets *o, int64_t from);

/* Builds the control batch of one OffsetCommit (count records, one per
 * partition, in order), base offset 0 and leader epoch 0 (the log sets
 * both), every record timestamped timestamp_ms. Each entry's log_offset is
 * ignored. false if an entry breaks a rule of group_offset or the writer
 * fails. */
bool group_offsets_build_batch(kq_writer *out, const group_offset *entries, int count,
                               int64_t timestamp_ms);

/* The same for the tombstones of count committed entries (their metadata
 * is not written). */
bool group_offsets_build_expire_batch(kq_writer *out, const group_offset *entries, int count,
                                      int64_t timestamp_ms);
/* The same for the deletions of count keys (group id, topic and partition
 * of each entry; the rest is not written: offset KQ_GROUP_OFFSET_DELETED,
 * leader epoch -1, metadata null, commit timestamp timestamp_ms). */
bool group_offsets_build_delete_batch(kq_writer *out, const group_offset *keys, int count,
                                      int64_t timestamp_ms);

/* Batches appended at the log end (whole v2 batches back to back, with their
 * log offsets): the commits in control batches of our type wait as pending;
 * data batches are noted as where runs of control batches end (issue 24);
 * other control batches are skipped. Returns the number of commits noted,
 * or -1 if a batch is not whole or the log offsets of commits and data
 * batches do not ascend (the caller stops; nothing of the call is noted).
 *
 * Defence in depth (issue 19): a record of ours that passed its batch's
 * CRC but does not parse (its value, or the batch's records) is skipped,
 * never fatal: a client once could smuggle one in through Produce, and a
 * log holding one must stay readable. Skips are reported in *skipped when
 * it is not NULL. */
typedef struct group_offsets_skipped {
    int count;            /* records skipped by this call */
    int64_t first_offset; /* log offset of the first (-1: none) */
    int64_t last_offset;  /* log offset of the last (-1: none) */
    const char *reason;   /* why the first did not parse (static text) */
} group_offsets_skipped;
int group_offsets_note_batches_skipping(group_offsets *o, const uint8_t *batches, size_t len,
                                        group_offsets_skipped *skipped);
/* The same, not reporting the skips. */
int group_offsets_note_batches(group_offsets *o, const uint8_t *batches, size_t len);
/* The log was cut at offset: pending commits at or above it are dropped.
 * Asserts offset >= committed_to (a truncation never reaches below the
 * high watermark). */
void group_offsets_truncate(group_offsets *o, int64_t offset);
/* The high watermark is hw: pending commits below it become committed.
 * committed_to never moves back (a smaller hw does nothing). */
void group_offsets_commit(group_offsets *o, int64_t hw);
/* The log offset below which every commit is applied. */
int64_t group_offsets_committed_to(const group_offsets *o);

/* A committed offset: false when the group never committed one there. */
bool group_offsets_get(const group_offsets *o, const char *group_id, const char *topic,
                       int32_t partition, group_offset *out);
/* The same at the log end (the newest pending commit, else the committed
 * one; none after a pending tombstone that applies): what a deletion
 * decides from (its tombstone goes after everything in the log), and the
 * simulator's mutant KQ_MUTANT_OFFSETS_VISIBLE_AT_END. */
bool group_offsets_get_at_end(const group_offsets *o, const char *group_id, const char *topic,
                              int32_t partition, group_offset *out);
/* Every committed offset of a group, in topic then partition order; cb
 * returning non-zero stops the walk and is returned. */
typedef int (*group_offsets_cb)(void *ctx, const group_offset *entry);
int group_offsets_foreach_group(const group_offsets *o, const char *group_id,
                                group_offsets_cb cb, void *ctx);
/* Every key of a group that a deletion appended now must remove: those the
 * state at the log end holds and those a stashed transactional commit
 * holds, each once, in topic then partition order (only group_id, topic
 * and partition of the entry handed to cb are meaningful). cb returning
 * non-zero stops the walk and is returned. */
int group_offsets_foreach_key_at_end(const group_offsets *o, const char *group_id,
                                     group_offsets_cb cb, void *ctx);
/* Whether the group has a committed offset (ListGroups/DescribeGroups show
 * a group with offsets and no members as Empty). */
bool group_offsets_has_group(const group_offsets *o, const char *group_id);
/* Every group with committed offsets, each once (order unspecified). */
int group_offsets_foreach_group_id(const group_offsets *o,
                                   int (*cb)(void *ctx, const char *group_id), void *ctx);
/* Every committed entry (order unspecified); cb returning non-zero stops. */
int group_offsets_foreach(const group_offsets *o, group_offsets_cb cb, void *ctx);
/* Committed entries (distinct group, topic, partition). */
int group_offsets_count(const group_offsets *o);

/* The state at the log end: every committed entry overridden by the newest
 * pending commit of the same key, each key once, in (group id, topic,
 * partition) order (for a snapshot taken at the log end: equal states give
 * equal files). */
int group_offsets_foreach_at_end(const group_offsets *o, group_offsets_cb cb, void *ctx);
/* Loads one entry of a snapshot as committed (log_offset ignored). false
 * if it breaks a rule of group_offset or memory runs out. */
bool group_offsets_restore(group_offsets *o, const group_offset *entry);

/* ---- the table's size in bytes (issue 19 item 9: every admitted table fits
 * one snapshot, include/kq/limits.h "snapshots of any admitted state") */
/* What e costs in a snapshot, at most: KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES plus
 * the lengths of its group id, topic and metadata. */
uint64_t group_offsets_entry_bytes(const group_offset *e);
/* The committed entries' costs plus the pending and stashed commits' costs:
 * an upper bound of what the state at the log end costs in a snapshot. */
uint64_t group_offsets_bytes(const group_offsets *o);
/* Whether a commit of e appended now (after extra bytes of commits admitted
 * with it, not yet appended) keeps group_offsets_bytes within
 * KQ_GROUP_OFFSETS_BYTES_MAX, counting the committed entry it replaces as
 * freed. A leader that admits only such commits keeps every state at the
 * end of its log, and so every snapshot's offsets, within that budget. */
bool group_offsets_admits(const group_offsets *o, const group_offset *e, uint64_t extra);

/* ---- transactional offset commits (issue 23, KIP-98 TxnOffsetCommit;
 * src/storage/FORMAT.md "Transactions")
 * The OffsetCommit control batch with attributes control|transactional
 * (0x30) and the producer's id and epoch: its commits are stashed per
 * producer id, neither pending nor visible, until that producer's marker
 * (Kafka's control batch, attributes 0x30, same producer id, one record of
 * control type 1 COMMIT or 0 ABORT). A COMMIT at log offset M makes them
 * pending at M in stash order (committed once the high watermark passes
 * M); an ABORT drops them (held, invisible, until the high watermark
 * passes M, so that a truncation below M can stash them again). A marker
 * for a producer with nothing stashed does nothing. A truncation at X
 * drops stashed commits at or above X and stashes again the commits of
 * markers at or above X whose own records lie below X. Stashed commits
 * count in group_offsets_bytes(), each KQ_TXN_OFFSET_EXTRA_BYTES more than
 * group_offsets_entry_bytes() (include/kq/limits.h), and so do they once
 * their marker made them pending (an upper bound: a truncation may stash
 * them again), until applied or, aborted, dropped. */
/* group_offsets_build_batch's transactional form: attributes 0x30, the
 * producer id (>= 0) and epoch (>= 0), base sequence -1. false also for a
 * negative producer id or epoch. */
bool group_offsets_build_txn_batch(kq_writer *out, const group_offset *entries, int count,
                                   int64_t timestamp_ms, int64_t producer_id,
                                   int16_t producer_epoch);
/* Every stashed commit (the open transactions' commits: a snapshot taken at
 * the log end carries them), in producer id order, then stash order; cb
 * returning non-zero stops the walk and is returned. */
typedef int (*group_offsets_txn_cb)(void *ctx, int64_t producer_id, const group_offset *e);
int group_offsets_foreach_txn(const group_offsets *o, group_offsets_txn_cb cb, void *ctx);
/* Loads one stashed commit of a snapshot (after the producer's others;
 * log_offset ignored). false if producer_id < 0, e breaks a rule of
 * group_offset, the producer already has a commit noted from the log, or
 * memory runs out. */
bool group_offsets_restore_txn(group_offsets *o, int64_t producer_id, const group_offset *e);
/* Whether a stashed commit holds that key (OffsetFetch with RequireStable
 * answers UNSTABLE_OFFSET_COMMIT then, as Kafka). */
bool group_offsets_txn_pending(const group_offsets *o, const char *group_id, const char *topic,
                               int32_t partition);
/* Stashed commits. */
int group_offsets_txn_count(const group_offsets *o);
/* group_offsets_admits for a transactional commit of e: it costs
 * KQ_TXN_OFFSET_EXTRA_BYTES more and frees nothing (while stashed, the
 * committed entry of its key is in a snapshot too). */
bool group_offsets_admits_txn(const group_offsets *o, const group_offset *e, uint64_t extra);

/* ---- lag 0 (issue 24): runs of control batches
 * Consumers skip control batches (these commits among them), so a consumer
 * at any offset of a run of control batches is where it is at the run's
 * end. The table follows, from the committed log alone (every replica, and
 * a snapshot, agree): run_start, the end of the last committed data batch
 * (or where the table started), and, per key, its state. A committed
 * offset c of a key is LIVE while c >= run_start and the log up to it, from
 * where the commit was applied, holds control batches only: OffsetFetch
 * answers committed_to (the run's end) while c <= committed_to, c above
 * it. The first committed data batch after c fixes the answer for good:
 * its base (c below it), or c (c inside it). A commit applied below
 * run_start is answered itself, unless the key's previous offset p was
 * answered a (a run's end) with p <= c <= a: then a, as [p, a) held
 * control batches only. Every answer is c or the end of a run of control
 * batches starting at or before c: a consumer resuming there skips only
 * control batches. */
/* The committed offset of the key as OffsetFetch answers it: the entry,
 * its offset the answer and, when that is not the committed offset, its
 * leader epoch -1 (unknown: the consumer does not validate it). */
bool group_offsets_fetch(const group_offsets *o, const char *group_id, const char *topic,
                         int32_t partition, group_offset *out);
/* Whether an OffsetCommit of e may be answered NONE without an append: the
 * key has a committed offset c, no commit of the key is pending or stashed,
 * the metadata is the same (null and "" alike), c was committed at or after
 * fresh_from_ms (the caller keeps expiry's clock running: retention counts
 * from c's commit), and e's offset lies in [low, answer(c)], low being
 * run_start for a LIVE c within the committed log, c otherwise. Its leader
 * epoch is not compared (not kept either). */
bool group_offsets_commit_is_noop(const group_offsets *o, const group_offset *e,
                                  int64_t fresh_from_ms);
/* run_start (committed), and as it is once everything noted is committed
 * (the snapshot taken at the log end records it). */
int64_t group_offsets_run_start(const group_offsets *o);
int64_t group_offsets_run_start_at_end(const group_offsets *o);
/* group_offsets_foreach_at_end with each entry's answer once everything
 * noted is committed, when it is fixed at another offset than the entry's
 * (-1: none; the entry's offset tells the rest against the run start). */
typedef int (*group_offsets_run_cb)(void *ctx, const group_offset *entry, int64_t answer);
int group_offsets_foreach_at_end_runs(const group_offsets *o, group_offsets_run_cb cb,
                                      void *ctx);
/* A snapshot's run start, before its entries (0 <= run_start <= where the
 * table starts, no entry yet; false otherwise). Without one it is where the
 * table starts. */
bool group_offsets_restore_run_start(group_offsets *o, int64_t run_start);
/* group_offsets_restore with an answer fixed at answer (> the entry's
 * offset, at most where the table starts; -1: none). */
bool group_offsets_restore_answer(group_offsets *o, const group_offset *entry, int64_t answer);
/* Test only (KQ_MUTANT_RUN_END_UNCOMMITTED, kq/mutants.h): a run's end is
 * read at the log end, not at the high watermark. Stays with o across
 * group_offsets_swap. */
void group_offsets_test_run_end_uncommitted(group_offsets *o, bool on);

#endif
