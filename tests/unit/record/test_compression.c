/* Every codec: compress with the real library here, wrap in a batch with the
 * codec attribute, iterate back the exact records; bombs and garbage fail
 * cleanly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "record_test_util.h"

typedef struct blob {
    uint8_t *data;
    size_t len;
} blob;

static void blob_append(blob *b, const void *p, size_t n)
{
    b->data = realloc(b->data, b->len + n);
    assert_non_null(b->data);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

enum { N_RECORDS = 400, VALUE_BYTES = 1000 }; /* > one 256 KiB output chunk */

static void value_for(int i, char *buf, size_t n)
{
    for (size_t j = 0; j < n; j++)
        buf[j] = (char)('a' + (i * 31 + (int)j * 7 + (int)(j / 13)) % 26);
}

/* An uncompressed batch of N_RECORDS distinct records. */
static kq_writer plain_batch(void)
{
    static char keys[N_RECORDS][16];
    static char vals[N_RECORDS][VALUE_BYTES];
    static record recs[N_RECORDS];
    memset(recs, 0, sizeof(recs));
    for (int i = 0; i < N_RECORDS; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%d", i);
        value_for(i, vals[i], VALUE_BYTES);
        recs[i].timestamp = 5000 + i;
        recs[i].key = kq_slice_cstr(keys[i]);
        recs[i].value = (kq_slice){ (const uint8_t *)vals[i], VALUE_BYTES - (i % 50) };
    }
    record_batch_builder_args a = {
        .base_offset = 0, .partition_leader_epoch = -1, .base_timestamp = 5000,
        .producer_id = 7, .producer_epoch = 0, .base_sequence = 0,
        .records = recs, .record_count = N_RECORDS,
    };
    kq_writer w;
    kq_writer_init(&w, 4u << 20);
    assert_true(record_batch_build(&w, &a));
    return w;
}

/* The header of plain with the codec attribute and payload as records. */
static blob wrap(const kq_writer *plain, int codec, const uint8_t *payload, size_t n)
{
    blob b = { NULL, 0 };
    blob_append(&b, plain->data, RECORD_BATCH_HEADER_BYTES);
    blob_append(&b, payload, n);
    b.data[22] = (uint8_t)((b.data[22] & ~RECORD_ATTR_COMPRESSION_MASK) | codec);
    test_store_be32(b.data + 8, (uint32_t)(b.len - RECORD_BATCH_LOG_OVERHEAD));
    test_reseal(b.data, b.len);
    return b;
}

static void check_records(const blob *b)
{
    record_set_summary s;
    assert_int_equal(record_set_validate(b->data, b->len, true, &s), RECORD_OK);
    assert_int_equal(s.offset_count, N_RECORDS);
    record_iter it;
    record rec;
    char val[VALUE_BYTES], key[16];
    assert_int_equal(record_iter_open(&it, b->data, b->len), RECORD_OK);
    for (int i = 0; i < N_RECORDS; i++) {
        assert_true(record_iter_next(&it, &rec));
        assert_int_equal(rec.offset, i);
        assert_int_equal(rec.timestamp, 5000 + i);
        snprintf(key, sizeof(key), "k%d", i);
        assert_true(test_slice_eq(rec.key, key));
        value_for(i, val, VALUE_BYTES);
        assert_int_equal(rec.value.len, VALUE_BYTES - (i % 50));
        assert_memory_equal(rec.value.ptr, val, (size_t)rec.value.len);
    }
    assert_false(record_iter_next(&it, &rec));
    assert_int_equal(it.status, RECORD_OK);
    record_iter_close(&it);
}

/* ---- compressors (test side, real libraries) ---- */

static blob gzip_compress(const uint8_t *in, size_t n)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    blob b = { malloc(deflateBound(&zs, n)), 0 };
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)n;
    zs.next_out = b.data;
    zs.avail_out = (uInt)deflateBound(&zs, n);
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    b.len = zs.total_out;
    deflateEnd(&zs);
    return b;
}

/* Streams `total` zero bytes through deflate (a bomb without a huge input). */
static blob gzip_zeros(size_t total)
{
    static uint8_t zeros[1 << 20];
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
    blob b = { NULL, 0 };
    uint8_t out[1 << 16];
    while (total > 0 || zs.avail_in == 0) {
        size_t n = total < sizeof(zeros) ? total : sizeof(zeros);
        total -= n;
        zs.next_in = zeros;
        zs.avail_in = (uInt)n;
        int flush = total == 0 ? Z_FINISH : Z_NO_FLUSH;
        int rc;
        do {
            zs.next_out = out;
            zs.avail_out = sizeof(out);
            rc = deflate(&zs, flush);
            blob_append(&b, out, sizeof(out) - zs.avail_out);
        } while (zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
        if (flush == Z_FINISH)
            break;
    }
    deflateEnd(&zs);
    return b;
}

static blob snappy_raw(const uint8_t *in, size_t n)
{
    size_t cap = snappy_max_compressed_length(n);
    blob b = { malloc(cap), cap };
    assert_int_equal(snappy_compress((const char *)in, n, (char *)b.data, &b.len), SNAPPY_OK);
    return b;
}

static const uint8_t xerial_header[16] = { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1 };

/* Java's SnappyOutputStream framing: header, then [i32 length][raw block]. */
static blob snappy_xerial(const uint8_t *in, size_t n, size_t block)
{
    blob b = { NULL, 0 };
    blob_append(&b, xerial_header, sizeof(xerial_header));
    for (size_t off = 0; off < n; off += block) {
        size_t piece = n - off < block ? n - off : block;
        blob c = snappy_raw(in + off, piece);
        uint8_t len[4];
        test_store_be32(len, (uint32_t)c.len);
        blob_append(&b, len, 4);
        blob_append(&b, c.data, c.len);
        free(c.data);
    }
    return b;
}

static blob lz4_compress(const uint8_t *in, size_t n)
{
    size_t cap = LZ4F_compressFrameBound(n, NULL);
    blob b = { malloc(cap), 0 };
    b.len = LZ4F_compressFrame(b.data, cap, in, n, NULL);
    assert_false(LZ4F_isError(b.len));
    return b;
}

static blob lz4_zeros(size_t total)
{
    static uint8_t zeros[1 << 20];
    LZ4F_cctx *c;
    assert_false(LZ4F_isError(LZ4F_createCompressionContext(&c, LZ4F_VERSION)));
    size_t cap = LZ4F_compressBound(sizeof(zeros), NULL) + 64;
    uint8_t *out = malloc(cap);
    blob b = { NULL, 0 };
    size_t r = LZ4F_compressBegin(c, out, cap, NULL);
    assert_false(LZ4F_isError(r));
    blob_append(&b, out, r);
    for (size_t done = 0; done < total; done += sizeof(zeros)) {
        r = LZ4F_compressUpdate(c, out, cap, zeros, sizeof(zeros), NULL);
        assert_false(LZ4F_isError(r));
        blob_append(&b, out, r);
    }
    r = LZ4F_compressEnd(c, out, cap, NULL);
    assert_false(LZ4F_isError(r));
    blob_append(&b, out, r);
    free(out);
    LZ4F_freeCompressionContext(c);
    return b;
}

static blob zstd_compress(const uint8_t *in, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    blob b = { malloc(cap), 0 };
    b.len = ZSTD_compress(b.data, cap, in, n, 3);
    assert_false(ZSTD_isError(b.len));
    return b;
}

/* A frame without content size, as a streaming producer writes it. */
static blob zstd_stream_no_size(const uint8_t *in, size_t n, size_t zeros_total)
{
    static uint8_t zeros[1 << 20];
    ZSTD_CCtx *c = ZSTD_createCCtx();
    assert_non_null(c);
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)));
    uint8_t out[1 << 16];
    blob b = { NULL, 0 };
    size_t pieces = in ? 1 : (zeros_total + sizeof(zeros) - 1) / sizeof(zeros);
    for (size_t p = 0; p < pieces; p++) {
        ZSTD_inBuffer src = { in ? (const void *)in : zeros, in ? n : sizeof(zeros), 0 };
        ZSTD_EndDirective mode = p + 1 == pieces ? ZSTD_e_end : ZSTD_e_continue;
        size_t rem;
        do {
            ZSTD_outBuffer o = { out, sizeof(out), 0 };
            rem = ZSTD_compressStream2(c, &o, &src, mode);
            assert_false(ZSTD_isError(rem));
            blob_append(&b, out, o.pos);
        } while (mode == ZSTD_e_end ? rem != 0 : src.pos < src.size);
    }
    ZSTD_freeCCtx(c);
    assert_int_equal(ZSTD_getFrameContentSize(b.data, b.len), ZSTD_CONTENTSIZE_UNKNOWN);
    return b;
}

/* ---- tests ---- */

static void round_trip(int codec, blob compressed)
{
    kq_writer plain = plain_batch();
    blob b = wrap(&plain, codec, compressed.data, compressed.len);
    /* Compression actually happened and the records are behind it. */
    assert_true(compressed.len < plain.len - RECORD_BATCH_HEADER_BYTES);
    check_records(&b);
    free(b.data);
    free(compressed.data);
    kq_writer_free(&plain);
}

#define PAYLOAD(w) ((w).data + RECORD_BATCH_HEADER_BYTES), ((w).len - RECORD_BATCH_HEADER_BYTES)

static void test_gzip(void **state)
{
    (void)state;
    kq_writer p = plain_batch();
    round_trip(RECORD_COMPRESSION_GZIP, gzip_compress(PAYLOAD(p)));
    /* Two concatenated gzip members. */
    size_t n = p.len - RECORD_BATCH_HEADER_BYTES, half = n / 2;
    blob a = gzip_compress(p.data + RECORD_BATCH_HEADER_BYTES, half);
    blob b = gzip_compress(p.data + RECORD_BATCH_HEADER_BYTES + half, n - half);
    blob_append(&a, b.data, b.len);
    free(b.data);
    round_trip(RECORD_COMPRESSION_GZIP, a);
    kq_writer_free(&p);
}

static void test_snappy_raw(void **state)
{
    (void)state;
    kq_writer p = plain_batch();
    round_trip(RECORD_COMPRESSION_SNAPPY, snappy_raw(PAYLOAD(p)));
    kq_writer_free(&p);
}

static void test_snappy_xerial(void **state)
{
    (void)state;
    kq_writer p = plain_batch();
    round_trip(RECORD_COMPRESSION_SNAPPY, snappy_xerial(PAYLOAD(p), 32 * 1024));
    round_trip(RECORD_COMPRESSION_SNAPPY, snappy_xerial(PAYLOAD(p), 1 << 20)); /* one block */
    kq_writer_free(&p);
}

static void test_lz4(void **state)
{
    (void)state;
    kq_writer p = plain_batch();
    round_trip(RECORD_COMPRESSION_LZ4, lz4_compress(PAYLOAD(p)));
    kq_writer_free(&p);
}

static void test_zstd(void **state)
{
    (void)state;
    kq_writer p = plain_batch();
    round_trip(RECORD_COMPRESSION_ZSTD, zstd_compress(PAYLOAD(p)));
    round_trip(RECORD_COMPRESSION_ZSTD, zstd_stream_no_size(PAYLOAD(p), 0));
    kq_writer_free(&p);
}

static void test_compressed_control_batch(void **state)
{
    (void)state;
    const int32_t voters[] = { 1, 2, 3 };
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(record_build_leader_change(&w, 0, 4, 99, 1, voters, 3, voters, 2));
    blob c = zstd_compress(PAYLOAD(w));
    kq_writer fake = w; /* wrap() only reads the header */
    blob b = wrap(&fake, RECORD_COMPRESSION_ZSTD, c.data, c.len);
    assert_int_equal(record_set_validate(b.data, b.len, true, NULL), RECORD_OK);
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, b.data, b.len), RECORD_OK);
    assert_true(record_iter_next(&it, &rec));
    int32_t leader, got[4];
    int n;
    assert_true(record_parse_leader_change(rec.value, &leader, got, &n, 4));
    assert_int_equal(leader, 1);
    assert_int_equal(n, 3);
    record_iter_close(&it);
    free(b.data);
    free(c.data);
    kq_writer_free(&w);
}

typedef blob (*compress_fn)(const uint8_t *, size_t);
static blob snappy_xerial_4k(const uint8_t *in, size_t n)
{
    return snappy_xerial(in, n, 4096);
}
static blob zstd_nosize(const uint8_t *in, size_t n)
{
    return zstd_stream_no_size(in, n, 0);
}
static const struct {
    int codec;
    compress_fn fn;
    const char *name;
} codecs[] = {
    { RECORD_COMPRESSION_GZIP, gzip_compress, "gzip" },
    { RECORD_COMPRESSION_SNAPPY, snappy_raw, "snappy" },
    { RECORD_COMPRESSION_SNAPPY, snappy_xerial_4k, "snappy-xerial" },
    { RECORD_COMPRESSION_LZ4, lz4_compress, "lz4" },
    { RECORD_COMPRESSION_ZSTD, zstd_compress, "zstd" },
    { RECORD_COMPRESSION_ZSTD, zstd_nosize, "zstd-nosize" },
};
#define N_CODECS (sizeof(codecs) / sizeof(codecs[0]))

/* The writer bound is the decompression bound: exactly fitting output is
 * accepted, one byte more is a bomb. */
static void test_output_bound_exact(void **state)
{
    (void)state;
    enum { SIZE = 600 * 1024 };
    uint8_t *data = malloc(SIZE);
    for (size_t i = 0; i < SIZE; i++)
        data[i] = (uint8_t)(i * 7 / 5);
    for (size_t c = 0; c < N_CODECS; c++) {
        blob z = codecs[c].fn(data, SIZE);
        kq_writer w;
        kq_writer_init(&w, SIZE);
        assert_int_equal(record_decompress(codecs[c].codec, z.data, z.len, &w), RECORD_OK);
        assert_int_equal(w.len, SIZE);
        assert_memory_equal(w.data, data, SIZE);
        kq_writer_free(&w);
        kq_writer_init(&w, SIZE - 1);
        assert_int_equal(record_decompress(codecs[c].codec, z.data, z.len, &w),
                         RECORD_BAD_COMPRESSION);
        kq_writer_free(&w);
        free(z.data);
    }
    free(data);
}

static void expect_bomb(int codec, blob z)
{
    kq_writer plain = plain_batch();
    blob b = wrap(&plain, codec, z.data, z.len);
    assert_int_equal(record_set_validate(b.data, b.len, false, NULL), RECORD_OK);
    assert_int_equal(record_set_validate(b.data, b.len, true, NULL), RECORD_BAD_COMPRESSION);
    record_iter it;
    assert_int_equal(record_iter_open(&it, b.data, b.len), RECORD_BAD_COMPRESSION);
    assert_null(it.scratch);
    record_iter_close(&it);
    free(b.data);
    free(z.data);
    kq_writer_free(&plain);
}

#define BOMB_BYTES ((size_t)RECORD_BATCH_BYTES_MAX + (1u << 20))

static void test_zip_bombs(void **state)
{
    (void)state;
    expect_bomb(RECORD_COMPRESSION_GZIP, gzip_zeros(BOMB_BYTES));
    expect_bomb(RECORD_COMPRESSION_LZ4, lz4_zeros(BOMB_BYTES));
    expect_bomb(RECORD_COMPRESSION_ZSTD, zstd_stream_no_size(NULL, 0, BOMB_BYTES));
    /* xerial: the same 1 MiB zero block repeated past the bound */
    uint8_t *zeros = calloc(1, 1 << 20);
    blob one = snappy_raw(zeros, 1 << 20);
    blob x = { NULL, 0 };
    blob_append(&x, xerial_header, sizeof(xerial_header));
    uint8_t len[4];
    test_store_be32(len, (uint32_t)one.len);
    for (size_t i = 0; i < BOMB_BYTES >> 20; i++) {
        blob_append(&x, len, 4);
        blob_append(&x, one.data, one.len);
    }
    free(one.data);
    free(zeros);
    expect_bomb(RECORD_COMPRESSION_SNAPPY, x);
    /* raw snappy declaring more than the bound */
    zeros = calloc(1, BOMB_BYTES);
    expect_bomb(RECORD_COMPRESSION_SNAPPY, snappy_raw(zeros, BOMB_BYTES));
    free(zeros);
}

/* A snappy block's claimed length is not reserved before the block is known
 * to produce it: 5 bytes claiming 64 MiB allocate nothing (they used to
 * reserve the whole 64 MiB), and neither does a claim within the expansion
 * bound whose elements are garbage. The densest real block still decodes. */
static void test_snappy_claim_not_reserved(void **state)
{
    (void)state;
    static const uint8_t claim_64m[] = { 0xff, 0xff, 0xff, 0x1f, 0x00 }; /* 2^26 - 1 */
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(record_decompress(RECORD_COMPRESSION_SNAPPY, claim_64m,
                                       sizeof(claim_64m), &w), RECORD_BAD_COMPRESSION);
    assert_int_equal(w.cap, 0);
    kq_writer_free(&w);

    uint8_t small[64] = { 0xe0, 0x07 }; /* claims 992 bytes; zeros: 1-byte literals */
    kq_writer_init(&w, 0);
    assert_int_equal(record_decompress(RECORD_COMPRESSION_SNAPPY, small, sizeof(small), &w),
                     RECORD_BAD_COMPRESSION);
    assert_int_equal(w.cap, 0);
    kq_writer_free(&w);

    size_t n = 4u << 20;
    uint8_t *zeros = calloc(1, n);
    assert_non_null(zeros);
    blob z = snappy_raw(zeros, n);
    assert_true(z.len * 21 < n); /* close to the 64/3 bound */
    kq_writer_init(&w, 0);
    assert_int_equal(record_decompress(RECORD_COMPRESSION_SNAPPY, z.data, z.len, &w), RECORD_OK);
    assert_int_equal(w.len, n);
    assert_memory_equal(w.data, zeros, n);
    kq_writer_free(&w);
    free(z.data);
    free(zeros);
}

static void test_truncated_and_invalid(void **state)
{
    (void)state;
    kq_writer p = plain_batch();
    uint8_t junk[64];
    memset(junk, 0xff, sizeof(junk));
    for (size_t c = 0; c < N_CODECS; c++) {
        blob z = codecs[c].fn(PAYLOAD(p));
        kq_writer w;
        /* Every cut of the tail must be detected. */
        for (size_t cut = 1; cut <= 8; cut++) {
            kq_writer_init(&w, 0);
            assert_int_equal(record_decompress(codecs[c].codec, z.data, z.len - cut, &w),
                             RECORD_BAD_COMPRESSION);
            kq_writer_free(&w);
        }
        kq_writer_init(&w, 0);
        assert_int_equal(record_decompress(codecs[c].codec, junk, sizeof(junk), &w),
                         RECORD_BAD_COMPRESSION);
        kq_writer_free(&w);
        kq_writer_init(&w, 0);
        assert_int_equal(record_decompress(codecs[c].codec, z.data, 0, &w), RECORD_BAD_COMPRESSION);
        kq_writer_free(&w);
        free(z.data);
    }
    /* Unknown codecs 5..7 in the attributes. */
    for (int codec = 5; codec <= 7; codec++) {
        blob b = wrap(&p, codec, junk, sizeof(junk));
        assert_int_equal(record_set_validate(b.data, b.len, true, NULL), RECORD_BAD_COMPRESSION);
        free(b.data);
    }
    kq_writer_free(&p);
}

static uint32_t rng_state = 777;
static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

/* Mutated compressed payloads and random bytes: no crash, no overread. */
static void test_garbage_never_crashes(void **state)
{
    (void)state;
    uint8_t small[300];
    for (int i = 0; i < (int)sizeof(small); i++)
        small[i] = (uint8_t)(i % 17);
    for (size_t c = 0; c < N_CODECS; c++) {
        blob z = codecs[c].fn(small, sizeof(small));
        for (int round = 0; round < 3000; round++) {
            uint8_t *m = malloc(z.len);
            memcpy(m, z.data, z.len);
            int flips = 1 + (int)(rng() % 3);
            for (int f = 0; f < flips; f++)
                m[rng() % z.len] = (uint8_t)rng();
            size_t n = rng() % 4 == 0 ? rng() % z.len : z.len;
            kq_writer w;
            kq_writer_init(&w, 1 << 20);
            (void)record_decompress(codecs[c].codec, m, n, &w);
            kq_writer_free(&w);
            free(m);
        }
        for (int round = 0; round < 2000; round++) {
            uint8_t r[128];
            size_t n = 1 + rng() % sizeof(r);
            for (size_t i = 0; i < n; i++)
                r[i] = (uint8_t)rng();
            if (round % 2 && codecs[c].codec == RECORD_COMPRESSION_SNAPPY && n > 20)
                memcpy(r, xerial_header, sizeof(xerial_header));
            kq_writer w;
            kq_writer_init(&w, 1 << 20);
            (void)record_decompress(codecs[c].codec, r, n, &w);
            kq_writer_free(&w);
        }
        free(z.data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_snappy_raw),
        cmocka_unit_test(test_snappy_xerial),
        cmocka_unit_test(test_lz4),
        cmocka_unit_test(test_zstd),
        cmocka_unit_test(test_compressed_control_batch),
        cmocka_unit_test(test_output_bound_exact),
        cmocka_unit_test(test_zip_bombs),
        cmocka_unit_test(test_snappy_claim_not_reserved),
        cmocka_unit_test(test_truncated_and_invalid),
        cmocka_unit_test(test_garbage_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
