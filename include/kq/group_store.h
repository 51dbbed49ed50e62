/* Consumer-group membership kept in the Raft log (issue 24; Kafka keeps it
 * in __consumer_offsets as GroupMetadata and ConsumerGroup* records).
 *
 * The leader's coordinator writes what changed in a group's membership as
 * records of our control type KQ_CONTROL_GROUP in one control batch (src/
 * storage/FORMAT.md "Group membership"): a record per group (its type,
 * state, generation, protocol, leader) and one per (group, member) (the
 * member's ids, timeouts, chosen protocol's metadata and assignment), each
 * small and bounded (KQ_GROUP_STORE_BODY_BYTES_MAX), tombstones for members
 * that left and for groups that are gone. Every node feeds every batch it
 * appends (and, at start and after a truncation, every batch it scans from
 * its latest snapshot on) to group_store_note_batches(): the store is the
 * latest value per key at the log end, as the transaction table is
 * (kq/txn.h). A new leader loads its coordinator from it once every group
 * record lies below its high watermark (group_store_last_offset), so that
 * it holds only committed state. Snapshots carry it as "kq.group" and
 * "kq.group-member" records (the same value bytes).
 *
 * A record's body is the group type's: the classic coordinator's is
 * defined here (group_store_classic_*); a consumer group's (KIP-848) is
 * opaque bytes its module encodes, only bounded here.
 *
 * Pure: no I/O, clock or globals; not thread-safe. Values are copied in;
 * pointers handed out stay valid until the next call that takes a
 * non-const group_store *. */
#ifndef KQ_GROUP_STORE_H
#define KQ_GROUP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/limits.h"

/* Our control record type (next to 19281-19283). */
#define KQ_CONTROL_GROUP 19284
#define GROUP_STORE_VALUE_VERSION 0

enum group_store_kind { GROUP_STORE_GROUP = 0, GROUP_STORE_MEMBER = 1 };
/* The group type a record's body belongs to (the values of group.h's
 * enum group_type: classic 0, consumer 1). */
enum { GROUP_STORE_TYPE_CLASSIC = 0, GROUP_STORE_TYPE_CONSUMER = 1 };

/* One record (key and value). */
typedef struct group_store_record {
    enum group_store_kind kind;
    const char *group_id;  /* 1..KQ_GROUP_NAME_BYTES_MAX - 1 bytes, no NUL */
    const char *member_id; /* kind MEMBER: as group_id; kind GROUP: NULL */
    int8_t type;           /* GROUP_STORE_TYPE_* */
    /* A group's tombstone removes the group and all its members; a
     * member's, that member. No body then. */
    bool tombstone;
    const uint8_t *body;   /* <= KQ_GROUP_STORE_BODY_BYTES_MAX bytes */
    size_t body_len;
} group_store_record;

/* NULL if r meets the rules above (and a classic body parses), else the
 * rule broken. */
const char *group_store_record_invalid(const group_store_record *r);
/* What r costs in a snapshot: KQ_GROUP_STORE_RECORD_FIXED_BYTES plus its
 * ids' and body's lengths. */
uint64_t group_store_record_cost(const group_store_record *r);
/* The value bytes of r (checked by the caller) appended to w. */
void group_store_write_value(kq_writer *w, const group_store_record *r);
/* Parses a whole value: NULL on success (out's strings point into scratch,
 * its body into v), else the reason. Strict: exact length, version 0, the
 * rules of group_store_record_invalid. */
typedef struct group_store_scratch {
    char group_id[KQ_GROUP_NAME_BYTES_MAX];
    char member_id[KQ_GROUP_NAME_BYTES_MAX];
} group_store_scratch;
const char *group_store_read_value(kq_slice v, group_store_record *out,
                                   group_store_scratch *scratch);

/* ---- the classic protocol's bodies */
typedef struct group_store_classic_group {
    int8_t state;           /* enum group_state: Empty..Stable (0..3) */
    int32_t generation;     /* >= 0 */
    const char *protocol_type; /* "" none */
    const char *protocol_name; /* "" none */
    const char *leader_id;     /* "" none */
    int64_t state_timestamp_ms; /* when it last became Empty (offset expiry, KIP-211) */
} group_store_classic_group;

typedef struct group_store_classic_member {
    const char *instance_id; /* NULL: dynamic */
    const char *client_id;
    const char *client_host;
    int32_t session_timeout_ms;   /* >= 0 */
    int32_t rebalance_timeout_ms; /* >= 0 */
    const uint8_t *metadata;      /* of the group's protocol, <= KQ_GROUP_STORE_METADATA_BYTES_MAX */
    size_t metadata_len;
    const uint8_t *assignment;    /* <= KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX */
    size_t assignment_len;
} group_store_classic_member;

/* Strings parsed out of a body. */
typedef struct group_store_classic_strings {
    char a[KQ_GROUP_NAME_BYTES_MAX];
    char b[KQ_GROUP_NAME_BYTES_MAX];
    char c[KQ_GROUP_NAME_BYTES_MAX];
} group_store_classic_strings;

/* Bodies: write appends (false if a rule is broken: nothing appended);
 * read parses a whole body (NULL, else the reason; strings in s, bytes
 * point into body). */
bool group_store_classic_group_write(kq_writer *w, const group_store_classic_group *g);
const char *group_store_classic_group_read(kq_slice body, group_store_classic_group *out,
                                           group_store_classic_strings *s);
bool group_store_classic_member_write(kq_writer *w, const group_store_classic_member *m);
const char *group_store_classic_member_read(kq_slice body, group_store_classic_member *out,
                                            group_store_classic_strings *s);
/* What a member's body takes, and a group's (for the coordinator's budget). */
uint64_t group_store_classic_member_body_bytes(const group_store_classic_member *m);
uint64_t group_store_classic_group_body_bytes(const group_store_classic_group *g);

/* ---- one take's control batch */
typedef struct group_store_batch {
    kq_writer values;  /* the records' values back to back */
    size_t *ends;      /* end of each value in values */
    int count;
    int cap;
    bool failed;       /* out of memory or a record refused */
} group_store_batch;

void group_store_batch_init(group_store_batch *b);
void group_store_batch_free(group_store_batch *b);
void group_store_batch_reset(group_store_batch *b);
/* Adds r (checked: group_store_record_invalid); false (and b failed) if
 * it is refused or memory runs out. */
bool group_store_batch_add(group_store_batch *b, const group_store_record *r);
/* Value bytes so far (a take stops adding groups past
 * KQ_GROUP_STORE_BATCH_BYTES_TARGET). */
size_t group_store_batch_bytes(const group_store_batch *b);
/* The control batch of b's records (base offset 0, leader epoch 0: the log
 * sets both), every record timestamped timestamp_ms; false if b is empty or
 * failed or the writer fails. */
bool group_store_batch_build(const group_store_batch *b, kq_writer *out, int64_t timestamp_ms);

/* ---- the store */
typedef struct group_store group_store;

group_store *group_store_create(void);
void group_store_destroy(group_store *s);
/* Exchanges the contents of a and b (an installed snapshot's store takes
 * the place of the one in use, which others hold a pointer to). */
void group_store_swap(group_store *a, group_store *b);
/* Forgets everything; the store is then at offset from (nothing noted). */
void group_store_clear(group_store *s);

/* Batches appended at the log end (whole v2 batches back to back, with their
 * log offsets): the records of our control batches are applied in order.
 * Returns the records applied, or -1 if a batch is not whole, offsets do
 * not ascend or memory runs out (nothing of that batch is applied then).
 * A record of ours that passed its batch's CRC but does not parse is
 * skipped (reported in *skipped when not NULL), never fatal; records that
 * do not parse skip their whole batch. */
typedef struct group_store_skipped {
    int count;
    int64_t first_offset; /* -1: none */
    const char *reason;   /* static text */
} group_store_skipped;
int group_store_note_batches(group_store *s, const uint8_t *batches, size_t len,
                             group_store_skipped *skipped);
/* The log offset of the newest record applied (-1: none since the clear
 * or the snapshot load): the store holds only committed state once the
 * high watermark is above it. */
int64_t group_store_last_offset(const group_store *s);
/* Where the store is: the offset after the last batch noted, or the
 * snapshot's end (a rebuild scan notes batches from there on). */
int64_t group_store_noted_to(const group_store *s);

/* Walk in key order (group id, then member id; bytes compared). */
int group_store_group_count(const group_store *s);
/* The gi-th group's record (kind GROUP), false past the end. A group known
 * only by member records (a hostile log) has type -1, no body and
 * tombstone set (it has no record of its own). */
bool group_store_group_at(const group_store *s, int gi, group_store_record *out);
int group_store_member_count(const group_store *s, int gi);
bool group_store_member_at(const group_store *s, int gi, int mi, group_store_record *out);
/* The index of a group (-1: none). */
int group_store_find(const group_store *s, const char *group_id);
/* Records held and their cost (group_store_record_cost summed). */
int group_store_record_count(const group_store *s);
uint64_t group_store_bytes(const group_store *s);

/* Whether the store holds r's key (a group with its own record, or the
 * member). */
bool group_store_has(const group_store *s, const group_store_record *r);
/* Loads one record of a snapshot (no tombstones; a key once): false if it
 * breaks a rule or memory runs out. group_store_restored() then says where
 * the store is (noted_to = end_offset, last_offset -1). */
bool group_store_restore(group_store *s, const group_store_record *r);
void group_store_restored(group_store *s, int64_t end_offset);

#endif
