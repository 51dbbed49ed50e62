/* Shared by the table-driven codec's files (wire_desc.c: decode and encode;
 * wire_desc_test.c: random values and JSON): where a field sits and whether
 * a version has it. */
#ifndef KQ_WIRE_DESC_INTERNAL_H
#define KQ_WIRE_DESC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/wire_desc.h"

typedef struct wire_dctx {
    int16_t version;
    bool flex;
    kq_arena *arena;
} wire_dctx;

static inline void *wire_field_at(void *base, const wire_field *f)
{
    return (char *)base + f->off;
}

static inline const void *wire_cfield_at(const void *base, const wire_field *f)
{
    return (const char *)base + f->off;
}

/* The version has the field at all (tagged or not). */
static inline bool wire_field_in(const wire_field *f, const wire_dctx *c)
{
    if (c->version < f->v_min || c->version > f->v_max)
        return false;
    if (f->tag1)
        return c->flex && c->version >= f->tag_from;
    return true;
}

static inline bool wire_field_nullable(const wire_field *f, int16_t version)
{
    return f->nullable_from1 && version >= f->nullable_from1 - 1;
}

/* Kafka's name of the field (snake_case). */
static inline const char *wire_field_kname(const wire_field *f)
{
    return f->kname ? f->kname : f->name;
}

/* Whether the value equals the field's default (a tagged field is written
 * only when it does not). */
bool wire_field_is_default(const wire_field *f, const void *base, int16_t version);
/* Fills d->defaults (and its inner structs'). */
void wire_struct_fill_defaults(const wire_struct_desc *d);
/* Sets every field of the struct at base to its default. */
void wire_struct_defaults(const wire_struct_desc *d, void *base);

#endif
