/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78). Uses the SSE4.2
 * crc32 instruction when the CPU has it, slicing-by-8 tables otherwise. */
#include <stdint.h>
#include <string.h>

#include "kq/buf.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_tables[8][256];
static int crc_use_hw;

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
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t n)
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
