/* Private helpers shared by the per-API codecs: version-dependent (classic vs
 * compact) strings, bytes and array counts, arena-backed arrays and tagged
 * fields. All readers follow kq_reader's sticky-error convention. */
#ifndef KQ_WIRE_IO_H
#define KQ_WIRE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"

/* Strings and bytes; a null value in a non-nullable field fails the reader. */
kq_slice wire_io_read_str(kq_reader *r, bool flex, bool nullable);
kq_slice wire_io_read_bytes(kq_reader *r, bool flex, bool nullable);
/* Non-nullable fields write a null slice as empty. */
void wire_io_write_str(kq_writer *w, bool flex, bool nullable, kq_slice s);
void wire_io_write_bytes(kq_writer *w, bool flex, bool nullable, kq_slice s);

bool wire_io_slice_is_null(kq_slice s);
/* The non-null empty string, used as a field default. */
kq_slice wire_io_empty_str(void);

/* Array count: -1 for null (fails the reader unless nullable). */
int32_t wire_io_read_count(kq_reader *r, bool flex, bool nullable);
/* Negative n writes null when nullable, else an empty array. */
void wire_io_write_count(kq_writer *w, bool flex, bool nullable, int32_t n);
/* Zeroed array of count elements from the arena; NULL for count <= 0. An
 * allocation failure fails the reader. */
void *wire_io_alloc(kq_reader *r, kq_arena *arena, int32_t count, size_t elem);

/* []int32 arrays. Returns the count (-1 null) and sets *out. */
int32_t wire_io_read_i32_array(kq_reader *r, kq_arena *arena, bool flex, bool nullable,
                               int32_t **out);
void wire_io_write_i32_array(kq_writer *w, bool flex, bool nullable, const int32_t *v,
                             int32_t n);

bool wire_io_uuid_is_zero(kq_uuid u);

/* Tagged-field section. Decoding:
 *   uint32_t n = wire_io_tags_begin(r);
 *   for (i = 0; i < n; i++) { if (!wire_io_tag_next(r, &tag, &sub)) break; ...
 *       decode known tags from sub, then wire_io_tag_end(r, &sub); }
 * Unknown tags need no handling: their bytes are already consumed. */
uint32_t wire_io_tags_begin(kq_reader *r);
bool wire_io_tag_next(kq_reader *r, uint32_t *tag, kq_reader *sub);
/* Propagates an error from the tag's sub-reader to r. */
void wire_io_tag_end(kq_reader *r, const kq_reader *sub);
/* Skips the whole section when flex (no-op otherwise). */
void wire_io_skip_tags(kq_reader *r, bool flex);
/* Writes an empty section when flex (no-op otherwise). */
void wire_io_write_no_tags(kq_writer *w, bool flex);

/* Encoding a tag: write the count with kq_write_uvarint, then for each tag in
 * ascending order encode its value into a scratch writer from
 * wire_io_tag_open and hand it to wire_io_tag_close, which appends tag, size
 * and bytes to w and frees the scratch writer. */
void wire_io_tag_open(const kq_writer *w, kq_writer *scratch);
void wire_io_tag_close(kq_writer *w, uint32_t tag, kq_writer *scratch);

/* Marks an encode that cannot be represented (e.g. unsupported version). */
void wire_io_writer_fail(kq_writer *w);

#endif
