/* Shared pieces of the committed-offsets table (include/kq/group_offsets.h):
 * owned entries, an open-addressing map by (group, topic, partition) that
 * never deletes (clear empties it whole), the groups with their entries
 * chained, and the pending FIFO in ascending log offsets. */
#ifndef GROUP_OFFSETS_INTERNAL_H
#define GROUP_OFFSETS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/group_offsets.h"

typedef struct go_group go_group;
typedef struct go_txn go_txn;

/* A key's state for control-batch runs (issue 24, group_offsets_run.c):
 * ABSENT (no committed offset), FIXED (OffsetFetch answers `answer`, the
 * offset itself or the end of the run of control batches it lay in, once a
 * data batch ended that run) or LIVE (the offset lies in the trailing run
 * of control batches, or above the log: OffsetFetch answers the run's end
 * while the offset is in it). offset, leader epoch and commit timestamp
 * are the key's value (what an expiry tombstone must match). */
enum { GO_RUN_ABSENT, GO_RUN_FIXED, GO_RUN_LIVE };
typedef struct go_run {
    int kind;
    int64_t offset;
    int32_t leader_epoch;
    int64_t commit_timestamp_ms;
    int64_t answer; /* FIXED: >= offset */
} go_run;

/* A run of data batches noted above the committed point: [base, end). */
typedef struct go_span {
    int64_t base, end;
} go_span;

/* One owned entry: e's strings are heap copies it owns. */
typedef struct go_entry {
    group_offset e;
    uint64_t hash;
    uint64_t cost; /* group_offsets_entry_bytes(&e) */
    bool tombstone; /* pending only: KQ_CONTROL_OFFSET_EXPIRE */
    /* Transactional (issue 23): the producer id (-1: not) and the offset of
     * the commit's own record (e.log_offset is the marker's once a marker
     * moved it to pending); aborted: pending until the high watermark
     * passes its ABORT marker, then dropped, never applied or visible.
     * cost includes KQ_TXN_OFFSET_EXTRA_BYTES until applied. */
    int64_t txn_pid;
    int64_t record_offset;
    bool aborted;
    /* Stashed (issue 24): the log offset of the deletion tombstone that
     * dropped it (KQ_GROUP_OFFSET_DELETED), -1: none. Held, invisible and
     * never applied (its marker moves it to pending as aborted), so that
     * a truncation at or below that offset can give it back. */
    int64_t killed_at;
    struct go_entry *next_in_group; /* committed entries of the same group */
    /* Control-batch runs (issue 24, group_offsets_run.c): committed, the
     * key's state (LIVE: in the members array when its offset is at most
     * committed_to, else in the heap of offsets above it, at run_index);
     * pending (not aborted), the key's state once it is applied, computed
     * when noted, and the key's other pending entries (older, newer). */
    go_run run;
    size_t run_index;
    bool key_linked;
    struct go_entry *key_prev, *key_next;
} go_entry;

typedef struct go_map {
    go_entry **slots; /* cap slots, NULL = empty; cap a power of two or 0 */
    size_t cap;
    size_t count;
} go_map;

/* One producer's stashed commits, in stash order (owned). */
struct go_txn {
    int64_t pid;
    struct go_entry **items;
    size_t len;
    size_t cap;
};

struct go_group {
    char *id;
    uint64_t hash;
    int count;
    go_entry *head;
};

typedef struct go_group_map {
    go_group **slots;
    size_t cap;
    size_t count;
} go_group_map;

struct group_offsets {
    go_map committed;
    go_group_map groups;
    go_entry **pending; /* [pending_head, pending_len): ascending log_offset */
    size_t pending_head;
    size_t pending_len;
    size_t pending_cap;
    int64_t committed_to;
    uint64_t committed_bytes; /* sum of the committed entries' costs */
    uint64_t pending_bytes;   /* sum of the pending entries' costs */
    /* Stashed transactional commits (group_offsets_txn.c): per producer id,
     * ascending ids, each in stash order. */
    go_txn *txns;
    size_t txn_count;
    size_t txn_cap;
    int txn_entries;
    uint64_t txn_bytes;  /* sum of the stashed entries' costs */
    go_map txn_keys;     /* owned: one entry per stashed key, e.offset its count */
    int64_t txn_noted_end; /* the last stash or marker offset noted, -1: none */
    /* Test only (KQ_MUTANT_ABORT_KEEPS_OFFSETS): an ABORT marker applies
     * its producer's commits as a COMMIT would. Kept by swaps. */
    bool abort_keeps;
    /* Test only (KQ_MUTANT_EXPIRY_RESURRECTS): tombstones are not noted
     * while set (the executor sets it around a rebuild). Kept by swaps. */
    bool skip_tombstones;
    /* Control-batch runs (issue 24, group_offsets_run.c): run_start is
     * where the committed log's trailing run of control batches starts
     * (the end of the last committed data batch, or where the table
     * started); members are the committed LIVE entries with offsets in
     * [run_start, committed_to], future the LIVE ones above committed_to
     * (a min-heap by offset); data the runs of data batches noted above
     * committed_to, ascending; pending_keys (not owning) each key's newest
     * pending entry that is not aborted; noted_end the end of the last
     * batch noted. */
    int64_t run_start;
    go_entry **members;
    size_t members_len, members_cap;
    go_entry **future;
    size_t future_len, future_cap;
    go_span *data;
    size_t data_head, data_len, data_cap;
    go_map pending_keys;
    int64_t noted_end;
    /* Test only (KQ_MUTANT_RUN_END_UNCOMMITTED): a run's end is read at the
     * log end, not at the high watermark. Kept by swaps. */
    bool run_end_uncommitted;
};

uint64_t go_key_hash(const char *group_id, const char *topic, int32_t partition);
uint64_t go_string_hash(const char *s);
/* A heap copy of e (strings included), or NULL when memory runs out. */
go_entry *go_entry_new(const group_offset *e);
void go_entry_free(go_entry *x);

/* The entry with e's key, or NULL. */
go_entry *go_map_find(const go_map *m, const char *group_id, const char *topic,
                      int32_t partition, uint64_t hash);
/* Adds x (its key absent); false when memory runs out. */
bool go_map_insert(go_map *m, go_entry *x);
/* Takes x (in m) out of m, not freeing it. */
void go_map_remove(go_map *m, const go_entry *x);
/* The slot holding an entry of that key, or NULL. */
go_entry **go_map_slot(const go_map *m, const char *group_id, const char *topic,
                       int32_t partition, uint64_t hash);
/* Frees the slots (and the entries when owned). */
void go_map_free(go_map *m, bool owned);

/* The group named id, or NULL; go_group_get creates it (NULL: no memory). */
go_group *go_group_find(const go_group_map *m, const char *id, uint64_t hash);
go_group *go_group_get(go_group_map *m, const char *id, uint64_t hash);
void go_group_map_free(go_group_map *m);
/* Forgets g (in m, without entries) and frees it. */
void go_group_remove(go_group_map *m, go_group *g);
/* Whether tombstone t applies to committed entry x (the same commit, or
 * any for a deletion: KQ_GROUP_OFFSET_DELETED). */
bool go_tombstone_matches(const go_entry *t, const go_entry *x);

/* Adds an owned copy of e as pending (log_offset ascending); false when
 * memory runs out or log_offset is not above the previous one. */
bool go_pending_push(group_offsets *o, const group_offset *e, bool tombstone);
/* Frees pending entries from index keep on. */
void go_pending_drop_from(group_offsets *o, size_t keep);
/* Appends the owned x to the pending FIFO (x->e.log_offset not below the
 * last one's: a marker's commits share its offset); false when memory runs
 * out (x is not freed then). */
bool go_pending_append(group_offsets *o, go_entry *x);
/* Room for n more pending entries; false when memory runs out. */
bool go_pending_reserve(group_offsets *o, size_t n);
/* The last log offset noted (pending, stash or marker), committed_to - 1
 * when none: what a new record must lie above. */
int64_t go_last_noted(const group_offsets *o);

/* Room for n more entries in m without growing it; false when memory runs out. */
bool go_map_reserve(go_map *m, size_t n);

/* ---- control-batch runs (group_offsets_run.c) */
/* A data batch [base, end) noted at the log end (base above go_last_noted);
 * false when memory runs out. */
bool go_run_note_data(group_offsets *o, int64_t base, int64_t end);
/* x (pending, not aborted, the newest) enters its key's chain and gets the
 * key's state once it is applied; false when memory runs out (nothing
 * changed). */
bool go_run_note_pending(group_offsets *o, go_entry *x);
/* Takes x (pending) out of its key's chain, if it is in one. */
void go_run_unlink_pending(group_offsets *o, go_entry *x);
/* Undoes the data batches noted at or above offset. */
void go_run_cut(group_offsets *o, int64_t offset);
/* The base of the first data batch noted above committed_to (INT64_MAX:
 * none). */
int64_t go_run_next_data(const group_offsets *o);
/* That data batch is committed (its base is below hw): the trailing run
 * of control batches ends at its base. */
void go_run_close_next(group_offsets *o, int64_t hw);
/* The committed log reaches to (committed_to moves up to it, never back). */
void go_run_advance(group_offsets *o, int64_t to);
/* Room in the run arrays for one more committed entry; false: no memory. */
bool go_run_reserve(group_offsets *o);
/* y (committed) leaves / takes its place among the members or the heap,
 * as its run.kind and offset say. */
void go_run_detach(group_offsets *o, go_entry *y);
void go_run_attach(group_offsets *o, go_entry *y);
/* The state a restored committed entry starts in (answer -1: none). */
go_run go_run_restored(const group_offsets *o, const group_offset *e, int64_t answer);
/* What OffsetFetch answers for the committed entry y. */
int64_t go_run_answer(const group_offsets *o, const go_entry *y);
/* The answer once everything noted is committed (the view at the log end)
 * for y, committed (pending false) or the newest pending commit of its key:
 * -1 when it is y's own offset or y is still in a run at the end. */
int64_t go_run_answer_at_end(const group_offsets *o, const go_entry *y, bool pending);
/* Frees the run arrays and the chains' map. */
void go_run_free(group_offsets *o);

/* ---- transactional commits (group_offsets_txn.c) */
/* Stashes a copy of e (its log_offset the record's) for producer pid;
 * false when memory runs out or the offset is not above go_last_noted. */
bool go_txn_stash(group_offsets *o, int64_t pid, const group_offset *e);
/* The producer's marker at log offset: its stash (if any: else nothing is
 * done) moves to pending at that offset (aborted: held, dropped at
 * commit). false when memory runs out or the offset is not above
 * go_last_noted (nothing done then). */
bool go_txn_marker(group_offsets *o, int64_t pid, int64_t offset, bool commit);
/* Undoes everything noted at or above offset (group_offsets_truncate's
 * body, without its check against committed_to). */
void go_txn_cut(group_offsets *o, int64_t offset);
/* Frees every stashed commit. */
void go_txn_free_all(group_offsets *o);
/* A deletion of key's key noted at log offset at: every live stashed
 * commit of that key (all lie below at) is killed at at. */
void go_txn_kill(group_offsets *o, const group_offset *key, int64_t at);

#endif
