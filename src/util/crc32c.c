/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78). Uses the SSE4.2
 * crc32 instruction when the CPU has it, slicing-by-8 tables otherwise. */
#include <stdint.h>
#include <string.h>

#include "kq/buf.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_tables[8][256];
static int crc_use_hw;
#if defined(__x86_64__) && defined(__GNUC__)
static void crc32c_hw_init(void);
#endif

__attribute__((constructor)) static void crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_tables[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_tables[t][i] = (crc_tables[t - 1][i] >> 8) ^ crc_tables[0][crc_tables[t - 1][i] & 0xff];
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    crc_use_hw = __builtin_cpu_supports("sse4.2");
    if (crc_use_hw)
        crc32c_hw_init();
#endif
}

static uint32_t crc32c_sw(uint32_t c, const uint8_t *p, size_t n)
{
    while (n && ((uintptr_t)p & 7)) {
        c = (c >> 8) ^ crc_tables[0][(c ^ *p++) & 0xff];
        n--;
    }
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = crc_tables[7][lo & 0xff] ^ crc_tables[6][(lo >> 8) & 0xff] ^
            crc_tables[5][(lo >> 16) & 0xff] ^ crc_tables[4][lo >> 24] ^
            crc_tables[3][hi & 0xff] ^ crc_tables[2][(hi >> 8) & 0xff] ^
            crc_tables[1][(hi >> 16) & 0xff] ^ crc_tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ crc_tables[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The crc32 instruction has a latency of 3 cycles and a throughput of 1, so
 * one dependency chain runs at a third of its speed. Long inputs are cut
 * into three lanes of equal length whose CRCs are computed interleaved and
 * then joined: the CRC state is linear over GF(2), so after a lane of n
 * bytes, state = zeros_n(state before) ^ crc(0, lane), where zeros_n (n
 * zero bytes through the register) is a 32x32 bit matrix, kept as four
 * byte-indexed tables per lane length. */
#define CRC_LANE_LONG_BYTES 8192u
#define CRC_LANE_SHORT_BYTES 256u

static uint32_t crc_zeros_long[4][256];
static uint32_t crc_zeros_short[4][256];

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw_1(uint32_t c, const uint8_t *p,
                                                              size_t n)
{
    uint64_t c64 = c;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c64 = __builtin_ia32_crc32di(c64, v);
        p += 8;
        n -= 8;
    }
    c = (uint32_t)c64;
    while (n--)
        c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}

/* tables[k][b] = zeros_n(b << 8k), built from the 32 basis vectors. */
static void crc_zeros_tables(uint32_t tables[4][256], size_t n)
{
    static const uint8_t zeros[CRC_LANE_LONG_BYTES];
    uint32_t basis[32];
    for (int i = 0; i < 32; i++)
        basis[i] = crc32c_hw_1(1u << i, zeros, n);
    for (int k = 0; k < 4; k++)
        for (uint32_t b = 0; b < 256; b++) {
            uint32_t v = 0;
            for (int j = 0; j < 8; j++)
                if (b & (1u << j))
                    v ^= basis[8 * k + j];
            tables[k][b] = v;
        }
}

static inline uint32_t crc_shift(const uint32_t t[4][256], uint32_t c)
{
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

/* Whole blocks of three lanes of `lane` bytes each; returns the state. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw_3(uint32_t c, const uint8_t **pp,
                                                              size_t *np, size_t lane,
                                                              const uint32_t t[4][256])
{
    const uint8_t *p = *pp;
    size_t n = *np;
    while (n >= 3 * lane) {
        uint64_t c0 = c, c1 = 0, c2 = 0;
        for (size_t i = 0; i < lane; i += 8) {
            uint64_t v0, v1, v2;
            memcpy(&v0, p + i, 8);
            memcpy(&v1, p + lane + i, 8);
            memcpy(&v2, p + 2 * lane + i, 8);
            c0 = __builtin_ia32_crc32di(c0, v0);
            c1 = __builtin_ia32_crc32di(c1, v1);
            c2 = __builtin_ia32_crc32di(c2, v2);
        }
        c = crc_shift(t, crc_shift(t, (uint32_t)c0) ^ (uint32_t)c1) ^ (uint32_t)c2;
        p += 3 * lane;
        n -= 3 * lane;
    }
    *pp = p;
    *np = n;
    return c;
}

static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t n)
{
    c = crc32c_hw_3(c, &p, &n, CRC_LANE_LONG_BYTES, crc_zeros_long);
    c = crc32c_hw_3(c, &p, &n, CRC_LANE_SHORT_BYTES, crc_zeros_short);
    return crc32c_hw_1(c, p, n);
}

static void crc32c_hw_init(void)
{
    crc_zeros_tables(crc_zeros_long, CRC_LANE_LONG_BYTES);
    crc_zeros_tables(crc_zeros_short, CRC_LANE_SHORT_BYTES);
}
#endif

/* Software path alone, exposed for tests that compare both paths. */
uint32_t kq_crc32c_sw(uint32_t crc, const void *data, size_t len)
{
    if (!len)
        return crc;
    return ~crc32c_sw(~crc, data, len);
}

uint32_t kq_crc32c(uint32_t crc, const void *data, size_t len)
{
    if (!len)
        return crc;
#if defined(__x86_64__) && defined(__GNUC__)
    if (crc_use_hw)
        return ~crc32c_hw(~crc, data, len);
#endif
    return ~crc32c_sw(~crc, data, len);
}
