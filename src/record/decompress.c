/* Decompression of record payloads for every codec Kafka producers use.
 * Output is bounded by the writer's cap_max and RECORD_BATCH_BYTES_MAX so a
 * zip bomb fails with RECORD_BAD_COMPRESSION instead of exhausting memory. */
#include <lz4frame.h>
#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "kq/limits.h"
#include "kq/record.h"

#define OUT_CHUNK (256u << 10)
/* zstd frames may declare a window up to this log; 2^26 = the output bound. */

static size_t out_limit(const kq_writer *w)
{
    size_t limit = RECORD_BATCH_BYTES_MAX;
    if (w->cap_max != 0 && w->cap_max < limit)
        limit = w->cap_max;
    return limit;
}

/* A piece of output for one decoder call: up to OUT_CHUNK bytes appended to
 * the writer within the bound or, once the bound is reached, a one-byte probe
 * that tells a clean end of stream (nothing written) from a bomb. */
typedef struct out_window {
    uint8_t *dst;
    size_t room;
    bool probe;
    uint8_t probe_byte;
} out_window;

static bool out_open(kq_writer *w, out_window *o)
{
    size_t limit = out_limit(w);
    if (w->error)
        return false;
    if (w->len >= limit) {
        o->dst = &o->probe_byte;
        o->room = 1;
        o->probe = true;
        return true;
    }
    size_t n = limit - w->len;
    if (n > OUT_CHUNK)
        n = OUT_CHUNK;
    o->dst = kq_writer_reserve(w, n);
    o->room = n;
    o->probe = false;
    return o->dst != NULL;
}

/* Gives back what the decoder did not fill; false if it wrote past the bound. */
static bool out_close(kq_writer *w, const out_window *o, size_t produced)
{
    if (o->probe)
        return produced == 0;
    w->len -= o->room - produced;
    return true;
}

static enum record_status inflate_gzip(const uint8_t *in, size_t in_len, kq_writer *out)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return RECORD_BAD_COMPRESSION;
    enum record_status st = RECORD_BAD_COMPRESSION;
    size_t consumed = 0;
    for (;;) {
        out_window win;
        if (!out_open(out, &win))
            break;
        /* zlib counts in uInt; feed input in pieces that fit. */
        size_t in_piece = in_len - consumed;
        if (in_piece > (1u << 30))
            in_piece = 1u << 30;
        zs.next_in = (Bytef *)(uintptr_t)(in + consumed);
        zs.avail_in = (uInt)in_piece;
        zs.next_out = win.dst;
        zs.avail_out = (uInt)win.room;
        int rc = inflate(&zs, Z_NO_FLUSH);
        consumed += in_piece - zs.avail_in;
        size_t produced = win.room - zs.avail_out;
        if (!out_close(out, &win, produced))
            break;
        if (rc == Z_STREAM_END) {
            if (consumed == in_len) {
                st = RECORD_OK;
                break;
            }
            /* Concatenated gzip members, as Java's GZIPInputStream accepts. */
            if (inflateReset(&zs) != Z_OK)
                break;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            break;
        /* No progress possible: input exhausted before the stream ended. */
        if (produced == 0 && (consumed == in_len || zs.avail_in == in_piece))
            break;
    }
    inflateEnd(&zs);
    return st;
}

/* The claimed length is checked against what the block can hold and the
 * block is validated before any output is reserved: a few bytes claiming
 * 64 MiB cost nothing. */
static enum record_status snappy_block(const uint8_t *in, size_t in_len, kq_writer *out)
{
    size_t n = 0;
    if (snappy_uncompressed_length((const char *)in, in_len, &n) != SNAPPY_OK)
        return RECORD_BAD_COMPRESSION;
    size_t limit = out_limit(out);
    if (out->error || out->len > limit || n > limit - out->len)
        return RECORD_BAD_COMPRESSION;
    if (n / RECORD_SNAPPY_EXPANSION_MAX > in_len)
        return RECORD_BAD_COMPRESSION;
    if (snappy_validate_compressed_buffer((const char *)in, in_len) != SNAPPY_OK)
        return RECORD_BAD_COMPRESSION;
    if (n == 0)
        return RECORD_OK;
    uint8_t *dst = kq_writer_reserve(out, n);
    if (!dst)
        return RECORD_BAD_COMPRESSION;
    size_t got = n;
    if (snappy_uncompress((const char *)in, in_len, (char *)dst, &got) != SNAPPY_OK || got != n)
        return RECORD_BAD_COMPRESSION;
    return RECORD_OK;
}

static const uint8_t xerial_magic[8] = { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0 };
#define XERIAL_HEADER_BYTES 16 /* magic, version i32, compatible version i32 */

static enum record_status unsnappy(const uint8_t *in, size_t in_len, kq_writer *out)
{
    if (in_len < XERIAL_HEADER_BYTES || memcmp(in, xerial_magic, sizeof(xerial_magic)) != 0)
        return snappy_block(in, in_len, out); /* raw snappy (librdkafka) */
    kq_reader r;
    kq_reader_init(&r, in + XERIAL_HEADER_BYTES, in_len - XERIAL_HEADER_BYTES);
    while (kq_reader_remaining(&r) > 0) {
        int32_t n = kq_read_i32(&r);
        if (r.error || n <= 0)
            return RECORD_BAD_COMPRESSION;
        const uint8_t *block = kq_read_raw(&r, (size_t)n);
        if (!block)
            return RECORD_BAD_COMPRESSION;
        enum record_status st = snappy_block(block, (size_t)n, out);
        if (st != RECORD_OK)
            return st;
    }
    return r.error ? RECORD_BAD_COMPRESSION : RECORD_OK;
}

static enum record_status unlz4(const uint8_t *in, size_t in_len, kq_writer *out)
{
    LZ4F_dctx *dctx = NULL;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
        return RECORD_BAD_COMPRESSION;
    enum record_status st = RECORD_BAD_COMPRESSION;
    size_t consumed = 0;
    for (;;) {
        out_window win;
        if (!out_open(out, &win))
            break;
        size_t src_size = in_len - consumed;
        size_t dst_size = win.room;
        size_t hint = LZ4F_decompress(dctx, win.dst, &dst_size, in + consumed, &src_size, NULL);
        if (LZ4F_isError(hint)) {
            out_close(out, &win, 0);
            break;
        }
        consumed += src_size;
        if (!out_close(out, &win, dst_size))
            break;
        if (hint == 0 && consumed == in_len) {
            st = RECORD_OK; /* frame complete, all input used */
            break;
        }
        /* hint == 0 with input left: another frame follows. */
        if (consumed == in_len && dst_size < win.room)
            break; /* input ended mid-frame */
        if (src_size == 0 && dst_size == 0)
            break; /* no progress */
    }
    LZ4F_freeDecompressionContext(dctx);
    return st;
}

static enum record_status unzstd(const uint8_t *in, size_t in_len, kq_writer *out)
{
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (!dctx)
        return RECORD_BAD_COMPRESSION;
    enum record_status st = RECORD_BAD_COMPRESSION;
    if (ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX)))
        goto done;
    ZSTD_inBuffer src = { in, in_len, 0 };
    for (;;) {
        out_window win;
        if (!out_open(out, &win))
            break;
        ZSTD_outBuffer o = { win.dst, win.room, 0 };
        size_t before = src.pos;
        size_t rc = ZSTD_decompressStream(dctx, &o, &src);
        if (ZSTD_isError(rc)) {
            out_close(out, &win, 0);
            break;
        }
        if (!out_close(out, &win, o.pos))
            break;
        if (rc == 0 && src.pos == src.size) {
            st = RECORD_OK; /* frame complete, all input used */
            break;
        }
        if (src.pos == src.size && o.pos < o.size)
            break; /* input ended mid-frame */
        if (src.pos == before && o.pos == 0)
            break; /* no progress */
    }
done:
    ZSTD_freeDCtx(dctx);
    return st;
}

enum record_status record_decompress(enum record_compression codec, const uint8_t *in,
                                     size_t in_len, kq_writer *out)
{
    if (!in || in_len == 0)
        return RECORD_BAD_COMPRESSION;
    enum record_status st;
    switch (codec) {
    case RECORD_COMPRESSION_NONE:
        if (out->len > out_limit(out) || in_len > out_limit(out) - out->len)
            return RECORD_BAD_COMPRESSION;
        kq_write_raw(out, in, in_len);
        st = RECORD_OK;
        break;
    case RECORD_COMPRESSION_GZIP: st = inflate_gzip(in, in_len, out); break;
    case RECORD_COMPRESSION_SNAPPY: st = unsnappy(in, in_len, out); break;
    case RECORD_COMPRESSION_LZ4: st = unlz4(in, in_len, out); break;
    case RECORD_COMPRESSION_ZSTD: st = unzstd(in, in_len, out); break;
    default: return RECORD_BAD_COMPRESSION;
    }
    if (st == RECORD_OK && out->error)
        st = RECORD_BAD_COMPRESSION;
    return st;
}
