/* Bounded big-endian byte reader and growable writer for the Kafka wire and
 * disk formats. The reader never reads past its length: the first short or
 * malformed read sets a sticky error and every later read returns zero. */
#ifndef KQ_BUF_H
#define KQ_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A string or byte slice borrowed from a buffer; len == -1 means null. */
typedef struct kq_slice {
    const uint8_t *ptr;
    int32_t len;
} kq_slice;

/* Longest string (not bytes) in either encoding: Kafka's readers and
 * writers refuse longer ones, as the classic encoding's int16 length must. */
#define KQ_STRING_LEN_MAX INT16_MAX

typedef struct kq_uuid {
    uint8_t bytes[16];
} kq_uuid;

typedef struct kq_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    bool error;
} kq_reader;

void kq_reader_init(kq_reader *r, const void *data, size_t len);
size_t kq_reader_remaining(const kq_reader *r);
/* Marks the reader failed (for a semantic error found by the caller). */
void kq_reader_fail(kq_reader *r);

int8_t kq_read_i8(kq_reader *r);
int16_t kq_read_i16(kq_reader *r);
uint16_t kq_read_u16(kq_reader *r);
int32_t kq_read_i32(kq_reader *r);
uint32_t kq_read_u32(kq_reader *r);
int64_t kq_read_i64(kq_reader *r);
bool kq_read_bool(kq_reader *r);
kq_uuid kq_read_uuid(kq_reader *r);
/* Unsigned LEB128 (at most 5 bytes) as used for compact lengths and tags. */
uint32_t kq_read_uvarint(kq_reader *r);
/* Zigzag varint / varlong as used inside records. */
int32_t kq_read_varint(kq_reader *r);
int64_t kq_read_varlong(kq_reader *r);
/* int16 length; -1 is null. */
kq_slice kq_read_string(kq_reader *r);
/* uvarint length+1; 0 is null. Longer than KQ_STRING_LEN_MAX fails the
 * reader, as in Kafka (compact bytes keep the int32 limit). */
kq_slice kq_read_compact_string(kq_reader *r);
/* int32 length; -1 is null. */
kq_slice kq_read_bytes(kq_reader *r);
kq_slice kq_read_compact_bytes(kq_reader *r);
/* Array counts: -1 is a null array. A count larger than the remaining bytes
 * (each element takes at least one byte) fails the reader. */
int32_t kq_read_array_len(kq_reader *r);
int32_t kq_read_compact_array_len(kq_reader *r);
/* Skips a tagged-field section (count, then tag/size/bytes each). */
void kq_skip_tagged_fields(kq_reader *r);
/* Returns a pointer to the next n bytes and advances, or NULL on short input. */
const uint8_t *kq_read_raw(kq_reader *r, size_t n);

typedef struct kq_writer {
    uint8_t *data;
    size_t len;
    size_t cap;
    size_t cap_max; /* growth bound; exceeding it sets error */
    bool error;     /* allocation failure or bound exceeded */
} kq_writer;

/* cap_max bounds the buffer (0: effectively unbounded); the buffer is
 * allocated lazily. After an error every write is ignored. */
void kq_writer_init(kq_writer *w, size_t cap_max);
void kq_writer_free(kq_writer *w);
void kq_writer_reset(kq_writer *w);
/* Ensures room for n more bytes; returns a pointer to them or NULL. */
uint8_t *kq_writer_reserve(kq_writer *w, size_t n);
/* Grows the buffer to hold n more bytes without writing them (a size hint
 * that saves the doubling copies); false sets error as reserve does. */
bool kq_writer_ensure(kq_writer *w, size_t n);
/* Hands the buffer (len bytes written) to the caller, who frees it; the
 * writer is left empty, as after init, with the same bound. */
uint8_t *kq_writer_take(kq_writer *w, size_t *len);

void kq_write_i8(kq_writer *w, int8_t v);
void kq_write_i16(kq_writer *w, int16_t v);
void kq_write_u16(kq_writer *w, uint16_t v);
void kq_write_i32(kq_writer *w, int32_t v);
void kq_write_u32(kq_writer *w, uint32_t v);
void kq_write_i64(kq_writer *w, int64_t v);
void kq_write_bool(kq_writer *w, bool v);
void kq_write_uuid(kq_writer *w, kq_uuid v);
void kq_write_uvarint(kq_writer *w, uint32_t v);
void kq_write_varint(kq_writer *w, int32_t v);
void kq_write_varlong(kq_writer *w, int64_t v);
/* Strings longer than KQ_STRING_LEN_MAX fail the writer in both encodings. */
void kq_write_string(kq_writer *w, kq_slice s);          /* ptr NULL or len -1: null */
void kq_write_compact_string(kq_writer *w, kq_slice s);
void kq_write_cstring(kq_writer *w, const char *s);       /* NULL: null */
void kq_write_compact_cstring(kq_writer *w, const char *s);
void kq_write_bytes(kq_writer *w, kq_slice s);
void kq_write_compact_bytes(kq_writer *w, kq_slice s);
void kq_write_array_len(kq_writer *w, int32_t n);          /* -1: null */
void kq_write_compact_array_len(kq_writer *w, int32_t n);  /* -1: null */
void kq_write_empty_tagged_fields(kq_writer *w);
void kq_write_raw(kq_writer *w, const void *p, size_t n);
/* Overwrites 4 bytes at pos (used for size prefixes written afterwards). */
void kq_writer_patch_i32(kq_writer *w, size_t pos, int32_t v);

/* Number of bytes kq_write_uvarint would use. */
size_t kq_uvarint_size(uint32_t v);

kq_slice kq_slice_cstr(const char *s);
bool kq_slice_eq_cstr(kq_slice s, const char *c);

/* CRC-32C (Castagnoli) as used by record batch v2. Start with crc = 0; the
 * result of one call can be passed as crc to continue over more data
 * (kq_crc32c(kq_crc32c(0, a, n), b, m) == CRC of a||b). */
uint32_t kq_crc32c(uint32_t crc, const void *data, size_t len);
/* Same result, always the portable table path (for tests). */
uint32_t kq_crc32c_sw(uint32_t crc, const void *data, size_t len);

/* Bump allocator for decoded arrays; reset per request. Bounded: an
 * allocation that would take the total block memory past cap_max returns
 * NULL (cap_max 0: effectively unbounded). Reset keeps the newest block. */
typedef struct kq_arena {
    uint8_t *base;
    size_t used;
    size_t cap;
    size_t cap_max;
    /* chained overflow blocks */
    struct kq_arena_block *blocks;
} kq_arena;

void kq_arena_init(kq_arena *a, size_t cap_max);
void *kq_arena_alloc(kq_arena *a, size_t size); /* zeroed, 8-byte aligned */
void kq_arena_reset(kq_arena *a);
void kq_arena_free(kq_arena *a);

#endif
