#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "wire_codec.h"

static void test_string_length_limit_both_encodings(void **state)
{
    (void)state;
    size_t n = (size_t)INT16_MAX + 1;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'a', n);
    kq_slice s = {(const uint8_t *)big, (int32_t)n};
    for (int flex = 0; flex <= 1; flex++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        wire_write_string(&w, flex, s);
        assert_true(w.error);
        kq_writer_free(&w);
        kq_writer_init(&w, 0);
        s.len = INT16_MAX;
        wire_write_string(&w, flex, s);
        assert_false(w.error);
        s.len = (int32_t)n;
        kq_writer_free(&w);
    }
    free(big);
}

static void test_null_string_written_empty(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    wire_write_string(&w, true, WIRE_NULL_SLICE);
    wire_write_nullable_string(&w, true, WIRE_NULL_SLICE);
    assert_int_equal(w.len, 2);
    assert_int_equal(w.data[0], 1); /* "" */
    assert_int_equal(w.data[1], 0); /* null */
    kq_reader r;
    kq_reader_init(&r, w.data, w.len);
    assert_int_equal(wire_read_string(&r, true).len, 0);
    assert_false(r.error);
    assert_true(wire_slice_is_null(wire_read_nullable_string(&r, true)));
    assert_false(r.error);
    kq_reader_init(&r, w.data + 1, 1);
    wire_read_string(&r, true);
    assert_true(r.error);
    kq_writer_free(&w);
}

static void test_tags_round_trip_and_error_propagation(void **state)
{
    (void)state;
    kq_writer w, s;
    kq_writer_init(&w, 0);
    kq_write_uvarint(&w, 2);
    wire_tag_open(&w, &s);
    kq_write_i32(&s, 42);
    wire_tag_close(&w, 0, &s);
    wire_tag_open(&w, &s);
    wire_tag_close(&w, 3, &s);
    assert_false(w.error);
    const uint8_t want[] = {2, 0, 4, 0, 0, 0, 42, 3, 0};
    assert_int_equal(w.len, sizeof want);
    assert_memory_equal(w.data, want, sizeof want);

    kq_reader r, sub;
    kq_reader_init(&r, w.data, w.len);
    assert_int_equal(wire_tags_begin(&r), 2);
    uint32_t tag;
    assert_true(wire_tag_next(&r, &tag, &sub));
    assert_int_equal(tag, 0);
    (void)kq_read_i64(&sub); /* payload is only 4 bytes */
    wire_tag_end(&r, &sub);
    assert_true(r.error);
    assert_false(wire_tag_next(&r, &tag, &sub));
    assert_true(sub.error);

    /* a failed scratch writer fails the outer writer */
    wire_tag_open(&w, &s);
    s.error = true;
    wire_tag_close(&w, 1, &s);
    assert_true(w.error);
    kq_writer_free(&w);
}

static void test_alloc_array_bounds(void **state)
{
    (void)state;
    uint8_t buf[8] = {0};
    kq_arena a;
    kq_arena_init(&a, 1 << 16);
    kq_reader r;
    kq_reader_init(&r, buf, sizeof buf);
    assert_null(wire_alloc_array(&r, &a, 0, 4, 1));
    assert_false(r.error);
    assert_non_null(wire_alloc_array(&r, &a, 8, 4, 1));
    assert_false(r.error);
    assert_null(wire_alloc_array(&r, &a, 3, 4, 4));
    assert_true(r.error);
    kq_reader_init(&r, buf, sizeof buf);
    assert_null(wire_alloc_array(&r, &a, 8, SIZE_MAX / 4, 1));
    assert_true(r.error);
    kq_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_length_limit_both_encodings),
        cmocka_unit_test(test_null_string_written_empty),
        cmocka_unit_test(test_tags_round_trip_and_error_propagation),
        cmocka_unit_test(test_alloc_array_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
