/* Shared checks for the per-API codec tests: encode/decode helpers, golden
 * byte comparison, every-truncation and random-garbage checks. Include after
 * <cmocka.h>. */
#ifndef KQ_TEST_CODEC_HARNESS_H
#define KQ_TEST_CODEC_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/buf.h"

typedef int (*harness_decode_fn)(kq_reader *r, int16_t v, kq_arena *a, void *out);
typedef void (*harness_encode_fn)(kq_writer *w, int16_t v, const void *in);

typedef struct harness_codec {
    harness_decode_fn decode;
    harness_encode_fn encode;
    size_t size; /* sizeof the decoded struct */
} harness_codec;

/* Wraps name_decode/name_encode with void pointers for the harness. */
#define HARNESS_CODEC(name, type)                                                       \
    static int name##_hdec(kq_reader *r, int16_t v, kq_arena *a, void *o)               \
    {                                                                                   \
        return name##_decode(r, v, a, (type *)o);                                       \
    }                                                                                   \
    static void name##_henc(kq_writer *w, int16_t v, const void *i)                     \
    {                                                                                   \
        name##_encode(w, v, (const type *)i);                                           \
    }                                                                                   \
    static const harness_codec name##_codec = {name##_hdec, name##_henc, sizeof(type)}

static inline kq_slice harness_str(const char *s)
{
    kq_slice r = {(const uint8_t *)s, (int32_t)strlen(s)};
    return r;
}

#define HARNESS_NULL ((kq_slice){NULL, -1})

static inline void harness_assert_slice_eq(kq_slice a, kq_slice b)
{
    bool an = a.ptr == NULL || a.len < 0;
    bool bn = b.ptr == NULL || b.len < 0;
    assert_int_equal(an, bn);
    if (an)
        return;
    assert_int_equal(a.len, b.len);
    if (a.len)
        assert_memory_equal(a.ptr, b.ptr, (size_t)a.len);
}

static inline void harness_assert_null(kq_slice s)
{
    assert_true(s.ptr == NULL || s.len < 0);
}

static inline void harness_assert_uuid_eq(kq_uuid a, kq_uuid b)
{
    assert_memory_equal(a.bytes, b.bytes, 16);
}

static inline void harness_assert_uuid_zero(kq_uuid a)
{
    static const uint8_t zero[16];
    assert_memory_equal(a.bytes, zero, 16);
}

/* An exactly-sized heap copy of data (freed by the caller), so ASan catches
 * any read past its end. */
static inline uint8_t *harness_heap_copy(const void *data, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    if (len)
        memcpy(copy, data, len);
    return copy;
}

/* Encodes into w (initialised here) and asserts no writer error. */
static inline void harness_encode(const harness_codec *c, int16_t v, const void *in, kq_writer *w)
{
    kq_writer_init(w, 1 << 20);
    c->encode(w, v, in);
    assert_false(w->error);
}

/* Decodes all of data (which must stay alive while out is used); asserts
 * success and that every byte was consumed. */
static inline void harness_decode_ok(const harness_codec *c, int16_t v, const uint8_t *data, size_t len,
                              kq_arena *arena, void *out)
{
    kq_reader r;
    kq_reader_init(&r, data, len);
    assert_int_equal(c->decode(&r, v, arena, out), 0);
    assert_false(r.error);
    assert_int_equal(kq_reader_remaining(&r), 0);
}

static inline void harness_dump_diff(const uint8_t *got, size_t glen, const uint8_t *want, size_t wlen)
{
    size_t n = glen < wlen ? glen : wlen;
    size_t i = 0;
    while (i < n && got[i] == want[i])
        i++;
    fprintf(stderr, "encoding differs at byte %zu (got len %zu, want len %zu)\n", i, glen, wlen);
    for (size_t j = i; j < i + 8 && j < glen; j++)
        fprintf(stderr, " got[%zu]=%02x", j, got[j]);
    fprintf(stderr, "\n");
    for (size_t j = i; j < i + 8 && j < wlen; j++)
        fprintf(stderr, " want[%zu]=%02x", j, want[j]);
    fprintf(stderr, "\n");
}

/* Asserts encode(in) == golden, then decodes golden into out. */
static inline void harness_golden(const harness_codec *c, int16_t v, const void *in,
                           const uint8_t *golden, size_t glen, kq_arena *arena, void *out)
{
    kq_writer w;
    harness_encode(c, v, in, &w);
    if (w.len != glen || memcmp(w.data, golden, glen) != 0)
        harness_dump_diff(w.data, w.len, golden, glen);
    assert_int_equal(w.len, glen);
    assert_memory_equal(w.data, golden, glen);
    kq_writer_free(&w);
    harness_decode_ok(c, v, golden, glen, arena, out);
}

/* Every strict prefix of a valid encoding must fail to decode. Each prefix is
 * copied into an exactly-sized heap block so ASan catches any over-read. */
static inline void harness_truncations(const harness_codec *c, int16_t v, const uint8_t *data,
                                size_t len)
{
    void *out = malloc(c->size);
    assert_non_null(out);
    kq_arena arena;
    kq_arena_init(&arena, 1 << 22);
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = harness_heap_copy(data, n);
        kq_reader r;
        kq_reader_init(&r, copy, n);
        int rc = c->decode(&r, v, &arena, out);
        if (rc != -1)
            fprintf(stderr, "prefix of %zu/%zu bytes decoded at v%d\n", n, len, v);
        assert_int_equal(rc, -1);
        assert_true(r.error);
        free(copy);
        kq_arena_reset(&arena);
    }
    kq_arena_free(&arena);
    free(out);
}

/* Round trip through the codec: encode(in) decodes into out, consuming all
 * bytes, and re-encoding out gives the same bytes. Returns the encoding
 * (caller frees with kq_writer_free). */
static inline void harness_round_trip(const harness_codec *c, int16_t v, const void *in, kq_arena *arena,
                               void *out, kq_writer *enc)
{
    harness_encode(c, v, in, enc);
    harness_decode_ok(c, v, enc->data, enc->len, arena, out);
    kq_writer again;
    harness_encode(c, v, out, &again);
    assert_int_equal(again.len, enc->len);
    assert_memory_equal(again.data, enc->data, enc->len);
    kq_writer_free(&again);
}

static uint64_t harness_rand_state = 0x9e3779b97f4a7c15ull;

static inline uint32_t harness_rand(void)
{
    uint64_t x = harness_rand_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    harness_rand_state = x;
    return (uint32_t)(x >> 32);
}

/* Decodes one input; when it is accepted, re-encoding must work and be a
 * fixed point (encode(decode(encode(decode(x)))) == encode(decode(x))). */
static inline void harness_decode_any(const harness_codec *c, int16_t v, const uint8_t *data, size_t len,
                               void *out, void *out2, kq_arena *arena)
{
    uint8_t *copy = harness_heap_copy(data, len);
    kq_reader r;
    kq_reader_init(&r, copy, len);
    int rc = c->decode(&r, v, arena, out);
    assert_true(rc == 0 || rc == -1);
    assert_int_equal(rc == -1, r.error);
    if (rc == 0) {
        kq_writer w1, w2;
        harness_encode(c, v, out, &w1);
        harness_decode_ok(c, v, w1.data, w1.len, arena, out2);
        harness_encode(c, v, out2, &w2);
        assert_int_equal(w1.len, w2.len);
        assert_memory_equal(w1.data, w2.data, w1.len);
        kq_writer_free(&w1);
        kq_writer_free(&w2);
    }
    free(copy);
    kq_arena_reset(arena);
}

/* Random garbage and random mutations of a valid encoding `seed` never crash
 * the decoder. */
static inline void harness_fuzz(const harness_codec *c, int16_t v, const uint8_t *seed, size_t seed_len,
                         int iterations)
{
    void *out = malloc(c->size);
    void *out2 = malloc(c->size);
    assert_non_null(out);
    assert_non_null(out2);
    kq_arena arena;
    kq_arena_init(&arena, 1 << 22);
    uint8_t buf[1024];
    for (int it = 0; it < iterations; it++) {
        size_t len = harness_rand() % 300;
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)harness_rand();
        harness_decode_any(c, v, buf, len, out, out2, &arena);

        /* mutate a few bytes of the valid encoding; also splice lengths */
        len = seed_len < sizeof buf ? seed_len : sizeof buf;
        if (len) /* an empty encoding may have no buffer */
            memcpy(buf, seed, len);
        int flips = 1 + (int)(harness_rand() % 4);
        for (int f = 0; f < flips && len; f++) {
            size_t at = harness_rand() % len;
            switch (harness_rand() % 4) {
            case 0: buf[at] = (uint8_t)harness_rand(); break;
            case 1: buf[at] = 0xff; break;
            case 2: buf[at] = 0x00; break;
            default: buf[at] ^= (uint8_t)(1u << (harness_rand() % 8)); break;
            }
        }
        if (harness_rand() % 4 == 0 && len)
            len = harness_rand() % len;
        harness_decode_any(c, v, buf, len, out, out2, &arena);
    }
    kq_arena_free(&arena);
    free(out);
    free(out2);
}

/* Unsupported versions are refused by both directions. */
static inline void harness_bad_version(const harness_codec *c, int16_t v, const void *in)
{
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    c->encode(&w, v, in);
    assert_true(w.error);
    kq_writer_free(&w);
    uint8_t zeros[64] = {0};
    void *out = malloc(c->size);
    assert_non_null(out);
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    kq_reader r;
    kq_reader_init(&r, zeros, sizeof zeros);
    assert_int_equal(c->decode(&r, v, &arena, out), -1);
    kq_arena_free(&arena);
    free(out);
}

/* Field-by-field comparison of a decoded value `got` with what was encoded,
 * `want`, at version v. HARNESS_CHECK(fn, type) wraps a typed
 * fn(const type *want, const type *got, int16_t v) as fn_any. */
typedef void (*harness_check_fn)(const void *want, const void *got, int16_t v);

#define HARNESS_CHECK(fn, type)                                            \
    static void fn##_any(const void *want, const void *got, int16_t v)     \
    {                                                                      \
        fn((const type *)want, (const type *)got, v);                      \
    }

/* harness_round_trip of in at v, then check(in, decoded, v); with truncate,
 * also every strict prefix of the encoding must fail to decode. */
static inline void harness_check_round_trip(const harness_codec *c, int16_t v, const void *in,
                                            harness_check_fn check, bool truncate)
{
    void *out = malloc(c->size);
    assert_non_null(out);
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    kq_writer enc;
    harness_round_trip(c, v, in, &arena, out, &enc);
    check(in, out, v);
    if (truncate)
        harness_truncations(c, v, enc.data, enc.len);
    kq_writer_free(&enc);
    kq_arena_free(&arena);
    free(out);
}

/* harness_golden of in at v, then check(in, decoded golden, v). */
static inline void harness_check_golden(const harness_codec *c, int16_t v, const void *in,
                                        const uint8_t *golden, size_t glen,
                                        harness_check_fn check)
{
    void *out = malloc(c->size);
    assert_non_null(out);
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    harness_golden(c, v, in, golden, glen, &arena, out);
    check(in, out, v);
    kq_arena_free(&arena);
    free(out);
}

/* An API's request and response codecs and the versions they support. */
typedef struct harness_api {
    const harness_codec *request;
    const harness_codec *response;
    int16_t min_version;
    int16_t max_version;
} harness_api;

/* The versions just outside the supported range are refused by both
 * codecs. */
static inline void harness_api_bad_versions(const harness_api *api, const void *req,
                                            const void *resp)
{
    harness_bad_version(api->request, (int16_t)(api->min_version - 1), req);
    harness_bad_version(api->request, (int16_t)(api->max_version + 1), req);
    harness_bad_version(api->response, (int16_t)(api->min_version - 1), resp);
    harness_bad_version(api->response, (int16_t)(api->max_version + 1), resp);
}

/* For every supported version, harness_fuzz both codecs seeded with the
 * encodings of req and resp. */
static inline void harness_api_garbage(const harness_api *api, const void *req,
                                       const void *resp, int iterations)
{
    for (int16_t v = api->min_version; v <= api->max_version; v++) {
        kq_writer a, b;
        harness_encode(api->request, v, req, &a);
        harness_encode(api->response, v, resp, &b);
        harness_fuzz(api->request, v, a.data, a.len, iterations);
        harness_fuzz(api->response, v, b.data, b.len, iterations);
        kq_writer_free(&a);
        kq_writer_free(&b);
    }
}

/* Topic arrays, as in the codecs: a topic struct T holds NAME, `partitions`
 * and `partition_count`; check_part compares one partition. */
typedef struct harness_topics {
    size_t topic_size, name_off, parts_off, count_off, part_size;
    harness_check_fn check_part;
} harness_topics;

#define HARNESS_TOPICS(T, NAME, CHECK_PART)                                                \
    {                                                                                      \
        sizeof(T), offsetof(T, NAME), offsetof(T, partitions), offsetof(T, partition_count), \
            sizeof(*((T *)0)->partitions), (CHECK_PART)                                    \
    }

/* Same counts, names and (per check_part) partitions. */
static inline void harness_check_topics(const harness_topics *l, const void *want,
                                        int32_t want_count, const void *got,
                                        int32_t got_count, int16_t v)
{
    assert_int_equal(got_count, want_count);
    for (int32_t i = 0; i < want_count; i++) {
        const char *a = (const char *)want + (size_t)i * l->topic_size;
        const char *d = (const char *)got + (size_t)i * l->topic_size;
        kq_slice an, dn;
        const char *ap, *dp;
        int32_t ac, dc;
        memcpy(&an, a + l->name_off, sizeof an);
        memcpy(&dn, d + l->name_off, sizeof dn);
        memcpy(&ap, a + l->parts_off, sizeof ap);
        memcpy(&dp, d + l->parts_off, sizeof dp);
        memcpy(&ac, a + l->count_off, sizeof ac);
        memcpy(&dc, d + l->count_off, sizeof dc);
        harness_assert_slice_eq(an, dn);
        assert_int_equal(dc, ac);
        for (int32_t j = 0; j < ac; j++)
            l->check_part(ap + (size_t)j * l->part_size, dp + (size_t)j * l->part_size, v);
    }
}

#endif
