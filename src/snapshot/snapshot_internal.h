/* Shared pieces of src/snapshot: the data record keys, the codec of their
 * values (content.c), the header and footer control batches (control.c). */
#ifndef KQ_SNAPSHOT_INTERNAL_H
#define KQ_SNAPSHOT_INTERNAL_H

#include <stdbool.h>

#include "kq/record.h"
#include "kq/snapshot_state.h"

#define SNAP_KEY_VOTERS "kq.voters"
#define SNAP_KEY_PID_MAX "kq.producer-id-max"
#define SNAP_KEY_PRODUCER "kq.producer"
#define SNAP_KEY_GROUP_OFFSET "kq.group-offset"
#define SNAP_KEY_TXN_OFFSET "kq.txn-offset"
#define SNAP_KEY_TXN "kq.txn"
#define SNAP_KEY_TXN_OPEN "kq.txn-open"
#define SNAP_KEY_TXN_ABORTED "kq.txn-aborted"
#define SNAP_KEY_GROUP "kq.group"               /* issue 24 */
#define SNAP_KEY_GROUP_MEMBER "kq.group-member"
#define SNAP_KEY_OFFSET_RUN "kq.offset-run"
#define SNAP_KEY_GROUP_OFFSET_END "kq.group-offset-end"
#define SNAP_VALUE_VERSION 0  /* the leading int16 of every value */
#define SNAP_CONTROL_VERSION 0 /* SnapshotHeaderRecord / FooterRecord Version */

enum snap_key {
    SNAP_VOTERS,
    SNAP_PID_MAX,
    SNAP_PRODUCER,
    SNAP_GROUP_OFFSET,
    SNAP_TXN_OFFSET,
    SNAP_TXN,
    SNAP_TXN_OPEN,
    SNAP_TXN_ABORTED,
    SNAP_GROUP,
    SNAP_GROUP_MEMBER,
    SNAP_OFFSET_RUN,       /* issue 24: where the trailing run of control batches starts */
    SNAP_GROUP_OFFSET_END, /* issue 24: a committed offset with its run's end */
    SNAP_UNKNOWN
};
enum snap_key snap_key_of(kq_slice key);
const char *snap_key_name(enum snap_key k);

typedef struct snap_producer {
    int64_t pid;
    int16_t epoch;
    int count;
    producer_batch_view batches[PRODUCER_STATE_BATCHES];
} snap_producer;

/* NULL if valid, else the rule broken. */
const char *snap_voters_invalid(const int32_t *ids, int count);
const char *snap_pid_max_invalid(const kq_snapshot_pid_max *p, int count);
const char *snap_producer_invalid(const snap_producer *p, int64_t end_offset);

void snap_write_voters(kq_writer *w, const kq_snapshot_meta *m);
void snap_write_pid_max(kq_writer *w, const kq_snapshot_meta *m);
void snap_write_producer(kq_writer *w, const snap_producer *p);
/* Parse a whole value; NULL on success, else the reason. */
const char *snap_read_voters(kq_slice v, kq_snapshot_meta *m);
const char *snap_read_pid_max(kq_slice v, kq_snapshot_meta *m);
const char *snap_read_producer(kq_slice v, int64_t end_offset, snap_producer *p);

/* Appends a control batch of one SnapshotHeaderRecord / FooterRecord. */
bool snap_build_header(kq_writer *out, int32_t epoch, int64_t timestamp_ms);
/* The header's batch with, when voters is not NULL, a KRaftVersionRecord
 * and (has_voters) a VotersRecord after the header (KIP-853). */
bool snap_build_header_voters(kq_writer *out, int32_t epoch, int64_t timestamp_ms,
                              const raft_voter_entry *voters);
/* The rules kq_snapshot_encode_voters states for voters. */
bool snap_voters_entry_ok(const raft_voter_entry *v);
bool snap_build_footer(kq_writer *out, int64_t offset, int32_t epoch, int64_t timestamp_ms);
/* Parse a control record's value; NULL on success, else the reason. */
const char *snap_read_header(kq_slice value, int64_t *timestamp_ms);
const char *snap_read_footer(kq_slice value);

#endif
