/* The golden tests' one check (test_golden_*.c): for each generated case of
 * an API and direction, our encoder of the C sample gives exactly the golden
 * bytes, our decoder consumes all of them, its result re-encodes to the same
 * bytes, and the test's check holds on the decoded value. Include after
 * <cmocka.h>. */
#ifndef KQ_TEST_GOLDEN_RUN_H
#define KQ_TEST_GOLDEN_RUN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec_harness.h"
#include "golden_all_versions.h"

typedef void (*golden_check_fn)(const void *got, int16_t v);

/* The golden cases must be exactly versions min..max; each one is checked in
 * both directions as described at the top of this file. */
static inline void run_golden(const harness_codec *c, const golden_case *cases, int count,
                              int16_t min_version, int16_t max_version, const void *sample,
                              golden_check_fn check)
{
    assert_int_equal(count, max_version - min_version + 1);
    for (int i = 0; i < count; i++) {
        int16_t v = cases[i].version;
        assert_int_equal(v, min_version + i);
        void *out = malloc(c->size);
        assert_non_null(out);
        kq_arena arena;
        kq_arena_init(&arena, 1 << 20);
        uint8_t *golden = harness_heap_copy(cases[i].bytes, cases[i].len);
        kq_writer w;
        if (cases[i].len == 0) {
            /* An empty body (ApiVersions v0-2 request): harness_golden would
             * memcmp a null writer buffer. */
            harness_encode(c, v, sample, &w);
            assert_int_equal(w.len, 0);
            kq_writer_free(&w);
            harness_decode_ok(c, v, golden, 0, &arena, out);
        } else {
            harness_golden(c, v, sample, golden, cases[i].len, &arena, out);
        }
        harness_encode(c, v, out, &w);
        assert_int_equal(w.len, cases[i].len);
        if (w.len) {
            if (memcmp(w.data, golden, w.len) != 0)
                harness_dump_diff(w.data, w.len, golden, cases[i].len);
            assert_memory_equal(w.data, golden, w.len);
        }
        kq_writer_free(&w);
        check(out, v);
        free(golden);
        kq_arena_free(&arena);
        free(out);
    }
}

#define RUN(api, dir, lo, hi, sample, check)                                        \
    do {                                                                               \
        run_golden(&wire_##api##_##dir##_codec, golden_##api##_##dir,                   \
                   GOLDEN_COUNT(golden_##api##_##dir), lo, hi, (sample), (check));      \
    } while (0)

static inline void assert_str(kq_slice got, const char *want)
{
    harness_assert_slice_eq(got, harness_str(want));
}

#endif
