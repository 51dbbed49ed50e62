/* Simulated on-disk log of one node: a list of whole batches, of which a
 * prefix is durable (flushed). A crash keeps only the durable prefix. Each
 * entry carries a hash chained over every batch before it, so "these two logs
 * agree on everything below offset X" is one comparison. */
#ifndef SIM_LOG_H
#define SIM_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/raft.h"

typedef struct sim_batch {
    int64_t base;
    int64_t last;
    int32_t epoch;
    bool control;
    uint8_t *data;
    size_t len;
    uint64_t chain; /* hash of this batch's bytes chained with the previous entry */
} sim_batch;

typedef struct sim_log {
    sim_batch *b;
    int n, cap;
    int durable_n; /* entries [0, durable_n) survive a crash */
} sim_log;

void sim_log_init(sim_log *l);
void sim_log_free(sim_log *l);
int64_t sim_log_end(const sim_log *l);
int64_t sim_log_durable_end(const sim_log *l);
/* End offset of the first n entries. */
int64_t sim_log_end_of(const sim_log *l, int n);
/* Index of the batch holding offset (among the first n entries), or -1. */
int sim_log_find(const sim_log *l, int n, int64_t offset);

/* Appends a blob of whole v2 batches. rewrite: set BaseOffset consecutively
 * from base_offset and PartitionLeaderEpoch to epoch first. Fails (with a
 * message in err) on a malformed blob or when the first batch does not start
 * at the log end. */
bool sim_log_append(sim_log *l, const uint8_t *data, size_t len, bool rewrite,
                    int64_t base_offset, int32_t epoch, char *err, size_t err_len);
/* Drops every batch holding an offset at or above offset; returns the number
 * of entries left. Truncation is durable at once. */
int sim_log_truncate(sim_log *l, int64_t offset);
/* A crash: only the durable prefix survives. */
void sim_log_crash(sim_log *l);

/* Copies whole batches starting with the one holding from, stopping before
 * end_offset, at most max_bytes (but always the first one). */
bool sim_log_read(const sim_log *l, int64_t from, int64_t end_offset, int32_t max_bytes,
                  kq_writer *out);
/* Epoch cache of the durable prefix; returns the entry count. */
int sim_log_epochs(const sim_log *l, raft_epoch_entry *out, int max);
/* True if both hold identical batches for every offset below offset, looking
 * only at the first na / nb entries. offset <= 0 is always true. */
bool sim_log_prefix_equal(const sim_log *a, int na, const sim_log *b, int nb, int64_t offset);

uint64_t sim_hash_bytes(uint64_t h, const uint8_t *p, size_t n);

#endif
