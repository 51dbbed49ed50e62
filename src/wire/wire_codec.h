/* Private helpers of the table-driven codec (wire_desc.c): pick the classic or compact
 * encoding from the `flex` flag, allocate decoded arrays from the arena, and
 * read/write tagged-field sections. All readers follow kq_reader's
 * sticky-error convention. */
#ifndef KQ_WIRE_CODEC_H
#define KQ_WIRE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"

#define WIRE_NULL_SLICE ((kq_slice){NULL, -1})

/* True for a null string/bytes value (len < 0 or no pointer). */
bool wire_slice_is_null(kq_slice s);

/* Nullable string / bytes (null = {NULL, -1}). */
kq_slice wire_read_nullable_string(kq_reader *r, bool flex);
/* Non-nullable string: a null on the wire fails the reader. */
kq_slice wire_read_string(kq_reader *r, bool flex);
kq_slice wire_read_nullable_bytes(kq_reader *r, bool flex);
/* Strings longer than INT16_MAX fail the writer in both encodings. */
void wire_write_nullable_string(kq_writer *w, bool flex, kq_slice s);
/* Non-nullable string: a null slice is written as "". */
void wire_write_string(kq_writer *w, bool flex, kq_slice s);
void wire_write_nullable_bytes(kq_writer *w, bool flex, kq_slice s);

/* Array count; -1 (null) is accepted only when nullable, else fails. */
int32_t wire_read_array_len(kq_reader *r, bool flex, bool nullable);
/* A negative count writes null when nullable, else an empty array. */
void wire_write_array_len(kq_writer *w, bool flex, bool nullable, int32_t n);

/* Allocates count zeroed elements of elem_size bytes, after checking that the
 * remaining input can hold count elements of at least min_wire bytes each.
 * count <= 0 returns NULL without failing. Fails the reader on any problem
 * (so callers check r->error). */
void *wire_alloc_array(kq_reader *r, kq_arena *arena, int32_t count, size_t elem_size,
                       size_t min_wire);



/* Tagged fields. Decoding:
 *   uint32_t n = wire_tags_begin(r);
 *   for (i = 0; i < n; i++) { if (!wire_tag_next(r, &tag, &sub)) break;
 *       decode known tags from sub, then wire_tag_end(r, &sub); }
 * wire_tags_begin returns the count (0 on error); wire_tag_next reads one tag
 * header, points *payload at its bytes and advances r past them, so unknown
 * tags need no handling. */
uint32_t wire_tags_begin(kq_reader *r);
bool wire_tag_next(kq_reader *r, uint32_t *tag, kq_reader *payload);
/* Propagates an error from the tag's payload reader to r. */
void wire_tag_end(kq_reader *r, const kq_reader *payload);

/* Encoding: write the tag count with kq_write_uvarint, then for each tag in
 * ascending order encode its value into the scratch writer from wire_tag_open
 * and pass it to wire_tag_close, which appends tag, size and bytes to w and
 * frees the scratch writer. */
void wire_tag_open(const kq_writer *w, kq_writer *scratch);
void wire_tag_close(kq_writer *w, uint32_t tag, kq_writer *scratch);

#endif
