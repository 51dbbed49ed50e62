/* Private helpers shared by the per-API codecs: pick the classic or compact
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
bool wire_uuid_is_zero(kq_uuid u);

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
/* A topic named by string until the version its API names topics by id
 * (then the name is null and the id read; the id is zero before). */
void wire_read_topic_ref(kq_reader *r, bool flex, bool by_id, kq_slice *name, kq_uuid *id);
void wire_write_topic_ref(kq_writer *w, bool flex, bool by_id, kq_slice name, kq_uuid id);

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

/* Non-nullable []int32. Returns the elements and sets *count (NULL and 0
 * on error). Writing a NULL array writes an empty one. */
int32_t *wire_read_i32_array(kq_reader *r, kq_arena *arena, bool flex, int32_t *count);
void wire_write_i32_array(kq_writer *w, bool flex, const int32_t *v, int32_t n);

/* Non-nullable []string, borrowed from the input; the same conventions as
 * the []int32 pair (a null string element fails the reader). */
kq_slice *wire_read_string_array(kq_reader *r, kq_arena *arena, bool flex, int32_t *count);
void wire_write_string_array(kq_writer *w, bool flex, const kq_slice *v, int32_t n);

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
/* Skips the section when flex; no-op otherwise. */
void wire_read_tags_flex(kq_reader *r, bool flex);
/* Writes an empty section when flex. */
void wire_write_tags_flex(kq_writer *w, bool flex);

/* Encoding: write the tag count with kq_write_uvarint, then for each tag in
 * ascending order encode its value into the scratch writer from wire_tag_open
 * and pass it to wire_tag_close, which appends tag, size and bytes to w and
 * frees the scratch writer. */
void wire_tag_open(const kq_writer *w, kq_writer *scratch);
void wire_tag_close(kq_writer *w, uint32_t tag, kq_writer *scratch);

#endif
