/* kq-load: record values and keys. A value is value_bytes long: its first 8
 * bytes are the big-endian sequence number (so values are unique), the rest
 * a fixed filler of letters. A key (key_bytes > 0) is the same sequence
 * number, big-endian, followed by filler. Fields shorter than 8 bytes hold
 * the low-order bytes of the number. */
#ifndef KL_PAYLOAD_H
#define KL_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

struct kl_payload {
    unsigned char *value;
    size_t value_bytes;
    unsigned char *key; /* NULL when key_bytes == 0 */
    size_t key_bytes;
};

/* Returns 0, or -1 when out of memory. */
int kl_payload_init(struct kl_payload *p, size_t value_bytes, size_t key_bytes);
/* Writes the sequence number into value and key (the filler stays). */
void kl_payload_set_seq(struct kl_payload *p, uint64_t seq);
/* Reads back the sequence number from a value of at least 8 bytes. */
uint64_t kl_payload_seq_of(const unsigned char *value);
void kl_payload_free(struct kl_payload *p);

#endif
