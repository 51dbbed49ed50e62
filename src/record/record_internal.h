/* Private helpers shared by the files of the record module. */
#ifndef KQ_RECORD_INTERNAL_H
#define KQ_RECORD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Computes and stores the CRC of a complete batch of size bytes. */
void record_batch_seal_crc(uint8_t *batch, size_t size);

#endif
