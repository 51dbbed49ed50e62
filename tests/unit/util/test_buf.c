#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kq/buf.h"

static void test_fixed_width_roundtrip(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 1024);
    kq_write_i8(&w, -2);
    kq_write_i16(&w, -12345);
    kq_write_u16(&w, 0xBEEF);
    kq_write_i32(&w, INT32_MIN);
    kq_write_u32(&w, 0xDEADBEEFu);
    kq_write_i64(&w, INT64_MIN + 7);
    kq_write_bool(&w, true);
    kq_write_bool(&w, false);
    kq_uuid u;
    for (int i = 0; i < 16; i++)
        u.bytes[i] = (uint8_t)(i * 17);
    kq_write_uuid(&w, u);
    assert_false(w.error);
    assert_int_equal(w.len, 1 + 2 + 2 + 4 + 4 + 8 + 1 + 1 + 16);
    /* big-endian on the wire */
    static const uint8_t head[] = {0xFE, 0xCF, 0xC7, 0xBE, 0xEF, 0x80, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF};
    assert_memory_equal(w.data, head, sizeof head);

    kq_reader r;
    kq_reader_init(&r, w.data, w.len);
    assert_int_equal(kq_read_i8(&r), -2);
    assert_int_equal(kq_read_i16(&r), -12345);
    assert_int_equal(kq_read_u16(&r), 0xBEEF);
    assert_int_equal(kq_read_i32(&r), INT32_MIN);
    assert_int_equal(kq_read_u32(&r), 0xDEADBEEFu);
    assert_true(kq_read_i64(&r) == INT64_MIN + 7);
    assert_true(kq_read_bool(&r));
    assert_false(kq_read_bool(&r));
    kq_uuid u2 = kq_read_uuid(&r);
    assert_memory_equal(u.bytes, u2.bytes, 16);
    assert_false(r.error);
    assert_int_equal(kq_reader_remaining(&r), 0);
    kq_writer_free(&w);
}

static void test_uvarint_edges(void **state)
{
    (void)state;
    struct {
        uint32_t v;
        uint8_t bytes[5];
        size_t n;
    } cases[] = {
        {0, {0x00}, 1},
        {1, {0x01}, 1},
        {127, {0x7F}, 1},
        {128, {0x80, 0x01}, 2},
        {300, {0xAC, 0x02}, 2},
        {16383, {0xFF, 0x7F}, 2},
        {16384, {0x80, 0x80, 0x01}, 3},
        {0x0FFFFFFF, {0xFF, 0xFF, 0xFF, 0x7F}, 4},
        {0x10000000, {0x80, 0x80, 0x80, 0x80, 0x01}, 5},
        {UINT32_MAX, {0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kq_writer w;
        kq_writer_init(&w, 64);
        kq_write_uvarint(&w, cases[i].v);
        assert_int_equal(w.len, cases[i].n);
        assert_int_equal(kq_uvarint_size(cases[i].v), cases[i].n);
        assert_memory_equal(w.data, cases[i].bytes, cases[i].n);
        kq_reader r;
        kq_reader_init(&r, w.data, w.len);
        assert_int_equal(kq_read_uvarint(&r), cases[i].v);
        assert_false(r.error);
        /* every truncation fails */
        for (size_t k = 0; k < cases[i].n; k++) {
            kq_reader_init(&r, w.data, k);
            (void)kq_read_uvarint(&r);
            assert_true(r.error);
        }
        kq_writer_free(&w);
    }
    /* too long / overflowing encodings are rejected */
    static const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    static const uint8_t over[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};
    kq_reader r;
    kq_reader_init(&r, six, sizeof six);
    (void)kq_read_uvarint(&r);
    assert_true(r.error);
    kq_reader_init(&r, over, sizeof over);
    (void)kq_read_uvarint(&r);
    assert_true(r.error);
}

static void test_zigzag_varint_varlong(void **state)
{
    (void)state;
    /* zigzag: 0->0, -1->1, 1->2, -2->3, INT32_MAX->0xFFFFFFFE, INT32_MIN->0xFFFFFFFF */
    struct {
        int32_t v;
        uint8_t bytes[5];
        size_t n;
    } vi[] = {
        {0, {0x00}, 1},
        {-1, {0x01}, 1},
        {1, {0x02}, 1},
        {-2, {0x03}, 1},
        {63, {0x7E}, 1},
        {-64, {0x7F}, 1},
        {64, {0x80, 0x01}, 2},
        {INT32_MAX, {0xFE, 0xFF, 0xFF, 0xFF, 0x0F}, 5},
        {INT32_MIN, {0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 5},
    };
    for (size_t i = 0; i < sizeof vi / sizeof vi[0]; i++) {
        kq_writer w;
        kq_writer_init(&w, 64);
        kq_write_varint(&w, vi[i].v);
        assert_int_equal(w.len, vi[i].n);
        assert_memory_equal(w.data, vi[i].bytes, vi[i].n);
        kq_reader r;
        kq_reader_init(&r, w.data, w.len);
        assert_int_equal(kq_read_varint(&r), vi[i].v);
        assert_false(r.error);
        kq_writer_free(&w);
    }
    int64_t vl[] = {0, -1, 1, INT32_MAX, (int64_t)INT32_MIN - 1, INT64_MAX, INT64_MIN, 1234567890123LL};
    for (size_t i = 0; i < sizeof vl / sizeof vl[0]; i++) {
        kq_writer w;
        kq_writer_init(&w, 64);
        kq_write_varlong(&w, vl[i]);
        kq_reader r;
        kq_reader_init(&r, w.data, w.len);
        assert_true(kq_read_varlong(&r) == vl[i]);
        assert_false(r.error);
        assert_int_equal(kq_reader_remaining(&r), 0);
        if (vl[i] == INT64_MIN || vl[i] == INT64_MAX)
            assert_int_equal(w.len, 10);
        for (size_t k = 0; k < w.len; k++) {
            kq_reader_init(&r, w.data, k);
            (void)kq_read_varlong(&r);
            assert_true(r.error);
        }
        kq_writer_free(&w);
    }
    /* 11-byte varlong and a 10th byte with overflow bits are rejected */
    uint8_t bad[11];
    memset(bad, 0x80, sizeof bad);
    bad[10] = 0x01;
    kq_reader r;
    kq_reader_init(&r, bad, sizeof bad);
    (void)kq_read_varlong(&r);
    assert_true(r.error);
    memset(bad, 0xFF, 10);
    bad[9] = 0x02;
    kq_reader_init(&r, bad, 10);
    (void)kq_read_varlong(&r);
    assert_true(r.error);
}

static void test_strings_and_bytes(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 1024);
    kq_write_cstring(&w, "abc");          /* 00 03 'a' 'b' 'c' */
    kq_write_cstring(&w, NULL);           /* ff ff */
    kq_write_cstring(&w, "");             /* 00 00 */
    kq_write_compact_cstring(&w, "hi");   /* 03 'h' 'i' */
    kq_write_compact_cstring(&w, NULL);   /* 00 */
    kq_write_compact_cstring(&w, "");     /* 01 */
    kq_slice b = {(const uint8_t *)"\x01\x02", 2};
    kq_slice nul = {NULL, -1};
    kq_write_bytes(&w, b);                /* 00 00 00 02 01 02 */
    kq_write_bytes(&w, nul);              /* ff ff ff ff */
    kq_write_compact_bytes(&w, b);        /* 03 01 02 */
    kq_write_compact_bytes(&w, nul);      /* 00 */
    assert_false(w.error);
    static const uint8_t expect[] = {
        0x00, 0x03, 'a', 'b', 'c', 0xFF, 0xFF, 0x00, 0x00,
        0x03, 'h', 'i', 0x00, 0x01,
        0x00, 0x00, 0x00, 0x02, 0x01, 0x02, 0xFF, 0xFF, 0xFF, 0xFF,
        0x03, 0x01, 0x02, 0x00,
    };
    assert_int_equal(w.len, sizeof expect);
    assert_memory_equal(w.data, expect, sizeof expect);

    kq_reader r;
    kq_reader_init(&r, w.data, w.len);
    assert_true(kq_slice_eq_cstr(kq_read_string(&r), "abc"));
    kq_slice s = kq_read_string(&r);
    assert_int_equal(s.len, -1);
    assert_false(kq_slice_eq_cstr(s, ""));
    s = kq_read_string(&r);
    assert_int_equal(s.len, 0);
    assert_true(kq_slice_eq_cstr(s, ""));
    assert_true(kq_slice_eq_cstr(kq_read_compact_string(&r), "hi"));
    assert_int_equal(kq_read_compact_string(&r).len, -1);
    assert_int_equal(kq_read_compact_string(&r).len, 0);
    s = kq_read_bytes(&r);
    assert_int_equal(s.len, 2);
    assert_memory_equal(s.ptr, "\x01\x02", 2);
    assert_int_equal(kq_read_bytes(&r).len, -1);
    s = kq_read_compact_bytes(&r);
    assert_int_equal(s.len, 2);
    assert_int_equal(kq_read_compact_bytes(&r).len, -1);
    assert_false(r.error);
    assert_int_equal(kq_reader_remaining(&r), 0);

    /* every truncation of the whole sequence fails somewhere */
    for (size_t k = 0; k < w.len; k++) {
        kq_reader_init(&r, w.data, k);
        (void)kq_read_string(&r);
        (void)kq_read_string(&r);
        (void)kq_read_string(&r);
        (void)kq_read_compact_string(&r);
        (void)kq_read_compact_string(&r);
        (void)kq_read_compact_string(&r);
        (void)kq_read_bytes(&r);
        (void)kq_read_bytes(&r);
        (void)kq_read_compact_bytes(&r);
        (void)kq_read_compact_bytes(&r);
        assert_true(r.error);
    }
    kq_writer_free(&w);
}

static void test_bad_lengths(void **state)
{
    (void)state;
    kq_reader r;
    static const uint8_t neg_string[] = {0xFF, 0xFE, 'a'};       /* -2 */
    kq_reader_init(&r, neg_string, sizeof neg_string);
    (void)kq_read_string(&r);
    assert_true(r.error);
    static const uint8_t long_string[] = {0x00, 0x05, 'a', 'b'};
    kq_reader_init(&r, long_string, sizeof long_string);
    (void)kq_read_string(&r);
    assert_true(r.error);
    static const uint8_t neg_bytes[] = {0x80, 0x00, 0x00, 0x00};
    kq_reader_init(&r, neg_bytes, sizeof neg_bytes);
    (void)kq_read_bytes(&r);
    assert_true(r.error);
    static const uint8_t long_compact[] = {0x05, 'a'};
    kq_reader_init(&r, long_compact, sizeof long_compact);
    (void)kq_read_compact_string(&r);
    assert_true(r.error);
}

/* Compact strings stop at KQ_STRING_LEN_MAX (32767) bytes, as in Kafka and
 * as the classic int16 length must; compact bytes keep the int32 limit. */
static void test_compact_string_limit(void **state)
{
    (void)state;
    size_t max = KQ_STRING_LEN_MAX;
    uint8_t *buf = calloc(1, max + 8);
    assert_non_null(buf);
    kq_writer w;
    kq_writer_init(&w, 0);
    kq_write_uvarint(&w, (uint32_t)max + 1); /* exactly 32767 bytes */
    size_t prefix = w.len;
    memcpy(buf, w.data, prefix);
    kq_reader r;
    kq_reader_init(&r, buf, prefix + max);
    assert_int_equal(kq_read_compact_string(&r).len, (int32_t)max);
    assert_false(r.error);

    kq_writer_reset(&w);
    kq_write_uvarint(&w, (uint32_t)max + 2); /* 32768 bytes: refused */
    prefix = w.len;
    memcpy(buf, w.data, prefix);
    kq_reader_init(&r, buf, prefix + max + 1);
    kq_slice s = kq_read_compact_string(&r);
    assert_true(r.error);
    assert_int_equal(s.len, -1);
    kq_reader_init(&r, buf, prefix + max + 1);
    assert_int_equal(kq_read_compact_bytes(&r).len, (int32_t)max + 1);
    assert_false(r.error);

    /* and the writers agree */
    kq_slice big = {buf, (int32_t)max + 1};
    kq_writer_reset(&w);
    kq_write_compact_string(&w, big);
    assert_true(w.error);
    kq_writer_reset(&w);
    kq_write_compact_bytes(&w, big);
    assert_false(w.error);
    kq_writer_free(&w);
    free(buf);
}

static void test_array_lengths(void **state)
{
    (void)state;
    kq_reader r;
    static const uint8_t null_arr[] = {0xFF, 0xFF, 0xFF, 0xFF};
    kq_reader_init(&r, null_arr, sizeof null_arr);
    assert_int_equal(kq_read_array_len(&r), -1);
    assert_false(r.error);
    static const uint8_t two[] = {0, 0, 0, 2, 0xAA, 0xBB};
    kq_reader_init(&r, two, sizeof two);
    assert_int_equal(kq_read_array_len(&r), 2);
    assert_false(r.error);
    /* count larger than remaining bytes */
    static const uint8_t three[] = {0, 0, 0, 3, 0xAA, 0xBB};
    kq_reader_init(&r, three, sizeof three);
    (void)kq_read_array_len(&r);
    assert_true(r.error);
    static const uint8_t huge[] = {0x7F, 0xFF, 0xFF, 0xFF};
    kq_reader_init(&r, huge, sizeof huge);
    (void)kq_read_array_len(&r);
    assert_true(r.error);
    static const uint8_t minus2[] = {0xFF, 0xFF, 0xFF, 0xFE};
    kq_reader_init(&r, minus2, sizeof minus2);
    (void)kq_read_array_len(&r);
    assert_true(r.error);

    static const uint8_t cnull[] = {0x00};
    kq_reader_init(&r, cnull, sizeof cnull);
    assert_int_equal(kq_read_compact_array_len(&r), -1);
    assert_false(r.error);
    static const uint8_t cempty[] = {0x01};
    kq_reader_init(&r, cempty, sizeof cempty);
    assert_int_equal(kq_read_compact_array_len(&r), 0);
    assert_false(r.error);
    static const uint8_t ctwo[] = {0x03, 0xAA, 0xBB};
    kq_reader_init(&r, ctwo, sizeof ctwo);
    assert_int_equal(kq_read_compact_array_len(&r), 2);
    assert_false(r.error);
    static const uint8_t cthree[] = {0x04, 0xAA, 0xBB};
    kq_reader_init(&r, cthree, sizeof cthree);
    (void)kq_read_compact_array_len(&r);
    assert_true(r.error);
    static const uint8_t chuge[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
    kq_reader_init(&r, chuge, sizeof chuge);
    (void)kq_read_compact_array_len(&r);
    assert_true(r.error);

    kq_writer w;
    kq_writer_init(&w, 64);
    kq_write_array_len(&w, -1);
    kq_write_array_len(&w, 3);
    kq_write_compact_array_len(&w, -1);
    kq_write_compact_array_len(&w, 0);
    kq_write_compact_array_len(&w, 200);
    static const uint8_t expect[] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 3, 0x00, 0x01, 0xC9, 0x01};
    assert_int_equal(w.len, sizeof expect);
    assert_memory_equal(w.data, expect, sizeof expect);
    kq_writer_free(&w);
}

static void test_tagged_fields(void **state)
{
    (void)state;
    /* two fields: tag 0 size 2, tag 5 size 0; then a trailing marker byte */
    static const uint8_t tf[] = {0x02, 0x00, 0x02, 0xAA, 0xBB, 0x05, 0x00, 0x77};
    kq_reader r;
    kq_reader_init(&r, tf, sizeof tf);
    kq_skip_tagged_fields(&r);
    assert_false(r.error);
    assert_int_equal(kq_read_i8(&r), 0x77);
    for (size_t k = 0; k < sizeof tf - 1; k++) {
        kq_reader_init(&r, tf, k);
        kq_skip_tagged_fields(&r);
        assert_true(r.error);
    }
    static const uint8_t empty[] = {0x00};
    kq_reader_init(&r, empty, 1);
    kq_skip_tagged_fields(&r);
    assert_false(r.error);
    assert_int_equal(kq_reader_remaining(&r), 0);
    /* absurd count */
    static const uint8_t many[] = {0xFF, 0xFF, 0x03, 0x00, 0x00};
    kq_reader_init(&r, many, sizeof many);
    kq_skip_tagged_fields(&r);
    assert_true(r.error);
    kq_writer w;
    kq_writer_init(&w, 8);
    kq_write_empty_tagged_fields(&w);
    assert_int_equal(w.len, 1);
    assert_int_equal(w.data[0], 0);
    kq_writer_free(&w);
}

static void test_sticky_error(void **state)
{
    (void)state;
    static const uint8_t d[] = {0x01, 0x02, 0x03};
    kq_reader r;
    kq_reader_init(&r, d, sizeof d);
    assert_int_equal(kq_read_i32(&r), 0);
    assert_true(r.error);
    /* later reads return zero even though bytes remain */
    assert_int_equal(kq_read_i8(&r), 0);
    assert_int_equal(kq_read_i16(&r), 0);
    assert_null(kq_read_raw(&r, 1));
    assert_int_equal(kq_reader_remaining(&r), 0);
    assert_true(r.error);

    kq_reader_init(&r, d, sizeof d);
    assert_int_equal(kq_read_i8(&r), 1);
    kq_reader_fail(&r);
    assert_int_equal(kq_read_i8(&r), 0);
    assert_true(r.error);

    kq_reader_init(&r, NULL, 0);
    assert_int_equal(kq_reader_remaining(&r), 0);
    (void)kq_read_i8(&r);
    assert_true(r.error);
}

static void test_writer_bound(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 10);
    kq_write_i64(&w, 1);
    kq_write_i16(&w, 2);
    assert_false(w.error);
    assert_int_equal(w.len, 10);
    kq_write_i8(&w, 3);
    assert_true(w.error);
    assert_int_equal(w.len, 10);
    /* sticky: further writes are ignored */
    kq_write_i8(&w, 3);
    assert_int_equal(w.len, 10);
    assert_null(kq_writer_reserve(&w, 1));
    kq_writer_reset(&w);
    assert_false(w.error);
    assert_int_equal(w.len, 0);
    assert_null(kq_writer_reserve(&w, 11));
    assert_true(w.error);
    kq_writer_reset(&w);
    assert_null(kq_writer_reserve(&w, SIZE_MAX));
    assert_true(w.error);
    kq_writer_free(&w);

    /* growth across many small writes keeps content */
    kq_writer_init(&w, 1 << 20);
    for (int i = 0; i < 10000; i++)
        kq_write_i32(&w, i);
    assert_false(w.error);
    assert_int_equal(w.len, 40000);
    kq_reader r;
    kq_reader_init(&r, w.data, w.len);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(kq_read_i32(&r), i);
    /* patch */
    kq_writer_patch_i32(&w, 4, 0x01020304);
    assert_int_equal(w.data[4], 1);
    assert_int_equal(w.data[7], 4);
    assert_false(w.error);
    kq_writer_patch_i32(&w, w.len - 3, 0);
    assert_true(w.error);
    kq_writer_free(&w);

    /* string too long for int16 length */
    kq_writer_init(&w, 1 << 20);
    static uint8_t big[40000];
    kq_slice s = {big, sizeof big};
    kq_write_string(&w, s);
    assert_true(w.error);
    kq_writer_free(&w);
}

static void test_slice_helpers(void **state)
{
    (void)state;
    kq_slice s = kq_slice_cstr("kafka");
    assert_int_equal(s.len, 5);
    assert_true(kq_slice_eq_cstr(s, "kafka"));
    assert_false(kq_slice_eq_cstr(s, "kafk"));
    assert_false(kq_slice_eq_cstr(s, "kafkaa"));
    assert_false(kq_slice_eq_cstr(s, NULL));
    s = kq_slice_cstr(NULL);
    assert_int_equal(s.len, -1);
    assert_false(kq_slice_eq_cstr(s, ""));
}

/* ensure grows without writing; take hands the buffer over and leaves the
 * writer empty but usable, with its bound. */
static void test_writer_ensure_and_take(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 1000);
    assert_true(kq_writer_ensure(&w, 0));
    assert_true(kq_writer_ensure(&w, 600));
    assert_int_equal(w.len, 0);
    assert_true(w.cap >= 600);
    kq_write_u32(&w, 0xdeadbeef);
    size_t len = 0;
    uint8_t *d = kq_writer_take(&w, &len);
    assert_non_null(d);
    assert_int_equal(len, 4);
    assert_int_equal(d[0], 0xde);
    free(d);
    assert_null(w.data);
    assert_int_equal(w.len, 0);
    kq_write_u32(&w, 1); /* usable again */
    assert_int_equal(w.len, 4);
    assert_false(kq_writer_ensure(&w, 997)); /* past the bound: error */
    assert_true(w.error);
    kq_writer_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_ensure_and_take),
        cmocka_unit_test(test_fixed_width_roundtrip),
        cmocka_unit_test(test_uvarint_edges),
        cmocka_unit_test(test_zigzag_varint_varlong),
        cmocka_unit_test(test_strings_and_bytes),
        cmocka_unit_test(test_bad_lengths),
        cmocka_unit_test(test_compact_string_limit),
        cmocka_unit_test(test_array_lengths),
        cmocka_unit_test(test_tagged_fields),
        cmocka_unit_test(test_sticky_error),
        cmocka_unit_test(test_writer_bound),
        cmocka_unit_test(test_slice_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
