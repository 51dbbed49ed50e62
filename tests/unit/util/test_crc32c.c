#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kq/buf.h"

static void test_check_value(void **state)
{
    (void)state;
    assert_int_equal(kq_crc32c(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(kq_crc32c_sw(0, "123456789", 9), 0xE3069283u);
}

static void test_known_vectors(void **state)
{
    (void)state;
    uint8_t buf[32];
    /* RFC 3720 B.4 test vectors */
    memset(buf, 0, 32);
    assert_int_equal(kq_crc32c(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, 32);
    assert_int_equal(kq_crc32c(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    assert_int_equal(kq_crc32c(0, buf, 32), 0x46DD794Eu);
    assert_int_equal(kq_crc32c_sw(0, buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)(31 - i);
    assert_int_equal(kq_crc32c(0, buf, 32), 0x113FDB5Cu);
    assert_int_equal(kq_crc32c(0, "", 0), 0u);
    assert_int_equal(kq_crc32c(0, "a", 1), 0xC1D04330u);
}

static void test_incremental_and_unaligned(void **state)
{
    (void)state;
    size_t n = 4099;
    uint8_t *buf = malloc(n + 8);
    assert_non_null(buf);
    uint32_t seed = 12345;
    for (size_t i = 0; i < n + 8; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (uint8_t)(seed >> 16);
    }
    uint32_t whole = kq_crc32c_sw(0, buf, n);
    assert_int_equal(kq_crc32c(0, buf, n), whole);
    for (size_t split = 0; split < 40; split++) {
        uint32_t c = kq_crc32c(0, buf, split);
        c = kq_crc32c(c, buf + split, n - split);
        assert_int_equal(c, whole);
    }
    for (size_t off = 1; off < 8; off++) {
        memmove(buf + off, buf, n);
        assert_int_equal(kq_crc32c(0, buf + off, n), whole);
        assert_int_equal(kq_crc32c_sw(0, buf + off, n), whole);
        memmove(buf, buf + off, n);
    }
    free(buf);
}

/* Lengths around the interleaved paths' block sizes (3 x 256 and 3 x 8192
 * bytes) at every alignment: the hardware path equals the table-driven one. */
static void test_interleaved_lengths(void **state)
{
    (void)state;
    size_t cap = 3 * 8192 * 3 + 64;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    uint32_t seed = 99;
    for (size_t i = 0; i < cap; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (uint8_t)(seed >> 16);
    }
    static const size_t bases[] = {0, 768, 3 * 8192, 2 * 3 * 8192};
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++)
        for (size_t d = 0; d < 20; d++)
            for (size_t off = 0; off < 8; off += 3) {
                size_t n = bases[b] + d * 37 + (d ? 0 : 1);
                if (n + off > cap)
                    continue;
                assert_int_equal(kq_crc32c(7, buf + off, n), kq_crc32c_sw(7, buf + off, n));
            }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_value),
        cmocka_unit_test(test_interleaved_lengths),
        cmocka_unit_test(test_known_vectors),
        cmocka_unit_test(test_incremental_and_unaligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
