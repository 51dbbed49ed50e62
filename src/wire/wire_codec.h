/* Private helpers shared by the per-API codecs: pick the classic or compact
 * encoding from the `flex` flag, allocate decoded arrays from the arena, and
 * read/write tagged-field sections. */
#ifndef KQ_WIRE_CODEC_H
#define KQ_WIRE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"

/* Nullable string / bytes (null = {NULL, -1}). */
kq_slice wire_read_nullable_string(kq_reader *r, bool flex);
/* Non-nullable string: a null on the wire fails the reader. */
kq_slice wire_read_string(kq_reader *r, bool flex);
kq_slice wire_read_nullable_bytes(kq_reader *r, bool flex);
void wire_write_nullable_string(kq_writer *w, bool flex, kq_slice s);
/* Non-nullable string: a null slice is written as "". */
void wire_write_string(kq_writer *w, bool flex, kq_slice s);
void wire_write_nullable_bytes(kq_writer *w, bool flex, kq_slice s);

/* Array count; -1 (null) is accepted only when nullable, else fails. */
int32_t wire_read_array_len(kq_reader *r, bool flex, bool nullable);
/* Writes a count; for a non-nullable array a negative count is written as 0. */
void wire_write_array_len(kq_writer *w, bool flex, bool nullable, int32_t n);

/* Allocates count elements of elem_size bytes, after checking that the
 * remaining input can hold count elements of at least min_wire bytes each.
 * count <= 0 returns NULL without failing. Fails the reader on any problem
 * (so callers check r->error). */
void *wire_alloc_array(kq_reader *r, kq_arena *arena, int32_t count, size_t elem_size,
                       size_t min_wire);

/* Tagged fields. wire_tags_begin returns the count (0 for non-flexible or on
 * error); wire_tag_next reads one tag header, points *payload at its bytes and
 * advances r past them. */
uint32_t wire_tags_begin(kq_reader *r);
bool wire_tag_next(kq_reader *r, uint32_t *tag, kq_reader *payload);
/* Skips the section when flex; no-op otherwise. */
void wire_read_tags_flex(kq_reader *r, bool flex);
/* Writes an empty section when flex. */
void wire_write_tags_flex(kq_writer *w, bool flex);
/* Writes tag, size and the payload accumulated in `payload`. */
void wire_write_tag(kq_writer *w, uint32_t tag, const kq_writer *payload);

#endif
