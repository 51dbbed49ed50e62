/* Any described message as JSON (the differential test compares it with
 * Kafka's own message classes): every field the version has, tagged ones
 * included, keyed by Kafka's snake_case name, in description order. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kq/assert.h"
#include "wire_desc_internal.h"

static void put(kq_writer *w, const char *s)
{
    kq_write_raw(w, s, strlen(s));
}

static void put_base64(kq_writer *w, const uint8_t *p, size_t n, bool url)
{
    const char *std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *urls = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const char *a = url ? urls : std;
    put(w, "\"");
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char out[4] = {a[(v >> 18) & 63], a[(v >> 12) & 63], a[(v >> 6) & 63], a[v & 63]};
        size_t keep = n - i >= 3 ? 4 : n - i + 1;
        kq_write_raw(w, out, keep);
        if (!url)
            for (size_t k = keep; k < 4; k++)
                put(w, "=");
    }
    put(w, "\"");
}

static void put_string(kq_writer *w, kq_slice s)
{
    put(w, "\"");
    for (int32_t i = 0; i < s.len; i++) {
        uint8_t ch = s.ptr[i];
        char esc[8];
        if (ch == '"' || ch == '\\' || ch < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", ch);
            put(w, esc);
        } else {
            kq_write_raw(w, &ch, 1);
        }
    }
    put(w, "\"");
}

static void json_struct(kq_writer *w, const wire_dctx *c, const wire_struct_desc *d,
                        const void *base);

static void json_value(kq_writer *w, uint8_t kind, const void *p)
{
    char num[32];
    switch (kind) {
    case WIRE_K_BOOL: put(w, *(const bool *)p ? "true" : "false"); return;
    case WIRE_K_I8: snprintf(num, sizeof num, "%d", *(const int8_t *)p); break;
    case WIRE_K_I16: snprintf(num, sizeof num, "%d", *(const int16_t *)p); break;
    case WIRE_K_U16: snprintf(num, sizeof num, "%u", (unsigned)*(const uint16_t *)p); break;
    case WIRE_K_I32: snprintf(num, sizeof num, "%" PRId32, *(const int32_t *)p); break;
    case WIRE_K_I64: snprintf(num, sizeof num, "%" PRId64, *(const int64_t *)p); break;
    case WIRE_K_UUID: put_base64(w, ((const kq_uuid *)p)->bytes, 16, true); return;
    case WIRE_K_STRING:
    case WIRE_K_BYTES:
    case WIRE_K_RECORDS:
    case WIRE_K_RECORDS_EXT: {
        kq_slice s = *(const kq_slice *)p;
        if (!s.ptr || s.len < 0)
            put(w, s.len < 0 || kind != WIRE_K_STRING ? "null" : "\"\"");
        else if (kind == WIRE_K_STRING)
            put_string(w, s);
        else
            put_base64(w, s.ptr, (size_t)s.len, false);
        return;
    }
    default: KQ_ASSERT(!"wire: not a scalar kind");
    }
    put(w, num);
}

static void json_array(kq_writer *w, const wire_dctx *c, const wire_field *f, const void *base)
{
    const char *e = *(const void *const *)wire_cfield_at(base, f);
    int32_t n = *(const int32_t *)((const char *)base + f->count_off);
    if (n < 0) {
        put(w, "null");
        return;
    }
    size_t size = f->sub ? f->sub->size
                         : (f->elem == WIRE_K_I32   ? sizeof(int32_t)
                            : f->elem == WIRE_K_I64 ? sizeof(int64_t)
                                                    : sizeof(kq_slice));
    put(w, "[");
    for (int32_t i = 0; e && i < n; i++) {
        if (i)
            put(w, ",");
        if (f->sub)
            json_struct(w, c, f->sub, e + (size_t)i * size);
        else
            json_value(w, f->elem, e + (size_t)i * size);
    }
    put(w, "]");
}

static void json_struct(kq_writer *w, const wire_dctx *c, const wire_struct_desc *d,
                        const void *base)
{
    put(w, "{");
    bool first = true;
    for (uint32_t i = 0; i < d->field_count; i++) {
        const wire_field *f = &d->fields[i];
        if (!wire_field_in(f, c))
            continue;
        put(w, first ? "\"" : ",\"");
        first = false;
        put(w, wire_field_kname(f));
        put(w, "\":");
        if (f->kind == WIRE_K_STRUCT && f->has_off1 && wire_field_nullable(f, c->version) &&
            !*(const bool *)((const char *)base + f->has_off1 - 1))
            put(w, "null"); /* a nullable struct left null */
        else if (f->kind == WIRE_K_STRUCT)
            json_struct(w, c, f->sub, wire_cfield_at(base, f));
        else if (f->kind == WIRE_K_INLINE)
            json_struct(w, c, f->sub, base);
        else if (f->kind == WIRE_K_ARRAY)
            json_array(w, c, f, base);
        else
            json_value(w, f->kind, wire_cfield_at(base, f));
    }
    put(w, "}");
}

void wire_msg_json(const wire_msg_desc *m, int16_t version, const void *in, kq_writer *out)
{
    wire_dctx c = {version, version >= m->flex_from, NULL};
    json_struct(out, &c, m->body, in);
}
