/* The one table-driven codec: reads and writes any message described by a
 * field list (include/kq/wire_desc.h). Classic or compact encodings follow
 * the message's first flexible version; every struct ends with a tagged-field
 * section in flexible versions, tagged fields written in ascending tag order
 * and only when they differ from their defaults (Kafka's rule); unknown tags
 * are skipped. */
#include <stddef.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/uuid.h"
#include "wire_codec.h"
#include "wire_desc_internal.h"

/* A struct never has more tagged fields than this (Kafka's largest has 4). */
#define WIRE_TAGGED_PER_STRUCT_MAX 16

static void read_struct(kq_reader *r, const wire_dctx *c, const wire_struct_desc *d, void *base);
static void write_struct(kq_writer *w, const wire_dctx *c, const wire_struct_desc *d,
                         const void *base);

/* ---- defaults ---- */

static void field_default(const wire_field *f, void *base)
{
    void *p = wire_field_at(base, f);
    if (f->has_off1) /* WTP, WFP: absent */
        *(bool *)((char *)base + f->has_off1 - 1) = false;
    switch (f->kind) {
    case WIRE_K_BOOL: *(bool *)p = f->def != 0; break;
    case WIRE_K_I8: *(int8_t *)p = (int8_t)f->def; break;
    case WIRE_K_I16: *(int16_t *)p = (int16_t)f->def; break;
    case WIRE_K_U16: *(uint16_t *)p = (uint16_t)f->def; break;
    case WIRE_K_I32: *(int32_t *)p = (int32_t)f->def; break;
    case WIRE_K_I64: *(int64_t *)p = f->def; break;
    case WIRE_K_UUID: memset(p, 0, sizeof(kq_uuid)); break;
    case WIRE_K_STRING:
    case WIRE_K_BYTES:
    case WIRE_K_RECORDS:
    case WIRE_K_RECORDS_EXT:
        *(kq_slice *)p = f->default_empty ? kq_slice_cstr("") : WIRE_NULL_SLICE;
        break;
    case WIRE_K_STRUCT:
        wire_struct_defaults(f->sub, p);
        break;
    case WIRE_K_INLINE: wire_struct_defaults(f->sub, base); break;
    case WIRE_K_ARRAY:
        *(void **)p = NULL;
        *(int32_t *)((char *)base + f->count_off) = 0;
        break;
    default: KQ_ASSERT(!"wire: unknown field kind");
    }
}

/* Fills every struct's image of defaults, once, before main: decoding then
 * starts from a copy rather than a pass over the fields. */
void wire_struct_fill_defaults(const wire_struct_desc *d)
{
    memset(d->defaults, 0, d->size);
    wire_struct_defaults(d, d->defaults);
    for (uint32_t i = 0; i < d->field_count; i++)
        if (d->fields[i].sub && d->fields[i].sub->size > 0)
            wire_struct_fill_defaults(d->fields[i].sub);
}

void wire_struct_defaults(const wire_struct_desc *d, void *base)
{
    for (uint32_t i = 0; i < d->field_count; i++)
        field_default(&d->fields[i], base);
}

static bool struct_is_default(const wire_struct_desc *d, const void *base, int16_t version)
{
    for (uint32_t i = 0; i < d->field_count; i++)
        if (!wire_field_is_default(&d->fields[i], base, version))
            return false;
    return true;
}

bool wire_field_is_default(const wire_field *f, const void *base, int16_t version)
{
    const void *p = wire_cfield_at(base, f);
    if (f->has_off1 && !*(const bool *)((const char *)base + f->has_off1 - 1))
        return true; /* WTP, WFP: not set */
    if (f->kind == WIRE_K_STRUCT && wire_field_nullable(f, version))
        return false; /* a nullable struct's default is null: set is not default */
    switch (f->kind) {
    case WIRE_K_BOOL: return *(const bool *)p == (f->def != 0);
    case WIRE_K_I8: return *(const int8_t *)p == (int8_t)f->def;
    case WIRE_K_I16: return *(const int16_t *)p == (int16_t)f->def;
    case WIRE_K_U16: return *(const uint16_t *)p == (uint16_t)f->def;
    case WIRE_K_I32: return *(const int32_t *)p == (int32_t)f->def;
    case WIRE_K_I64: return *(const int64_t *)p == f->def;
    case WIRE_K_UUID: return kq_uuid_is_zero(p);
    case WIRE_K_STRING:
    case WIRE_K_BYTES:
    case WIRE_K_RECORDS:
    case WIRE_K_RECORDS_EXT: {
        kq_slice s = *(const kq_slice *)p;
        /* Kafka's default: null for a nullable field, else empty. */
        if (wire_field_nullable(f, version) && !f->default_empty)
            return wire_slice_is_null(s);
        return wire_slice_is_null(s) || s.len == 0;
    }
    case WIRE_K_STRUCT: return struct_is_default(f->sub, p, version);
    case WIRE_K_INLINE: return struct_is_default(f->sub, base, version);
    case WIRE_K_ARRAY: return *(const int32_t *)((const char *)base + f->count_off) <= 0;
    default: KQ_ASSERT(!"wire: unknown field kind");
    }
    return true;
}

/* ---- decode ---- */

static kq_slice read_slice(kq_reader *r, const wire_dctx *c, const wire_field *f)
{
    bool nullable = wire_field_nullable(f, c->version);
    if (f->kind == WIRE_K_STRING)
        return nullable ? wire_read_nullable_string(r, c->flex) : wire_read_string(r, c->flex);
    kq_slice s = wire_read_nullable_bytes(r, c->flex);
    if (!nullable && wire_slice_is_null(s))
        kq_reader_fail(r);
    return s;
}

static void read_scalar(kq_reader *r, const wire_dctx *c, const wire_field *f, uint8_t kind,
                        void *p)
{
    switch (kind) {
    case WIRE_K_BOOL: *(bool *)p = kq_read_bool(r); break;
    case WIRE_K_I8: *(int8_t *)p = kq_read_i8(r); break;
    case WIRE_K_I16: *(int16_t *)p = kq_read_i16(r); break;
    case WIRE_K_U16: *(uint16_t *)p = kq_read_u16(r); break;
    case WIRE_K_I32: *(int32_t *)p = kq_read_i32(r); break;
    case WIRE_K_I64: *(int64_t *)p = kq_read_i64(r); break;
    case WIRE_K_UUID: *(kq_uuid *)p = kq_read_uuid(r); break;
    case WIRE_K_STRING:
    case WIRE_K_BYTES:
    case WIRE_K_RECORDS:
    case WIRE_K_RECORDS_EXT: *(kq_slice *)p = read_slice(r, c, f); break;
    default: KQ_ASSERT(!"wire: not a scalar kind");
    }
}

static size_t kind_size(uint8_t kind)
{
    switch (kind) {
    case WIRE_K_I32: return sizeof(int32_t);
    case WIRE_K_I64: return sizeof(int64_t);
    case WIRE_K_STRING: return sizeof(kq_slice);
    default: KQ_ASSERT(!"wire: unsupported array element kind");
    }
    return 0;
}

static void read_array(kq_reader *r, const wire_dctx *c, const wire_field *f, void *base)
{
    int32_t n = wire_read_array_len(r, c->flex, wire_field_nullable(f, c->version));
    size_t elem_size = f->sub ? f->sub->size : kind_size(f->elem);
    /* a scalar element takes its size on the wire (a string at least 1) */
    size_t min_wire = f->sub || f->elem == WIRE_K_STRING ? 1 : elem_size;
    char *elems = wire_alloc_array(r, c->arena, n, elem_size, min_wire);
    *(void **)wire_field_at(base, f) = elems;
    *(int32_t *)((char *)base + f->count_off) = r->error ? 0 : n;
    /* A string element is never null (Kafka's []string). */
    wire_field strf = {.kind = WIRE_K_STRING};
    for (int32_t i = 0; i < n && !r->error; i++) {
        void *e = elems + (size_t)i * elem_size;
        if (f->sub) {
            /* fields the version lacks get their defaults, as at the top */
            memcpy(e, f->sub->defaults, elem_size);
            read_struct(r, c, f->sub, e);
        } else {
            read_scalar(r, c, &strf, f->elem, e);
        }
    }
    if (r->error) {
        *(void **)wire_field_at(base, f) = NULL;
        *(int32_t *)((char *)base + f->count_off) = 0;
    }
}

/* A nullable struct (WTP with WIRE_NULLABLE): Kafka writes the byte -1 for
 * null, else 1 and the struct. Null leaves the presence flag false. */
static void read_nullable_struct(kq_reader *r, const wire_dctx *c, const wire_field *f,
                                 void *base)
{
    bool *has = (bool *)((char *)base + f->has_off1 - 1);
    *has = kq_read_i8(r) >= 0;
    if (*has && !r->error)
        read_struct(r, c, f->sub, wire_field_at(base, f));
}

static void read_field(kq_reader *r, const wire_dctx *c, const wire_field *f, void *base)
{
    if (f->kind == WIRE_K_STRUCT && f->has_off1 && wire_field_nullable(f, c->version)) {
        read_nullable_struct(r, c, f, base);
        return;
    }
    if (f->has_off1) /* WTP, WFP: on the wire */
        *(bool *)((char *)base + f->has_off1 - 1) = true;
    switch (f->kind) {
    case WIRE_K_STRUCT: read_struct(r, c, f->sub, wire_field_at(base, f)); break;
    case WIRE_K_INLINE: read_struct(r, c, f->sub, base); break;
    case WIRE_K_ARRAY: read_array(r, c, f, base); break;
    default: read_scalar(r, c, f, f->kind, wire_field_at(base, f));
    }
}

static const wire_field *find_tag(const wire_struct_desc *d, const wire_dctx *c, uint32_t tag)
{
    for (uint32_t i = 0; i < d->field_count; i++) {
        const wire_field *f = &d->fields[i];
        if (f->tag1 && (uint32_t)(f->tag1 - 1) == tag && wire_field_in(f, c))
            return f;
    }
    return NULL;
}

static void read_tags(kq_reader *r, const wire_dctx *c, const wire_struct_desc *d, void *base)
{
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n && !r->error; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        const wire_field *f = find_tag(d, c, tag);
        if (f)
            read_field(&sub, c, f, base);
        wire_tag_end(r, &sub);
    }
}

/* The fixed-width kinds, read in place: most fields of a Produce or a Fetch
 * are these, and a call per field costs as much as the read. Returns false
 * for any other kind. */
static inline bool read_fixed(kq_reader *r, uint8_t kind, void *p)
{
    static const uint8_t width[] = {[WIRE_K_BOOL] = 1, [WIRE_K_I8] = 1, [WIRE_K_I16] = 2,
                                    [WIRE_K_U16] = 2,  [WIRE_K_I32] = 4, [WIRE_K_I64] = 8};
    size_t n = kind < sizeof width ? width[kind] : 0;
    if (n == 0)
        return false;
    const uint8_t *b = kq_read_raw(r, n);
    if (!b)
        return true;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | b[i];
    switch (kind) {
    case WIRE_K_BOOL: *(bool *)p = v != 0; break;
    case WIRE_K_I8: *(int8_t *)p = (int8_t)v; break;
    case WIRE_K_I16: *(int16_t *)p = (int16_t)v; break;
    case WIRE_K_U16: *(uint16_t *)p = (uint16_t)v; break;
    case WIRE_K_I32: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = (int64_t)v; break;
    }
    return true;
}

static void read_struct(kq_reader *r, const wire_dctx *c, const wire_struct_desc *d, void *base)
{
    for (uint32_t i = 0; i < d->field_count && !r->error; i++) {
        const wire_field *f = &d->fields[i];
        if (f->tag1 || c->version < f->v_min || c->version > f->v_max)
            continue;
        if (!read_fixed(r, f->kind, (char *)base + f->off))
            read_field(r, c, f, base);
    }
    if (c->flex && !r->error)
        read_tags(r, c, d, base);
}

int wire_msg_decode(const wire_msg_desc *m, kq_reader *r, int16_t version, kq_arena *arena,
                    void *out)
{
    if (version < m->v_min || version > m->v_max) {
        memset(out, 0, m->body->size);
        kq_reader_fail(r);
        return -1;
    }
    memcpy(out, m->body->defaults, m->body->size);
    wire_dctx c = {version, version >= m->flex_from, arena};
    read_struct(r, &c, m->body, out);
    return r->error ? -1 : 0;
}

/* ---- encode ---- */

static void write_slice(kq_writer *w, const wire_dctx *c, const wire_field *f, const void *base,
                        kq_slice s)
{
    if (f->kind == WIRE_K_STRING) {
        if (wire_field_nullable(f, c->version))
            wire_write_nullable_string(w, c->flex, s);
        else
            wire_write_string(w, c->flex, s);
        return;
    }
    size_t *const *ext = f->kind == WIRE_K_RECORDS_EXT
                             ? (size_t *const *)((const char *)base + f->ext_off)
                             : NULL;
    if (ext && *ext) {
        /* A streamed answer: the length here, the bytes sent from the log. */
        if (c->flex)
            kq_write_uvarint(w, (uint32_t)s.len + 1);
        else
            kq_write_i32(w, s.len);
        **ext = w->len;
        return;
    }
    if (!wire_field_nullable(f, c->version) && wire_slice_is_null(s))
        s = kq_slice_cstr("");
    wire_write_nullable_bytes(w, c->flex, s);
}

static void write_scalar(kq_writer *w, const wire_dctx *c, const wire_field *f, uint8_t kind,
                         const void *base, const void *p)
{
    switch (kind) {
    case WIRE_K_BOOL: kq_write_bool(w, *(const bool *)p); break;
    case WIRE_K_I8: kq_write_i8(w, *(const int8_t *)p); break;
    case WIRE_K_I16: kq_write_i16(w, *(const int16_t *)p); break;
    case WIRE_K_U16: kq_write_u16(w, *(const uint16_t *)p); break;
    case WIRE_K_I32: kq_write_i32(w, *(const int32_t *)p); break;
    case WIRE_K_I64: kq_write_i64(w, *(const int64_t *)p); break;
    case WIRE_K_UUID: kq_write_uuid(w, *(const kq_uuid *)p); break;
    case WIRE_K_STRING:
    case WIRE_K_BYTES:
    case WIRE_K_RECORDS:
    case WIRE_K_RECORDS_EXT: write_slice(w, c, f, base, *(const kq_slice *)p); break;
    default: KQ_ASSERT(!"wire: not a scalar kind");
    }
}

static void write_array(kq_writer *w, const wire_dctx *c, const wire_field *f, const void *base)
{
    const char *elems = *(const void *const *)wire_cfield_at(base, f);
    int32_t n = *(const int32_t *)((const char *)base + f->count_off);
    if (!elems && n > 0)
        n = 0; /* a NULL array is written empty */
    wire_write_array_len(w, c->flex, wire_field_nullable(f, c->version), n);
    size_t elem_size = f->sub ? f->sub->size : kind_size(f->elem);
    wire_field strf = {.kind = WIRE_K_STRING};
    for (int32_t i = 0; i < n; i++) {
        const void *e = elems + (size_t)i * elem_size;
        if (f->sub)
            write_struct(w, c, f->sub, e);
        else
            write_scalar(w, c, &strf, f->elem, e, e);
    }
}

static void write_field(kq_writer *w, const wire_dctx *c, const wire_field *f, const void *base)
{
    if (f->kind == WIRE_K_STRUCT && f->has_off1 && wire_field_nullable(f, c->version)) {
        bool has = *(const bool *)((const char *)base + f->has_off1 - 1);
        kq_write_i8(w, has ? 1 : -1); /* as read_nullable_struct */
        if (has)
            write_struct(w, c, f->sub, wire_cfield_at(base, f));
        return;
    }
    switch (f->kind) {
    case WIRE_K_STRUCT: write_struct(w, c, f->sub, wire_cfield_at(base, f)); break;
    case WIRE_K_INLINE: write_struct(w, c, f->sub, base); break;
    case WIRE_K_ARRAY: write_array(w, c, f, base); break;
    default: write_scalar(w, c, f, f->kind, base, wire_cfield_at(base, f));
    }
}

static void write_tags(kq_writer *w, const wire_dctx *c, const wire_struct_desc *d,
                       const void *base)
{
    const wire_field *todo[WIRE_TAGGED_PER_STRUCT_MAX];
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->field_count; i++) {
        const wire_field *f = &d->fields[i];
        if (!f->tag1 || !wire_field_in(f, c) || wire_field_is_default(f, base, c->version))
            continue;
        KQ_ASSERT(n < WIRE_TAGGED_PER_STRUCT_MAX);
        uint32_t j = n++;
        for (; j > 0 && todo[j - 1]->tag1 > f->tag1; j--) /* ascending tags */
            todo[j] = todo[j - 1];
        todo[j] = f;
    }
    kq_write_uvarint(w, n);
    for (uint32_t i = 0; i < n; i++) {
        kq_writer s;
        wire_tag_open(w, &s);
        write_field(&s, c, todo[i], base);
        wire_tag_close(w, (uint32_t)(todo[i]->tag1 - 1), &s);
    }
}

/* The fixed-width kinds, written in place (as read_fixed). Returns false for
 * any other kind. */
static inline bool write_fixed(kq_writer *w, uint8_t kind, const void *p)
{
    uint64_t v;
    size_t n;
    switch (kind) {
    case WIRE_K_BOOL: v = *(const bool *)p ? 1 : 0, n = 1; break;
    case WIRE_K_I8: v = (uint8_t) * (const int8_t *)p, n = 1; break;
    case WIRE_K_I16: v = (uint16_t) * (const int16_t *)p, n = 2; break;
    case WIRE_K_U16: v = *(const uint16_t *)p, n = 2; break;
    case WIRE_K_I32: v = (uint32_t) * (const int32_t *)p, n = 4; break;
    case WIRE_K_I64: v = (uint64_t) * (const int64_t *)p, n = 8; break;
    default: return false;
    }
    uint8_t *b = kq_writer_reserve(w, n);
    for (size_t i = 0; b && i < n; i++)
        b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    return true;
}

static void write_struct(kq_writer *w, const wire_dctx *c, const wire_struct_desc *d,
                         const void *base)
{
    for (uint32_t i = 0; i < d->field_count; i++) {
        const wire_field *f = &d->fields[i];
        if (f->tag1 || c->version < f->v_min || c->version > f->v_max)
            continue;
        if (!write_fixed(w, f->kind, (const char *)base + f->off))
            write_field(w, c, f, base);
    }
    if (c->flex)
        write_tags(w, c, d, base);
}

void wire_msg_encode(const wire_msg_desc *m, kq_writer *w, int16_t version, const void *in)
{
    if (!wire_msg_encodes(m, version)) {
        w->error = true;
        return;
    }
    wire_dctx c = {version, version >= m->flex_from, NULL};
    write_struct(w, &c, m->body, in);
}

/* Largest response struct answered by wire_error_response_encode (checked). */
#define WIRE_ERROR_RESPONSE_BYTES_MAX 512

void wire_error_response_encode(kq_writer *w, int16_t api_key, int16_t version, int16_t error)
{
    const wire_msg_desc *m = wire_msg_find(api_key, true);
    const wire_field *code = NULL;
    for (uint32_t i = 0; m && i < m->body->field_count; i++)
        if (m->body->fields[i].kind == WIRE_K_I16 &&
            strcmp(m->body->fields[i].name, "error_code") == 0)
            code = &m->body->fields[i];
    if (!code || m->body->size > WIRE_ERROR_RESPONSE_BYTES_MAX) {
        w->error = true;
        return;
    }
    _Alignas(max_align_t) unsigned char body[WIRE_ERROR_RESPONSE_BYTES_MAX];
    memcpy(body, m->body->defaults, m->body->size);
    *(int16_t *)(body + code->off) = error;
    wire_msg_encode(m, w, version, body);
}
