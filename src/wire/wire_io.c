/* Version-aware field helpers shared by the per-API codecs. */
#include <string.h>

#include "wire_io.h"

bool wire_io_slice_is_null(kq_slice s)
{
    return s.ptr == NULL || s.len < 0;
}

kq_slice wire_io_empty_str(void)
{
    kq_slice s = {(const uint8_t *)"", 0};
    return s;
}

kq_slice wire_io_read_str(kq_reader *r, bool flex, bool nullable)
{
    kq_slice s = flex ? kq_read_compact_string(r) : kq_read_string(r);
    if (!r->error && !nullable && wire_io_slice_is_null(s))
        kq_reader_fail(r);
    return s;
}

kq_slice wire_io_read_bytes(kq_reader *r, bool flex, bool nullable)
{
    kq_slice s = flex ? kq_read_compact_bytes(r) : kq_read_bytes(r);
    if (!r->error && !nullable && wire_io_slice_is_null(s))
        kq_reader_fail(r);
    return s;
}

void wire_io_write_str(kq_writer *w, bool flex, bool nullable, kq_slice s)
{
    if (!nullable && wire_io_slice_is_null(s))
        s = wire_io_empty_str();
    if (!wire_io_slice_is_null(s) && s.len > INT16_MAX) {
        w->error = true;
        return;
    }
    if (flex)
        kq_write_compact_string(w, s);
    else
        kq_write_string(w, s);
}

void wire_io_write_bytes(kq_writer *w, bool flex, bool nullable, kq_slice s)
{
    if (!nullable && wire_io_slice_is_null(s))
        s = wire_io_empty_str();
    if (flex)
        kq_write_compact_bytes(w, s);
    else
        kq_write_bytes(w, s);
}

int32_t wire_io_read_count(kq_reader *r, bool flex, bool nullable)
{
    int32_t n = flex ? kq_read_compact_array_len(r) : kq_read_array_len(r);
    if (r->error)
        return 0;
    if (n < 0 && !nullable) {
        kq_reader_fail(r);
        return 0;
    }
    return n;
}

void wire_io_write_count(kq_writer *w, bool flex, bool nullable, int32_t n)
{
    if (n < 0)
        n = nullable ? -1 : 0;
    if (flex)
        kq_write_compact_array_len(w, n);
    else
        kq_write_array_len(w, n);
}

void *wire_io_alloc(kq_reader *r, kq_arena *arena, int32_t count, size_t elem)
{
    if (r->error || count <= 0)
        return NULL;
    if (elem != 0 && (size_t)count > SIZE_MAX / elem) {
        kq_reader_fail(r);
        return NULL;
    }
    void *p = kq_arena_alloc(arena, (size_t)count * elem);
    if (!p)
        kq_reader_fail(r);
    return p;
}

int32_t wire_io_read_i32_array(kq_reader *r, kq_arena *arena, bool flex, bool nullable,
                               int32_t **out)
{
    *out = NULL;
    int32_t n = wire_io_read_count(r, flex, nullable);
    int32_t *v = wire_io_alloc(r, arena, n, sizeof *v);
    for (int32_t i = 0; i < n && !r->error; i++)
        v[i] = kq_read_i32(r);
    if (r->error)
        return 0;
    *out = v;
    return n;
}

void wire_io_write_i32_array(kq_writer *w, bool flex, bool nullable, const int32_t *v,
                             int32_t n)
{
    wire_io_write_count(w, flex, nullable, n);
    for (int32_t i = 0; i < n; i++)
        kq_write_i32(w, v[i]);
}

bool wire_io_uuid_is_zero(kq_uuid u)
{
    static const uint8_t zero[16];
    return memcmp(u.bytes, zero, sizeof zero) == 0;
}

uint32_t wire_io_tags_begin(kq_reader *r)
{
    uint32_t n = kq_read_uvarint(r);
    if (r->error)
        return 0;
    /* every field needs at least a tag byte and a size byte */
    if (n > kq_reader_remaining(r) / 2) {
        kq_reader_fail(r);
        return 0;
    }
    return n;
}

bool wire_io_tag_next(kq_reader *r, uint32_t *tag, kq_reader *sub)
{
    *tag = kq_read_uvarint(r);
    uint32_t size = kq_read_uvarint(r);
    const uint8_t *p = kq_read_raw(r, size);
    if (r->error) {
        kq_reader_init(sub, NULL, 0);
        kq_reader_fail(sub);
        return false;
    }
    kq_reader_init(sub, p, size);
    return true;
}

void wire_io_tag_end(kq_reader *r, const kq_reader *sub)
{
    if (sub->error)
        kq_reader_fail(r);
}

void wire_io_skip_tags(kq_reader *r, bool flex)
{
    if (flex)
        kq_skip_tagged_fields(r);
}

void wire_io_write_no_tags(kq_writer *w, bool flex)
{
    if (flex)
        kq_write_empty_tagged_fields(w);
}

void wire_io_tag_open(const kq_writer *w, kq_writer *scratch)
{
    kq_writer_init(scratch, w->cap_max);
}

void wire_io_tag_close(kq_writer *w, uint32_t tag, kq_writer *scratch)
{
    if (scratch->error || scratch->len > UINT32_MAX) {
        w->error = true;
    } else {
        kq_write_uvarint(w, tag);
        kq_write_uvarint(w, (uint32_t)scratch->len);
        if (scratch->len)
            kq_write_raw(w, scratch->data, scratch->len);
    }
    kq_writer_free(scratch);
}

void wire_io_writer_fail(kq_writer *w)
{
    w->error = true;
}
