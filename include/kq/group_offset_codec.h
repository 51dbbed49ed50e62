/* The byte layout of one committed group offset, shared by the OffsetCommit
 * control record (src/group/group_offsets_batch.c) and the snapshot record
 * "kq.group-offset" (src/snapshot): big endian, int16 version 0, string
 * group_id, string topic, int32 partition, int64 offset, int32
 * leader_epoch, nullable string metadata, int64 commit_timestamp_ms
 * (src/storage/FORMAT.md, "Group offsets"). Pure. */
#ifndef KQ_GROUP_OFFSET_CODEC_H
#define KQ_GROUP_OFFSET_CODEC_H

#include <stdbool.h>

#include "kq/buf.h"
#include "kq/group_offsets.h"
#include "kq/limits.h"

#define GROUP_OFFSET_VALUE_VERSION 0

/* A parsed value: the strings live here, NUL-terminated. */
typedef struct group_offset_value {
    char group_id[KQ_GROUP_NAME_BYTES_MAX];
    char topic[KQ_TOPIC_NAME_BYTES_MAX];
    char metadata[KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 1];
    bool metadata_null;
    group_offset entry; /* strings point into this struct; log_offset -1 */
} group_offset_value;

/* NULL if e meets the rules of group_offset, else the rule broken. */
const char *group_offset_invalid(const group_offset *e);
/* Appends the value of e (the caller has checked group_offset_invalid). */
void group_offset_write_value(kq_writer *w, const group_offset *e);
/* Parses a whole value (exact length, version 0, the rules of group_offset,
 * no NUL byte inside a string); NULL on success, else the reason. */
const char *group_offset_read_value(kq_slice v, group_offset_value *out);
/* The value of a KQ_CONTROL_OFFSET_EXPIRE record: the same rules, except
 * that the offset may also be KQ_GROUP_OFFSET_DELETED (a deletion). */
const char *group_offset_read_tombstone_value(kq_slice v, group_offset_value *out);

/* The snapshot's "kq.txn-offset" (a stashed transactional commit, issue 23;
 * src/storage/FORMAT.md "Snapshot content"): int16 version 0, int64
 * producer id (>= 0), then the fields above after their version. */
void group_offset_write_txn_value(kq_writer *w, int64_t producer_id, const group_offset *e);
const char *group_offset_read_txn_value(kq_slice v, int64_t *producer_id,
                                        group_offset_value *out);

#endif
