/* Typed-macro checks used by the client-API codec tests (truncation, garbage,
 * encode/decode), built on codec_harness.h. Include after <cmocka.h>. */
#ifndef CLIENT_API_TEST_UTIL_H
#define CLIENT_API_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "codec_harness.h"
#include "kq/buf.h"

#define TEST_ARENA_MAX (4u << 20)
#define TEST_WRITER_MAX (4u << 20)

static inline void assert_slice_equal(kq_slice a, kq_slice b)
{
    harness_assert_slice_eq(a, b);
}

static inline kq_slice test_slice(const char *s)
{
    return kq_slice_cstr(s);
}

static inline uint32_t test_rand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* Every proper prefix of a valid encoding must fail cleanly. The prefix is
 * copied into an exactly-sized heap block so ASan catches any over-read. */
#define CHECK_TRUNCATIONS(decode_fn, type, version, data, len)                   \
    do {                                                                         \
        for (size_t k_ = 0; k_ < (len); k_++) {                                  \
            uint8_t *copy_ = harness_heap_copy((data), k_);                      \
            kq_reader r_;                                                        \
            kq_reader_init(&r_, copy_, k_);                                      \
            kq_arena a_;                                                         \
            kq_arena_init(&a_, TEST_ARENA_MAX);                                  \
            type out_;                                                           \
            assert_int_equal(decode_fn(&r_, (version), &a_, &out_), -1);         \
            kq_arena_free(&a_);                                                  \
            free(copy_);                                                         \
        }                                                                        \
    } while (0)

/* Random buffers and random mutations of a valid encoding must never crash;
 * whatever decodes successfully must re-encode into something that decodes. */
#define CHECK_GARBAGE(decode_fn, encode_fn, type, version, valid, vlen, seed)    \
    do {                                                                         \
        uint32_t st_ = (seed);                                                   \
        for (int it_ = 0; it_ < 3000; it_++) {                                   \
            size_t n_;                                                           \
            uint8_t *buf_;                                                       \
            if (it_ % 2 == 0 || (vlen) == 0) {                                   \
                n_ = test_rand(&st_) % 200;                                      \
                buf_ = malloc(n_ ? n_ : 1);                                      \
                assert_non_null(buf_);                                           \
                for (size_t i_ = 0; i_ < n_; i_++)                               \
                    buf_[i_] = (uint8_t)test_rand(&st_);                         \
            } else {                                                             \
                n_ = (vlen);                                                     \
                buf_ = harness_heap_copy((valid), n_);                           \
                int flips_ = 1 + (int)(test_rand(&st_) % 4);                     \
                for (int f_ = 0; f_ < flips_; f_++) {                            \
                    size_t at_ = test_rand(&st_) % n_;                           \
                    uint32_t kind_ = test_rand(&st_) % 3;                        \
                    buf_[at_] = kind_ == 0 ? 0xFF : kind_ == 1 ? 0x00            \
                                                  : (uint8_t)test_rand(&st_);     \
                }                                                                \
            }                                                                    \
            kq_reader r_;                                                        \
            kq_reader_init(&r_, buf_, n_);                                       \
            kq_arena a_;                                                         \
            kq_arena_init(&a_, TEST_ARENA_MAX);                                  \
            type out_;                                                           \
            if (decode_fn(&r_, (version), &a_, &out_) == 0) {                    \
                kq_writer w_;                                                    \
                kq_writer_init(&w_, TEST_WRITER_MAX);                            \
                encode_fn(&w_, (version), &out_);                                \
                assert_false(w_.error);                                          \
                kq_reader r2_;                                                   \
                kq_reader_init(&r2_, w_.data, w_.len);                           \
                type out2_;                                                      \
                assert_int_equal(decode_fn(&r2_, (version), &a_, &out2_), 0);    \
                assert_int_equal(kq_reader_remaining(&r2_), 0);                  \
                kq_writer_free(&w_);                                             \
            }                                                                    \
            kq_arena_free(&a_);                                                  \
            free(buf_);                                                          \
        }                                                                        \
    } while (0)

/* Encodes, checks the writer, and decodes into *out using arena. Returns the
 * writer (caller frees) so golden tests can compare bytes. */
#define ENCODE_DECODE(encode_fn, decode_fn, version, in, out, arena, w)         \
    do {                                                                         \
        kq_writer_init(&(w), TEST_WRITER_MAX);                                   \
        encode_fn(&(w), (version), (in));                                        \
        assert_false((w).error);                                                 \
        kq_reader rr_;                                                           \
        kq_reader_init(&rr_, (w).data, (w).len);                                 \
        assert_int_equal(decode_fn(&rr_, (version), (arena), (out)), 0);         \
        assert_int_equal(kq_reader_remaining(&rr_), 0);                          \
    } while (0)

/* For a codec `name` (its type; functions name_encode, name_decode):
 * ENCODE_DECODE of *in, then compare_fn(&decoded, &expected), then
 * CHECK_TRUNCATIONS and CHECK_GARBAGE seeded with the encoding. `expected` is
 * evaluated after decoding, so it may rebuild sample storage *in points to. */
#define CHECK_ROUND_TRIP(name, version, in, expected, compare_fn, seed)                    \
    do {                                                                                   \
        kq_arena ca_;                                                                      \
        kq_arena_init(&ca_, TEST_ARENA_MAX);                                               \
        kq_writer cw_;                                                                     \
        name cd_;                                                                          \
        ENCODE_DECODE(name##_encode, name##_decode, (version), (in), &cd_, &ca_, cw_);     \
        name ce_ = (expected);                                                             \
        compare_fn(&cd_, &ce_);                                                            \
        CHECK_TRUNCATIONS(name##_decode, name, (version), cw_.data, cw_.len);              \
        CHECK_GARBAGE(name##_decode, name##_encode, name, (version), cw_.data, cw_.len,    \
                      (seed));                                                             \
        kq_writer_free(&cw_);                                                              \
        kq_arena_free(&ca_);                                                               \
    } while (0)

/* Encoding *in gives exactly the glen bytes at golden; decoding them succeeds
 * and compare_fn(&decoded, &expected) holds (expected evaluated after the
 * encoding, as above). */
#define CHECK_GOLDEN(name, version, in, expected, golden, glen, compare_fn)                \
    do {                                                                                   \
        kq_writer gw_;                                                                     \
        kq_writer_init(&gw_, TEST_WRITER_MAX);                                             \
        name##_encode(&gw_, (version), (in));                                              \
        assert_int_equal(gw_.len, (glen));                                                 \
        assert_memory_equal(gw_.data, (golden), (glen));                                   \
        kq_writer_free(&gw_);                                                              \
        kq_arena ga_;                                                                      \
        kq_arena_init(&ga_, TEST_ARENA_MAX);                                               \
        kq_reader gr_;                                                                     \
        kq_reader_init(&gr_, (golden), (glen));                                            \
        name gd_;                                                                          \
        assert_int_equal(name##_decode(&gr_, (version), &ga_, &gd_), 0);                   \
        name ge_ = (expected);                                                             \
        compare_fn(&gd_, &ge_);                                                            \
        kq_arena_free(&ga_);                                                               \
    } while (0)

#endif
