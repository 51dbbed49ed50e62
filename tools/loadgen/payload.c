/* kq-load: record values and keys derived from a sequence number. */
#include "payload.h"

#include <stdlib.h>

static void fill_letters(unsigned char *buf, size_t len_bytes, uint32_t seed)
{
    uint32_t x = seed ? seed : 1u;
    for (size_t i = 0; i < len_bytes; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (unsigned char)('A' + x % 26u);
    }
}

static void put_seq(unsigned char *buf, size_t len_bytes, uint64_t seq)
{
    size_t n = len_bytes < 8 ? len_bytes : 8;
    for (size_t i = 0; i < n; i++)
        buf[n - 1 - i] = (unsigned char)(seq >> (8 * i));
}

int kl_payload_init(struct kl_payload *p, size_t value_bytes, size_t key_bytes)
{
    p->value_bytes = value_bytes;
    p->key_bytes = key_bytes;
    p->value = malloc(value_bytes ? value_bytes : 1);
    p->key = key_bytes ? malloc(key_bytes) : NULL;
    if (!p->value || (key_bytes && !p->key)) {
        kl_payload_free(p);
        return -1;
    }
    fill_letters(p->value, value_bytes, 0x9e3779b9u);
    if (p->key)
        fill_letters(p->key, key_bytes, 0x85ebca6bu);
    return 0;
}

void kl_payload_set_seq(struct kl_payload *p, uint64_t seq)
{
    put_seq(p->value, p->value_bytes, seq);
    if (p->key)
        put_seq(p->key, p->key_bytes, seq);
}

uint64_t kl_payload_seq_of(const unsigned char *value)
{
    uint64_t seq = 0;
    for (int i = 0; i < 8; i++)
        seq = (seq << 8) | value[i];
    return seq;
}

void kl_payload_free(struct kl_payload *p)
{
    free(p->value);
    free(p->key);
    p->value = NULL;
    p->key = NULL;
}
