/* The replicated state as a KIP-630 snapshot file (Kafka's format, read by
 * kafka-dump-log.sh): record batches v2 at offsets 0, 1, ... with every
 * PartitionLeaderEpoch the snapshot's epoch; first a control batch holding
 * one SnapshotHeaderRecord (control type 3), last a control batch holding
 * one SnapshotFooterRecord (type 4), uncompressed data batches of our own
 * records between them (keys "kq.voters", "kq.producer-id-max",
 * "kq.producer", "kq.group-offset", for transactions (issue 23)
 * "kq.txn", "kq.txn-open", "kq.txn-aborted", for group membership
 * (issue 24) "kq.group", "kq.group-member"; layouts in
 * src/storage/FORMAT.md, "Snapshot content"; files older than the group
 * offsets or the transactions have none of their records and stay valid).
 * Pure functions of their arguments (no globals): callable from any thread,
 * on distinct objects. */
#ifndef KQ_SNAPSHOT_STATE_H
#define KQ_SNAPSHOT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/group_offsets.h"
#include "kq/group_store.h"
#include "kq/limits.h"
#include "kq/producer_state.h"
#include "kq/raft.h"
#include "kq/txn.h"

enum {
    KQ_SNAPSHOT_CONTROL_HEADER = 3, /* SnapshotHeaderRecord */
    KQ_SNAPSHOT_CONTROL_FOOTER = 4, /* SnapshotFooterRecord */
};

typedef struct kq_snapshot_pid_max {
    int32_t node_prefix; /* >= 0, distinct within a snapshot */
    int64_t max_id;      /* largest producer id of that prefix in the log, >= 0 */
} kq_snapshot_pid_max;

typedef struct kq_snapshot_meta {
    raft_snapshot_id id;                 /* end offset and epoch */
    int64_t last_contained_timestamp_ms; /* the header record's */
    int32_t voter_ids[RAFT_VOTERS_MAX];  /* >= 0, distinct */
    int voter_count;                     /* 1..RAFT_VOTERS_MAX */
    kq_snapshot_pid_max pid_max[KQ_SNAPSHOT_PID_NODES_MAX];
    int pid_max_count;                   /* 0..KQ_SNAPSHOT_PID_NODES_MAX */
    /* Decode only: the header batch holds a KRaftVersion record (KIP-853;
     * files written before it, or at kraft.version 0 with static voters,
     * have none). */
    bool has_kraft_version;
} kq_snapshot_meta;

/* Appends the whole file to out: the header, the voters, the producer-id
 * maxima, then every producer of ps (NULL: none) least recently recorded
 * first, then one "kq.group-offset" per entry of
 * group_offsets_foreach_at_end(offsets) (NULL: none), records packed into batches of at most KQ_SNAPSHOT_BATCH_BYTES_MAX,
 * every record and batch timestamped last_contained_timestamp_ms, then the
 * footer. 0; -EINVAL if meta breaks a rule above or a producer could not be
 * decoded back (pid < 0, a negative sequence or offset, a batch's offsets
 * reversed or at or above meta->id.end_offset) or an offsets entry breaks
 * a rule of group_offset, id.epoch < 0 or
 * id.end_offset < 0; -ENOMEM if out fails (out is then left with its error
 * set). On an error out->len is back where it was unless out failed. */
int kq_snapshot_encode(const producer_state *ps, const group_offsets *offsets,
                       const kq_snapshot_meta *meta, kq_writer *out);
/* The same, and when voters is not NULL (KIP-853) the first control batch
 * holds after the SnapshotHeaderRecord a KRaftVersionRecord (type 5, level
 * voters->kraft_version) and, if voters->has_voters, a VotersRecord (type
 * 6), as Kafka's RecordsSnapshotWriter writes them; the data batches then
 * start at offset 2 or 3. -EINVAL if the level is not 0 or 1, or voters
 * are given at level 0 or with a count outside 1..KQ_VOTER_SET_MAX. */
int kq_snapshot_encode_voters(const producer_state *ps, const group_offsets *offsets,
                              const kq_snapshot_meta *meta, const raft_voter_entry *voters,
                              kq_writer *out);

/* The same, and after the group offsets the transaction table txns (NULL:
 * none): one "kq.txn" per entry (txn_table_foreach), one "kq.txn-open" per
 * open transaction, then "kq.txn-aborted" records of up to
 * KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD aborted transactions each, in marker
 * order. -EINVAL also if an entry breaks a rule of txn_entry or an open or
 * aborted transaction has an offset at or above meta->id.end_offset.
 * kq_snapshot_encode(_voters) are this with txns NULL. */
int kq_snapshot_encode_all(const producer_state *ps, const group_offsets *offsets,
                           const txn_table *txns, const kq_snapshot_meta *meta,
                           const raft_voter_entry *voters, kq_writer *out);

/* The same, and after the transactions the group store groups (NULL: none;
 * issue 24): for each group in key order its "kq.group" record (none for a
 * group known only by member records), then one "kq.group-member" per
 * member, each value the log record's (kq/group_store.h). -EINVAL also if
 * a record breaks a rule of group_store_record. kq_snapshot_encode_all is
 * this with groups NULL. */
int kq_snapshot_encode_groups(const producer_state *ps, const group_offsets *offsets,
                              const txn_table *txns, const group_store *groups,
                              const kq_snapshot_meta *meta, const raft_voter_entry *voters,
                              kq_writer *out);

/* Validates a whole file (data, len) and loads it. Refused (-EBADMSG, err
 * names the byte position of the batch or record and the reason): a batch
 * that is not whole, magic not 2, a bad CRC, a base offset other than the
 * next expected one (0 first), a PartitionLeaderEpoch other than
 * expect.epoch, RecordsCount not LastOffsetDelta + 1 or a record's offset
 * delta not its index; a first batch that is not a control batch with one
 * SnapshotHeaderRecord of version 0, a last one that is not a control
 * batch with one SnapshotFooterRecord of version 0, bytes after the footer,
 * any other control batch; a data record with an unknown key (a newer
 * writer's content is not silently dropped), a value that does not parse
 * exactly (version 0) or breaks the rules of kq_snapshot_meta and
 * kq_snapshot_encode, no "kq.voters" or more than one, more than one
 * "kq.producer-id-max", a producer id twice, more producers than ps
 * holds (producer_state_capacity), or the same (group, topic, partition)
 * in two "kq.group-offset" records. On success ps (NULL: validate only) is
 * cleared and holds exactly the file's producers in their order, offsets
 * (NULL: validate only) is cleared with group_offsets_clear(offsets,
 * expect.end_offset) and holds exactly the file's group offsets as
 * committed (group_offsets_restore), and meta (NULL: not returned) has
 * id = expect. On failure ps and offsets are cleared and meta is
 * unspecified. err may be NULL. -EINVAL (nothing read) if expect has a
 * negative end offset or epoch; -ENOMEM if memory runs out. */
int kq_snapshot_decode(const uint8_t *data, size_t len, raft_snapshot_id expect,
                       producer_state *ps, group_offsets *offsets, kq_snapshot_meta *meta,
                       char *err, size_t errlen);
/* The same, and the first control batch may also hold, after the header, a
 * KRaftVersionRecord and then a VotersRecord (nothing else, in that order;
 * a Voters record needs level 1; each must parse as record_parse_*). When
 * the file holds them, meta->has_kraft_version is set and voters (NULL: not
 * returned) is the entry at expect.end_offset - 1: the level and, if
 * has_voters, the set. voters is unspecified otherwise. */
int kq_snapshot_decode_voters(const uint8_t *data, size_t len, raft_snapshot_id expect,
                              producer_state *ps, group_offsets *offsets,
                              kq_snapshot_meta *meta, raft_voter_entry *voters, char *err,
                              size_t errlen);
/* The same, and the transaction records are loaded into txns (NULL:
 * validate only; a file without them gives an empty table): cleared
 * first, then txn_table_restore_entry/_open/_aborted for each (refused:
 * a value that does not parse exactly, an entry in state Dead, an id or
 * an open producer twice, an offset at or above expect.end_offset, aborted
 * transactions not in marker order), then txn_table_restored(txns,
 * expect.end_offset). On failure txns is cleared.
 * kq_snapshot_decode(_voters) are this with txns NULL. */
int kq_snapshot_decode_all(const uint8_t *data, size_t len, raft_snapshot_id expect,
                           producer_state *ps, group_offsets *offsets, txn_table *txns,
                           kq_snapshot_meta *meta, raft_voter_entry *voters, char *err,
                           size_t errlen);
/* The same, and the group store's records are loaded into groups (NULL:
 * validate only; a file without them gives an empty store): cleared first,
 * then group_store_restore for each (refused: a value that does not parse
 * exactly, a tombstone, a kind other than its key's, a key twice), then
 * group_store_restored(groups, expect.end_offset). On failure groups is
 * cleared. kq_snapshot_decode_all is this with groups NULL. */
int kq_snapshot_decode_groups(const uint8_t *data, size_t len, raft_snapshot_id expect,
                              producer_state *ps, group_offsets *offsets, txn_table *txns,
                              group_store *groups, kq_snapshot_meta *meta,
                              raft_voter_entry *voters, char *err, size_t errlen);
/* Reads only the first batch of a snapshot file (data may be a prefix of
 * it: its first KQ_SNAPSHOT_BATCH_BYTES_MAX bytes are enough), checked as
 * above: *has tells whether it holds a KRaftVersion record, and voters the
 * entry at expect.end_offset - 1. 0, -EBADMSG (err names why) or -EINVAL. */
int kq_snapshot_read_voters(const uint8_t *data, size_t len, raft_snapshot_id expect,
                            raft_voter_entry *voters, bool *has, char *err, size_t errlen);

#endif
