/* Shared encoding helpers for the per-API codecs. */
#include <string.h>

#include "wire_codec.h"

bool wire_slice_is_null(kq_slice s)
{
    return s.ptr == NULL || s.len < 0;
}

kq_slice wire_read_nullable_string(kq_reader *r, bool flex)
{
    return flex ? kq_read_compact_string(r) : kq_read_string(r);
}

kq_slice wire_read_string(kq_reader *r, bool flex)
{
    kq_slice s = wire_read_nullable_string(r, flex);
    if (s.len < 0)
        kq_reader_fail(r);
    return s;
}

kq_slice wire_read_nullable_bytes(kq_reader *r, bool flex)
{
    return flex ? kq_read_compact_bytes(r) : kq_read_bytes(r);
}

void wire_write_nullable_string(kq_writer *w, bool flex, kq_slice s)
{
    if (!wire_slice_is_null(s) && s.len > KQ_STRING_LEN_MAX) {
        w->error = true;
        return;
    }
    if (flex)
        kq_write_compact_string(w, s);
    else
        kq_write_string(w, s);
}

void wire_write_string(kq_writer *w, bool flex, kq_slice s)
{
    if (wire_slice_is_null(s))
        s = kq_slice_cstr("");
    wire_write_nullable_string(w, flex, s);
}

void wire_write_nullable_bytes(kq_writer *w, bool flex, kq_slice s)
{
    if (flex)
        kq_write_compact_bytes(w, s);
    else
        kq_write_bytes(w, s);
}

int32_t wire_read_array_len(kq_reader *r, bool flex, bool nullable)
{
    int32_t n = flex ? kq_read_compact_array_len(r) : kq_read_array_len(r);
    if (n < 0 && !nullable)
        kq_reader_fail(r);
    return r->error ? 0 : n;
}

void wire_write_array_len(kq_writer *w, bool flex, bool nullable, int32_t n)
{
    if (n < 0 && !nullable)
        n = 0;
    if (flex)
        kq_write_compact_array_len(w, n);
    else
        kq_write_array_len(w, n);
}

void *wire_alloc_array(kq_reader *r, kq_arena *arena, int32_t count, size_t elem_size,
                       size_t min_wire)
{
    if (r->error || count <= 0)
        return NULL;
    if (min_wire == 0)
        min_wire = 1;
    if ((size_t)count > kq_reader_remaining(r) / min_wire ||
        (elem_size != 0 && (size_t)count > SIZE_MAX / elem_size)) {
        kq_reader_fail(r);
        return NULL;
    }
    void *p = kq_arena_alloc(arena, (size_t)count * elem_size);
    if (!p)
        kq_reader_fail(r);
    return p;
}





uint32_t wire_tags_begin(kq_reader *r)
{
    uint32_t n = kq_read_uvarint(r);
    /* every field needs at least a tag byte and a size byte */
    if (!r->error && n > kq_reader_remaining(r) / 2)
        kq_reader_fail(r);
    return r->error ? 0 : n;
}

bool wire_tag_next(kq_reader *r, uint32_t *tag, kq_reader *payload)
{
    *tag = kq_read_uvarint(r);
    uint32_t size = kq_read_uvarint(r);
    const uint8_t *p = kq_read_raw(r, size);
    if (r->error) {
        kq_reader_init(payload, NULL, 0);
        kq_reader_fail(payload);
        return false;
    }
    kq_reader_init(payload, p, size);
    return true;
}

void wire_tag_end(kq_reader *r, const kq_reader *payload)
{
    if (payload->error)
        kq_reader_fail(r);
}



void wire_tag_open(const kq_writer *w, kq_writer *scratch)
{
    kq_writer_init(scratch, w->cap_max);
}

void wire_tag_close(kq_writer *w, uint32_t tag, kq_writer *scratch)
{
    if (scratch->error || scratch->len > UINT32_MAX) {
        w->error = true;
    } else {
        kq_write_uvarint(w, tag);
        kq_write_uvarint(w, (uint32_t)scratch->len);
        kq_write_raw(w, scratch->data, scratch->len);
    }
    kq_writer_free(scratch);
}


