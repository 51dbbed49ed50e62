/* Kafka record batch v2 (magic 2): header parsing, validation, record
 * iteration (with decompression) and a small builder for uncompressed batches
 * (control batches, tests). Layout: DefaultRecordBatch. CRC-32C covers bytes
 * 21..end, so BaseOffset and PartitionLeaderEpoch can be rewritten freely. */
#ifndef KQ_RECORD_H
#define KQ_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/voter_set.h"
#include "kq/limits.h"

#define RECORD_BATCH_HEADER_BYTES 61
#define RECORD_BATCH_LOG_OVERHEAD 12 /* BaseOffset + Length */
#define RECORD_BATCH_CRC_END 21      /* the CRC covers the batch from here (Attributes) on */

#define RECORD_ATTR_COMPRESSION_MASK 0x07
#define RECORD_ATTR_TIMESTAMP_LOG_APPEND 0x08
#define RECORD_ATTR_TRANSACTIONAL 0x10
#define RECORD_ATTR_CONTROL 0x20

enum record_compression {
    RECORD_COMPRESSION_NONE = 0,
    RECORD_COMPRESSION_GZIP = 1,
    RECORD_COMPRESSION_SNAPPY = 2,
    RECORD_COMPRESSION_LZ4 = 3,
    RECORD_COMPRESSION_ZSTD = 4,
};

enum record_control_type {
    RECORD_CONTROL_ABORT = 0,
    RECORD_CONTROL_COMMIT = 1,
    RECORD_CONTROL_LEADER_CHANGE = 2,
};

typedef struct record_batch_header {
    int64_t base_offset;
    int32_t length;       /* bytes after the Length field */
    int32_t partition_leader_epoch;
    int8_t magic;
    uint32_t crc;
    int16_t attributes;
    int32_t last_offset_delta;
    int64_t base_timestamp;
    int64_t max_timestamp;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t record_count;
} record_batch_header;

enum record_status {
    RECORD_OK = 0,
    RECORD_TRUNCATED,   /* fewer bytes than the batch claims (a torn tail on disk) */
    RECORD_BAD_MAGIC,
    RECORD_BAD_LENGTH,
    RECORD_BAD_CRC,
    RECORD_BAD_RECORDS, /* records do not parse, or count mismatch */
    RECORD_BAD_COMPRESSION,
};
const char *record_status_name(enum record_status s);

/* Parses the 61-byte header at data (len bytes available). Checks magic and
 * that Length is sane; RECORD_TRUNCATED if the whole batch is not in len. */
enum record_status record_batch_parse_header(const uint8_t *data, size_t len,
                                             record_batch_header *h);
/* Header plus CRC-32C over bytes 21..end of the batch. */
enum record_status record_batch_check(const uint8_t *data, size_t len,
                                      record_batch_header *h);
static inline size_t record_batch_size(const record_batch_header *h)
{
    return (size_t)h->length + RECORD_BATCH_LOG_OVERHEAD;
}
/* BaseOffset and LastOffsetDelta come from the batch (BaseOffset outside the
 * CRC): on hostile values the sum wraps instead of overflowing, so callers
 * must check the offsets they trust (as recovery and follower appends do). */
static inline int64_t record_batch_last_offset(const record_batch_header *h)
{
    return (int64_t)((uint64_t)h->base_offset + (uint64_t)(int64_t)h->last_offset_delta);
}
static inline bool record_batch_is_control(const record_batch_header *h)
{
    return (h->attributes & RECORD_ATTR_CONTROL) != 0;
}

/* Rewrites BaseOffset and PartitionLeaderEpoch in place (CRC unaffected). */
void record_batch_set_base_offset(uint8_t *batch, int64_t base_offset);
void record_batch_set_leader_epoch(uint8_t *batch, int32_t epoch);

/* Summary of a blob of consecutive batches (as in a Produce request). */
typedef struct record_set_summary {
    int batch_count;
    int32_t offset_count; /* sum of lastOffsetDelta+1 */
    int64_t max_timestamp;
    /* Every batch counts, not only the first: a client may not slip a
     * control batch in after a data batch (issue 19). */
    uint16_t attributes_any; /* bitwise OR of every batch's attributes */
    int producer_id_batches; /* batches with a producer id (>= 0) */
} record_set_summary;

/* Validates every batch in data: whole, magic 2, CRC, and (when deep) that
 * the records parse (decompressing as needed) and match RecordsCount and
 * LastOffsetDelta. The blob must be exactly a sequence of whole batches. */
enum record_status record_set_validate(const uint8_t *data, size_t len, bool deep,
                                       record_set_summary *summary);

typedef struct record_header_kv {
    kq_slice key;
    kq_slice value;
} record_header_kv;

typedef struct record {
    int64_t offset;
    int64_t timestamp;
    kq_slice key;   /* len -1: null */
    kq_slice value; /* len -1: null */
    int header_count;
    /* Builder input: header_count entries (may be NULL when header_count is 0). */
    const record_header_kv *headers;
    /* Iterator output: the encoded headers after the count; walk them with
     * record_header_next. */
    kq_slice headers_raw;
} record;

/* Reads the next header from a reader over record.headers_raw. */
bool record_header_next(kq_reader *r, record_header_kv *kv);

/* Iterates the records of one batch, decompressing into an owned buffer
 * (bounded by RECORD_BATCH_BYTES_MAX of decompressed data). */
typedef struct record_iter {
    record_batch_header header;
    kq_reader reader;
    int32_t index;
    uint8_t *scratch; /* decompressed records; freed by record_iter_close */
    size_t scratch_len;
    enum record_status status;
} record_iter;

/* Checks the header (not the CRC: see record_batch_check) and decompresses.
 * Call record_iter_close afterwards whatever the result. */
enum record_status record_iter_open(record_iter *it, const uint8_t *batch, size_t len);
/* Returns true and fills rec for each record; false at the end or on error
 * (then it->status says which). */
bool record_iter_next(record_iter *it, record *rec);
void record_iter_close(record_iter *it);

/* Decompresses a whole compressed payload (Kafka framing for each codec:
 * gzip stream, xerial-framed or raw snappy, LZ4 frame, zstd frame) into out. */
enum record_status record_decompress(enum record_compression codec, const uint8_t *in,
                                     size_t in_len, kq_writer *out);

/* Builds one uncompressed batch into out. */
typedef struct record_batch_builder_args {
    int64_t base_offset;
    int32_t partition_leader_epoch;
    int16_t attributes;       /* e.g. RECORD_ATTR_CONTROL */
    int64_t base_timestamp;
    int64_t producer_id;      /* -1 for none */
    int16_t producer_epoch;   /* -1 for none */
    int32_t base_sequence;    /* -1 for none */
    const record *records;    /* offset field ignored; deltas are the index */
    int record_count;
} record_batch_builder_args;
bool record_batch_build(kq_writer *out, const record_batch_builder_args *args);

/* LeaderChangeMessage control batch (control type 2): key = {version 0, type 2};
 * value = flexible LeaderChangeMessage v0 {Version i16, LeaderId, Voters[],
 * GrantingVoters[], tags}. */
bool record_build_leader_change(kq_writer *out, int64_t base_offset, int32_t epoch,
                                int64_t timestamp_ms, int32_t leader_id,
                                const int32_t *voters, int voter_count,
                                const int32_t *granting, int granting_count);

/* Parses a LeaderChangeMessage value (v0, or v1 with directory ids): the
 * leader and the Voters list (GrantingVoters is checked but not returned).
 * False if malformed or if there are more than voters_max voters. */
bool record_parse_leader_change(kq_slice value, int32_t *leader_id, int32_t *voters,
                                int *voter_count, int voters_max);
/* The control type in a control record key {version i16, type i16}, or -1. */
int record_control_type(kq_slice key);

/* ---- KIP-853 control records (control_voters.c): KRaftVersionRecord
 * (control type 5) and VotersRecord (type 6), flexible v0 values as in
 * Kafka's KRaftVersionRecord.json and VotersRecord.json. */
enum { RECORD_CONTROL_KRAFT_VERSION = 5, RECORD_CONTROL_VOTERS = 6 };

/* Parses a VotersRecord value (every endpoint checked, the first kept; at
 * least one voter, none twice, at most KQ_VOTER_SET_MAX). NULL, or why it
 * is refused. */
const char *record_parse_voters(kq_slice value, kq_voter_set *set);
/* Parses a KRaftVersionRecord value; only levels 0 and 1 are known. */
const char *record_parse_kraft_version(kq_slice value, int16_t *level);
void record_write_voters_value(kq_writer *w, const kq_voter_set *set);
void record_write_kraft_version_value(kq_writer *w, int16_t level);

/* One control batch at base_offset in epoch, holding in this order: a
 * LeaderChange record (leader_id >= 0: the voters and granting ids as
 * record_build_leader_change), a KRaftVersion record (kraft_version >= 0)
 * and a Voters record (voters != NULL). Kafka's leader writes all three at
 * the start of an epoch when the voter set is to be copied into the log,
 * and a Voters record alone for a change (AddVoterHandler). */
typedef struct record_control_args {
    int64_t base_offset;
    int32_t epoch;
    int64_t timestamp_ms;
    int32_t leader_id;            /* -1: no LeaderChange */
    const int32_t *lc_voters;
    int lc_voter_count;
    const int32_t *lc_granting;
    int lc_granting_count;
    int16_t kraft_version;        /* -1: no KRaftVersion record */
    const kq_voter_set *voters;   /* NULL: no Voters record */
} record_control_args;
bool record_build_control(kq_writer *out, const record_control_args *a);

/* Calls fn for each KRaftVersion and Voters record of the control batches
 * in data (whole batches back to back; a partial batch at the end is
 * ignored), with the record's offset. Stops at and returns fn's first
 * non-zero result; RECORD_OK-like 0 when done. A control batch whose
 * records do not iterate returns -1. */
typedef int (*record_voter_fn)(void *ctx, int64_t offset, int type, kq_slice value);
int record_scan_voter_records(const uint8_t *data, size_t len, record_voter_fn fn, void *ctx);

#endif
