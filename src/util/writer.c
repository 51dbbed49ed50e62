/* Growable big-endian writer with an upper bound and a sticky error flag. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kq/buf.h"

void kq_writer_init(kq_writer *w, size_t cap_max)
{
    w->data = NULL;
    w->len = 0;
    w->cap = 0;
    w->cap_max = cap_max ? cap_max : (SIZE_MAX >> 1);
    w->error = false;
}

void kq_writer_free(kq_writer *w)
{
    free(w->data);
    w->data = NULL;
    w->len = 0;
    w->cap = 0;
}

void kq_writer_reset(kq_writer *w)
{
    w->len = 0;
    w->error = false;
}

bool kq_writer_ensure(kq_writer *w, size_t n)
{
    if (n == 0)
        return !w->error;
    if (!kq_writer_reserve(w, n))
        return false;
    w->len -= n;
    return true;
}

uint8_t *kq_writer_take(kq_writer *w, size_t *len)
{
    uint8_t *d = w->data;
    *len = w->len;
    w->data = NULL;
    w->len = 0;
    w->cap = 0;
    return d;
}

uint8_t *kq_writer_reserve(kq_writer *w, size_t n)
{
    if (w->error)
        return NULL;
    if (n > w->cap_max || w->len > w->cap_max - n) {
        w->error = true;
        return NULL;
    }
    size_t need = w->len + n;
    if (need > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < need)
            cap = cap > (SIZE_MAX >> 2) ? need : cap * 2;
        if (cap > w->cap_max)
            cap = w->cap_max;
        uint8_t *p = realloc(w->data, cap);
        if (!p) {
            w->error = true;
            return NULL;
        }
        w->data = p;
        w->cap = cap;
    }
    uint8_t *p = w->data + w->len;
    w->len += n;
    return p;
}

void kq_write_raw(kq_writer *w, const void *p, size_t n)
{
    uint8_t *d = kq_writer_reserve(w, n);
    if (d && n)
        memcpy(d, p, n);
}

void kq_write_i8(kq_writer *w, int8_t v)
{
    uint8_t *d = kq_writer_reserve(w, 1);
    if (d)
        d[0] = (uint8_t)v;
}

void kq_write_u16(kq_writer *w, uint16_t v)
{
    uint8_t *d = kq_writer_reserve(w, 2);
    if (d) {
        d[0] = (uint8_t)(v >> 8);
        d[1] = (uint8_t)v;
    }
}

void kq_write_i16(kq_writer *w, int16_t v)
{
    kq_write_u16(w, (uint16_t)v);
}

static void put_u32(uint8_t *d, uint32_t v)
{
    d[0] = (uint8_t)(v >> 24);
    d[1] = (uint8_t)(v >> 16);
    d[2] = (uint8_t)(v >> 8);
    d[3] = (uint8_t)v;
}

void kq_write_u32(kq_writer *w, uint32_t v)
{
    uint8_t *d = kq_writer_reserve(w, 4);
    if (d)
        put_u32(d, v);
}

void kq_write_i32(kq_writer *w, int32_t v)
{
    kq_write_u32(w, (uint32_t)v);
}

void kq_write_i64(kq_writer *w, int64_t v)
{
    uint8_t *d = kq_writer_reserve(w, 8);
    if (d) {
        put_u32(d, (uint32_t)((uint64_t)v >> 32));
        put_u32(d + 4, (uint32_t)v);
    }
}

void kq_write_bool(kq_writer *w, bool v)
{
    kq_write_i8(w, v ? 1 : 0);
}

void kq_write_uuid(kq_writer *w, kq_uuid v)
{
    kq_write_raw(w, v.bytes, 16);
}

static void write_leb(kq_writer *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    kq_write_raw(w, tmp, n);
}

void kq_write_uvarint(kq_writer *w, uint32_t v)
{
    write_leb(w, v);
}

void kq_write_varint(kq_writer *w, int32_t v)
{
    uint32_t u = ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
    write_leb(w, u);
}

void kq_write_varlong(kq_writer *w, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    write_leb(w, u);
}

size_t kq_uvarint_size(uint32_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static bool slice_is_null(kq_slice s)
{
    return s.len < 0 || (s.ptr == NULL && s.len != 0) || (s.ptr == NULL);
}

void kq_write_string(kq_writer *w, kq_slice s)
{
    if (slice_is_null(s)) {
        kq_write_i16(w, -1);
        return;
    }
    if (s.len > KQ_STRING_LEN_MAX) {
        w->error = true;
        return;
    }
    kq_write_i16(w, (int16_t)s.len);
    kq_write_raw(w, s.ptr, (size_t)s.len);
}

static void write_compact_slice(kq_writer *w, kq_slice s)
{
    if (slice_is_null(s)) {
        kq_write_uvarint(w, 0);
        return;
    }
    kq_write_uvarint(w, (uint32_t)s.len + 1);
    kq_write_raw(w, s.ptr, (size_t)s.len);
}

void kq_write_compact_string(kq_writer *w, kq_slice s)
{
    if (!slice_is_null(s) && s.len > KQ_STRING_LEN_MAX) {
        w->error = true;
        return;
    }
    write_compact_slice(w, s);
}

void kq_write_cstring(kq_writer *w, const char *s)
{
    kq_write_string(w, kq_slice_cstr(s));
}

void kq_write_compact_cstring(kq_writer *w, const char *s)
{
    kq_write_compact_string(w, kq_slice_cstr(s));
}

void kq_write_bytes(kq_writer *w, kq_slice s)
{
    if (slice_is_null(s)) {
        kq_write_i32(w, -1);
        return;
    }
    kq_write_i32(w, s.len);
    kq_write_raw(w, s.ptr, (size_t)s.len);
}

void kq_write_compact_bytes(kq_writer *w, kq_slice s)
{
    write_compact_slice(w, s);
}

void kq_write_array_len(kq_writer *w, int32_t n)
{
    kq_write_i32(w, n < 0 ? -1 : n);
}

void kq_write_compact_array_len(kq_writer *w, int32_t n)
{
    kq_write_uvarint(w, n < 0 ? 0 : (uint32_t)n + 1);
}

void kq_write_empty_tagged_fields(kq_writer *w)
{
    kq_write_uvarint(w, 0);
}

void kq_writer_patch_i32(kq_writer *w, size_t pos, int32_t v)
{
    if (w->error)
        return;
    if (pos > w->len || w->len - pos < 4) {
        w->error = true;
        return;
    }
    put_u32(w->data + pos, (uint32_t)v);
}

kq_slice kq_slice_cstr(const char *s)
{
    kq_slice r = {NULL, -1};
    if (s) {
        size_t n = strlen(s);
        r.ptr = (const uint8_t *)s;
        r.len = n > INT32_MAX ? INT32_MAX : (int32_t)n;
    }
    return r;
}

bool kq_slice_eq_cstr(kq_slice s, const char *c)
{
    if (!c || s.len < 0 || (!s.ptr && s.len > 0))
        return false;
    size_t n = strlen(c);
    return n == (size_t)s.len && (n == 0 || memcmp(s.ptr, c, n) == 0);
}
