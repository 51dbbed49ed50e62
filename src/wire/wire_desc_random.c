/* Random values for any described message (the differential test against
 * Kafka's own message classes, and fuzz seeds): every field the version has
 * gets a value its type and nullability allow; tagged fields keep their
 * default half the time so that both "absent" and "present" are exercised. */
#include <string.h>

#include "kq/assert.h"
#include "wire_desc_internal.h"

typedef struct rnd {
    uint64_t s;
    wire_dctx c;
} rnd;

static uint64_t next(rnd *g) /* splitmix64 */
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int64_t rand_int(rnd *g)
{
    static const int64_t edges[] = {0, 1, -1, 2, 127, -128, 32767, -32768, INT32_MAX, INT32_MIN};
    uint64_t x = next(g);
    if (x % 3 == 0)
        return edges[(x >> 8) % (sizeof edges / sizeof edges[0])];
    return (int64_t)next(g);
}

static kq_slice rand_slice(rnd *g, bool text)
{
    int32_t len = (int32_t)(next(g) % 12);
    uint8_t *p = kq_arena_alloc(g->c.arena, (size_t)len + 1);
    KQ_ASSERT(p);
    for (int32_t i = 0; i < len; i++)
        p[i] = text ? (uint8_t)('a' + next(g) % 26) : (uint8_t)next(g);
    return (kq_slice){p, len};
}

static void rand_struct(rnd *g, const wire_struct_desc *d, void *base);

static void rand_value(rnd *g, const wire_field *f, uint8_t kind, void *p)
{
    int64_t v = rand_int(g);
    switch (kind) {
    case WIRE_K_BOOL: *(bool *)p = v & 1; break;
    case WIRE_K_I8: *(int8_t *)p = (int8_t)v; break;
    case WIRE_K_I16: *(int16_t *)p = (int16_t)v; break;
    case WIRE_K_U16: *(uint16_t *)p = (uint16_t)v; break;
    case WIRE_K_I32: *(int32_t *)p = (int32_t)v; break;
    case WIRE_K_I64: *(int64_t *)p = v; break;
    case WIRE_K_UUID:
        for (int i = 0; i < 16; i++)
            ((kq_uuid *)p)->bytes[i] = (uint8_t)next(g);
        break;
    case WIRE_K_STRING:
    case WIRE_K_BYTES:
    case WIRE_K_RECORDS:
    case WIRE_K_RECORDS_EXT:
        if (f && wire_field_nullable(f, g->c.version) && next(g) % 5 == 0)
            *(kq_slice *)p = (kq_slice){NULL, -1};
        else
            *(kq_slice *)p = rand_slice(g, kind == WIRE_K_STRING);
        break;
    default: KQ_ASSERT(!"wire: not a scalar kind");
    }
}

static void rand_array(rnd *g, const wire_field *f, void *base)
{
    int32_t *count = (int32_t *)((char *)base + f->count_off);
    void **ptr = (void **)wire_field_at(base, f);
    if (wire_field_nullable(f, g->c.version) && next(g) % 6 == 0) {
        *ptr = NULL;
        *count = -1;
        return;
    }
    int32_t n = (int32_t)(next(g) % 4);
    size_t size = f->sub ? f->sub->size
                         : (f->elem == WIRE_K_I32   ? sizeof(int32_t)
                            : f->elem == WIRE_K_I64 ? sizeof(int64_t)
                                                    : sizeof(kq_slice));
    char *e = n ? kq_arena_alloc(g->c.arena, (size_t)n * size) : NULL;
    KQ_ASSERT(!n || e);
    for (int32_t i = 0; i < n; i++) {
        if (f->sub)
            rand_struct(g, f->sub, e + (size_t)i * size);
        else
            rand_value(g, NULL, f->elem, e + (size_t)i * size);
    }
    *ptr = e;
    *count = n;
}

static void rand_field(rnd *g, const wire_field *f, void *base)
{
    switch (f->kind) {
    case WIRE_K_STRUCT: rand_struct(g, f->sub, wire_field_at(base, f)); break;
    case WIRE_K_INLINE: rand_struct(g, f->sub, base); break;
    case WIRE_K_ARRAY: rand_array(g, f, base); break;
    default: rand_value(g, f, f->kind, wire_field_at(base, f));
    }
    if (f->has_off1) { /* WTP, WFP: present when it differs from its default */
        bool *has = (bool *)((char *)base + f->has_off1 - 1);
        *has = true;
        if (f->kind == WIRE_K_STRUCT && wire_field_nullable(f, g->c.version))
            *has = next(g) % 4 != 0; /* a nullable struct: null one time in four */
        else
            *has = !wire_field_is_default(f, base, g->c.version);
    }
}

static void rand_struct(rnd *g, const wire_struct_desc *d, void *base)
{
    wire_struct_defaults(d, base);
    for (uint32_t i = 0; i < d->field_count; i++) {
        const wire_field *f = &d->fields[i];
        if (!wire_field_in(f, &g->c))
            continue;
        if (f->tag1 && next(g) % 2 == 0)
            continue; /* left at its default: not on the wire */
        rand_field(g, f, base);
    }
}

void wire_msg_random(const wire_msg_desc *m, int16_t version, uint64_t seed, kq_arena *arena,
                     void *out)
{
    memset(out, 0, m->body->size);
    rnd g = {seed, {version, version >= m->flex_from, arena}};
    rand_struct(&g, m->body, out);
}
