/* Private helpers shared by the files of the record module. */
#ifndef KQ_RECORD_INTERNAL_H
#define KQ_RECORD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kq/record.h"

/* Computes and stores the CRC of a complete batch of size bytes. */
void record_batch_seal_crc(uint8_t *batch, size_t size);

/* Checks every record of a whole uncompressed batch (framing, offset deltas
 * 0..count-1, nothing left over) in one pass; what record_iter accepts.
 * The header must come from a successful record_batch_check. */
enum record_status record_validate_plain(const uint8_t *batch, const record_batch_header *h);

/* The LeaderChangeMessage v0 value (record_build_control writes it). */
void record_write_leader_change_value(kq_writer *w, int32_t leader_id, const int32_t *voters,
                                     int voter_count, const int32_t *granting,
                                     int granting_count);

#endif
