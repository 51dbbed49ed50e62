/* Kafka's Uuid as text (base64url of the 16 bytes, most significant long
 * first, without padding: 22 characters), the ids Kafka reserves for log
 * directories, and Kafka's random Uuid (KIP-853 directory ids, cluster ids). */
#ifndef KQ_UUID_H
#define KQ_UUID_H

#include <stdbool.h>
#include <stddef.h>

#include "kq/buf.h" /* kq_uuid: 16 bytes, big-endian, as Kafka's Uuid */

#define KQ_UUID_TEXT_BYTES 22

/* The all-zero Uuid: Kafka's ZERO_UUID, "no id". */
bool kq_uuid_is_zero(const kq_uuid *u);
/* out gets 22 characters and a NUL (out_len >= 23). */
void kq_uuid_to_string(const kq_uuid *u, char *out, size_t out_len);
/* 0, or -EINVAL unless s is exactly Kafka's 22-character form of 16 bytes. */
int kq_uuid_from_string(const char *s, size_t len, kq_uuid *out);
/* Kafka's DirectoryId.reserved: the most significant long 0, the least < 100. */
bool kq_uuid_reserved_directory(const kq_uuid *u);
/* Kafka's Uuid.randomUuid (a version 4 UUID, never one whose text starts
 * with '-') that is also not a reserved directory id. 0 or -errno. */
int kq_uuid_random(kq_uuid *out);

#endif
