/* One-pass validation of the records inside an uncompressed batch: the
 * Produce hot path (LogValidator's per-record checks). It accepts exactly
 * what record_iter accepts (same varint rules, same framing checks), but
 * walks the bytes once with inline decoding and builds no record structs;
 * tests/unit/record compares the two on random and mutated batches. */
#include "kq/record.h"
#include "record_internal.h"

/* Zigzag LEB128 of at most max_bytes bytes whose value fits `bits` bits, as
 * kq_read_varint / kq_read_varlong decode it. False on truncation, a
 * continuation on the last byte, or bits beyond `bits`. */
static inline bool leb(const uint8_t **pp, const uint8_t *end, int max_bytes, int bits,
                       uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p != end && *p < 0x80) { /* one byte: most lengths and deltas */
        *out = *p;
        *pp = p + 1;
        return true;
    }
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; i++) {
        if (p == end)
            return false;
        uint8_t b = *p++;
        int shift = 7 * i;
        if (i == max_bytes - 1 && ((b & 0x80) || (bits - shift < 7 && (b >> (bits - shift)) != 0)))
            return false;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return true;
        }
    }
    return false;
}

static inline bool varint(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    uint64_t u;
    if (!leb(pp, end, 5, 32, &u))
        return false;
    uint32_t w = (uint32_t)u;
    *out = (int32_t)((w >> 1) ^ (0u - (w & 1)));
    return true;
}

/* A varint length then that many bytes; -1 (null) only when nullable. */
static inline bool skip_bytes(const uint8_t **pp, const uint8_t *end, bool nullable)
{
    int32_t n;
    if (!varint(pp, end, &n))
        return false;
    if (n == -1 && nullable)
        return true;
    if (n < 0 || (size_t)(end - *pp) < (size_t)n)
        return false;
    *pp += n;
    return true;
}

/* One record's body [p, end): attributes, timestamp delta, offset delta
 * (must equal index), key, value, headers, nothing left over. */
static bool record_body_ok(const uint8_t *p, const uint8_t *end, int32_t index)
{
    uint64_t ts;
    int32_t delta, headers;
    if (p == end)
        return false;
    p++; /* attributes: unused */
    if (!leb(&p, end, 10, 64, &ts) || !varint(&p, end, &delta) || delta != index)
        return false;
    if (!skip_bytes(&p, end, true) || !skip_bytes(&p, end, true))
        return false;
    if (!varint(&p, end, &headers) || headers < 0)
        return false;
    for (int32_t i = 0; i < headers; i++)
        if (!skip_bytes(&p, end, false) || !skip_bytes(&p, end, true))
            return false;
    return p == end;
}

enum record_status record_validate_plain(const uint8_t *batch, const record_batch_header *h)
{
    const uint8_t *p = batch + RECORD_BATCH_HEADER_BYTES;
    const uint8_t *end = batch + record_batch_size(h);
    for (int32_t i = 0; i < h->record_count; i++) {
        int32_t size;
        if (!varint(&p, end, &size) || size < 0 || (size_t)(end - p) < (size_t)size)
            return RECORD_BAD_RECORDS;
        if (!record_body_ok(p, p + size, i))
            return RECORD_BAD_RECORDS;
        p += size;
    }
    return p == end ? RECORD_OK : RECORD_BAD_RECORDS;
}
