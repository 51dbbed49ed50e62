/* Idempotent producer state, as a Kafka broker keeps it per producer id: the
 * epoch and the last PRODUCER_STATE_BATCHES batches (sequence and offset
 * ranges), to fence old epochs, reject sequence gaps and answer retried
 * batches with their original offset. Bounded: the least recently recorded
 * producer is evicted when the table is full. */
#ifndef KQ_PRODUCER_STATE_H
#define KQ_PRODUCER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/kafka_errors.h"

#define PRODUCER_STATE_BATCHES 5

typedef struct producer_state producer_state;

enum producer_verdict {
    PRODUCER_APPEND,       /* append, then producer_state_record */
    PRODUCER_DUPLICATE,    /* already appended: answer success, append nothing */
    PRODUCER_OUT_OF_ORDER, /* KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER */
    PRODUCER_FENCED,       /* KAFKA_INVALID_PRODUCER_EPOCH */
};

/* max_producers 0 is treated as 1. NULL on allocation failure. */
producer_state *producer_state_create(uint32_t max_producers);
void producer_state_destroy(producer_state *ps);

/* Verdict for an incoming batch. pid < 0 (not idempotent) is always APPEND.
 * On DUPLICATE, *duplicate_first_offset (if non-NULL) is the first offset the
 * batch got when it was first appended. */
enum producer_verdict producer_state_check(const producer_state *ps, int64_t pid, int16_t epoch,
                                           int32_t first_seq, int32_t last_seq,
                                           int64_t *duplicate_first_offset);
/* Records an appended batch (pid < 0 is ignored). A different epoch than the
 * known one replaces the producer's cached batches. */
void producer_state_record(producer_state *ps, int64_t pid, int16_t epoch, int32_t first_seq,
                           int32_t last_seq, int64_t first_offset, int64_t last_offset);
void producer_state_clear(producer_state *ps);
/* Records every batch of a blob of consecutive batches (the log on startup,
 * or what a follower appended), skipping control batches, pid -1 and
 * batches without a sequence. Stops at the first batch that does not parse. */
void producer_state_record_batches(producer_state *ps, const uint8_t *data, size_t len);

/* Known producers (at most max_producers). */
uint32_t producer_state_count(const producer_state *ps);
/* The epoch and last cached batch of pid; false if unknown. */
bool producer_state_get(const producer_state *ps, int64_t pid, int16_t *epoch,
                        int32_t *last_seq, int64_t *last_offset);

/* One cached batch of a producer (its sequence and offset ranges). */
typedef struct producer_batch_view {
    int32_t first_seq;
    int32_t last_seq;
    int64_t first_offset;
    int64_t last_offset;
} producer_batch_view;

/* Capacity given at creation (after the 0 -> 1 rule). */
uint32_t producer_state_capacity(const producer_state *ps);
/* Visits every known producer, least recently recorded first, with its
 * cached batches oldest first (count 1..PRODUCER_STATE_BATCHES). A non-zero
 * return of fn stops the walk and is returned; 0 after a full walk. fn must
 * not modify ps. */
typedef int (*producer_state_visit_fn)(void *ctx, int64_t pid, int16_t epoch,
                                       const producer_batch_view *batches, int count);
int producer_state_foreach(const producer_state *ps, producer_state_visit_fn fn, void *ctx);
/* Inserts pid as the most recently recorded producer with these cached
 * batches (oldest first), evicting the least recent one if the table is
 * full: restoring what producer_state_foreach visited, in its order,
 * rebuilds the same table. 0; -EINVAL if pid < 0, count is outside
 * 1..PRODUCER_STATE_BATCHES or batches is NULL; -EEXIST if pid is known
 * (nothing changed). */
int producer_state_restore(producer_state *ps, int64_t pid, int16_t epoch,
                           const producer_batch_view *batches, int count);

/* seq + n with Kafka's wrap from INT32_MAX to 0; -1 if seq or n is negative. */
int32_t producer_sequence_add(int32_t seq, int32_t n);
/* The Produce error for a verdict (DUPLICATE and APPEND are KAFKA_NONE). */
enum kafka_error producer_verdict_error(enum producer_verdict v);

#endif
