/* Bounded big-endian reader with a sticky error flag. */
#include <stdint.h>
#include <string.h>

#include "kq/buf.h"

void kq_reader_init(kq_reader *r, const void *data, size_t len)
{
    r->data = data;
    r->len = data ? len : 0;
    r->pos = 0;
    r->error = false;
}

size_t kq_reader_remaining(const kq_reader *r)
{
    return r->error ? 0 : r->len - r->pos;
}

void kq_reader_fail(kq_reader *r)
{
    r->error = true;
}

const uint8_t *kq_read_raw(kq_reader *r, size_t n)
{
    if (r->error || r->len - r->pos < n) {
        r->error = true;
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

int8_t kq_read_i8(kq_reader *r)
{
    const uint8_t *p = kq_read_raw(r, 1);
    return p ? (int8_t)p[0] : 0;
}

uint16_t kq_read_u16(kq_reader *r)
{
    const uint8_t *p = kq_read_raw(r, 2);
    return p ? (uint16_t)((p[0] << 8) | p[1]) : 0;
}

int16_t kq_read_i16(kq_reader *r)
{
    return (int16_t)kq_read_u16(r);
}

uint32_t kq_read_u32(kq_reader *r)
{
    const uint8_t *p = kq_read_raw(r, 4);
    if (!p)
        return 0;
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

int32_t kq_read_i32(kq_reader *r)
{
    return (int32_t)kq_read_u32(r);
}

int64_t kq_read_i64(kq_reader *r)
{
    const uint8_t *p = kq_read_raw(r, 8);
    if (!p)
        return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return (int64_t)v;
}

bool kq_read_bool(kq_reader *r)
{
    return kq_read_i8(r) != 0;
}

kq_uuid kq_read_uuid(kq_reader *r)
{
    kq_uuid u;
    const uint8_t *p = kq_read_raw(r, 16);
    if (p)
        memcpy(u.bytes, p, 16);
    else
        memset(u.bytes, 0, 16);
    return u;
}

/* Reads an unsigned LEB128 of at most max_bytes; the last byte may only use
 * the bits that still fit in `bits`. */
static uint64_t read_leb(kq_reader *r, int max_bytes, int bits)
{
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; i++) {
        const uint8_t *p = kq_read_raw(r, 1);
        if (!p)
            return 0;
        uint8_t b = p[0];
        int shift = 7 * i;
        if (i == max_bytes - 1) {
            /* final byte: no continuation and no bits beyond `bits` */
            if ((b & 0x80) || (bits - shift < 7 && (b >> (bits - shift)) != 0)) {
                r->error = true;
                return 0;
            }
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->error = true;
    return 0;
}

uint32_t kq_read_uvarint(kq_reader *r)
{
    return (uint32_t)read_leb(r, 5, 32);
}

int32_t kq_read_varint(kq_reader *r)
{
    uint32_t u = (uint32_t)read_leb(r, 5, 32);
    return (int32_t)((u >> 1) ^ (0u - (u & 1)));
}

int64_t kq_read_varlong(kq_reader *r)
{
    uint64_t u = read_leb(r, 10, 64);
    return (int64_t)((u >> 1) ^ (0u - (u & 1)));
}

static kq_slice null_slice(void)
{
    kq_slice s = {NULL, -1};
    return s;
}

static kq_slice take_slice(kq_reader *r, int64_t len)
{
    if (r->error)
        return null_slice();
    if (len < 0 || len > INT32_MAX || (uint64_t)len > r->len - r->pos) {
        r->error = true;
        return null_slice();
    }
    kq_slice s = {r->data + r->pos, (int32_t)len};
    r->pos += (size_t)len;
    return s;
}

kq_slice kq_read_string(kq_reader *r)
{
    int16_t n = kq_read_i16(r);
    if (r->error)
        return null_slice();
    if (n == -1)
        return null_slice();
    return take_slice(r, n);
}

/* uvarint length+1; 0 is null. Strings stop at max_len bytes. */
static kq_slice read_compact_slice(kq_reader *r, int64_t max_len)
{
    uint32_t n = kq_read_uvarint(r);
    if (r->error || n == 0)
        return null_slice();
    if ((int64_t)n - 1 > max_len) {
        r->error = true;
        return null_slice();
    }
    return take_slice(r, (int64_t)n - 1);
}

kq_slice kq_read_compact_string(kq_reader *r)
{
    return read_compact_slice(r, KQ_STRING_LEN_MAX);
}

kq_slice kq_read_bytes(kq_reader *r)
{
    int32_t n = kq_read_i32(r);
    if (r->error || n == -1)
        return null_slice();
    return take_slice(r, n);
}

kq_slice kq_read_compact_bytes(kq_reader *r)
{
    return read_compact_slice(r, INT32_MAX);
}

static int32_t check_count(kq_reader *r, int64_t n)
{
    if (r->error)
        return 0;
    if (n == -1)
        return -1;
    if (n < 0 || (uint64_t)n > r->len - r->pos) {
        r->error = true;
        return 0;
    }
    return (int32_t)n;
}

int32_t kq_read_array_len(kq_reader *r)
{
    int32_t n = kq_read_i32(r);
    return check_count(r, n);
}

int32_t kq_read_compact_array_len(kq_reader *r)
{
    uint32_t n = kq_read_uvarint(r);
    return check_count(r, (int64_t)n - 1);
}

void kq_skip_tagged_fields(kq_reader *r)
{
    uint32_t count = kq_read_uvarint(r);
    if (r->error)
        return;
    /* every field needs at least a tag byte and a size byte */
    if (count > (r->len - r->pos) / 2) {
        r->error = true;
        return;
    }
    for (uint32_t i = 0; i < count && !r->error; i++) {
        (void)kq_read_uvarint(r);
        uint32_t size = kq_read_uvarint(r);
        (void)kq_read_raw(r, size);
    }
}
