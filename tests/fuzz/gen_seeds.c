/* Writes the binary seed inputs of tests/fuzz/corpus/ (wire bodies from the
 * golden bytes of tests/unit/wire, record batches in every codec, crafted
 * log directories, and log directories written by the real log with their
 * recovery point, snapshot files). The text seeds (quorum-state, config) are committed as
 * written by hand. Not a test: run it after a format change,
 *   build-fuzz-gcc/tests/fuzz/fuzz_gen_seeds tests/fuzz/corpus
 * and commit what changed. */
#include <lz4frame.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "../unit/wire/golden_all_versions.h"
#include "../unit/wire/golden_cgroup.h"
#include "../unit/wire/golden_groups.h"
#include "fuzz.h"
#include "kq/group_offsets.h"
#include "kq/group_store.h"
#include "kq/log.h"
#include "kq/producer_state.h"
#include "kq/record.h"
#include "kq/snapshot_state.h"
#include "kq/wire.h"

#define SEED_BYTES_MAX (1u << 20)

static const char *corpus;

static void put(const char *target, const char *name, const void *data, size_t len)
{
    char dir[FUZZ_PATH_BYTES_MAX];
    snprintf(dir, sizeof dir, "%s/%s", corpus, target);
    if (fuzz_write_file(dir, name, data, len) != 0) {
        fprintf(stderr, "cannot write %s/%s (does the directory exist?)\n", dir, name);
        exit(1);
    }
}

/* One API's golden cases, in the order of wire_advertised_apis. */
struct golden_api {
    int16_t key;
    const char *name;
    const golden_case *req, *resp;
    size_t nreq, nresp;
};

#define G(key, api)                                                                     \
    {key, #api, golden_##api##_request, golden_##api##_response,                        \
     sizeof golden_##api##_request / sizeof(golden_case),                               \
     sizeof golden_##api##_response / sizeof(golden_case)}
static const struct golden_api goldens[] = {
    G(WIRE_API_PRODUCE, produce), G(WIRE_API_FETCH, fetch),
    G(WIRE_API_LIST_OFFSETS, list_offsets), G(WIRE_API_METADATA, metadata),
    G(WIRE_API_FIND_COORDINATOR, find_coordinator), G(WIRE_API_API_VERSIONS, api_versions),
    G(WIRE_API_INIT_PRODUCER_ID, init_producer_id), G(WIRE_API_VOTE, vote),
    G(WIRE_API_BEGIN_QUORUM_EPOCH, begin_quorum_epoch),
    G(WIRE_API_END_QUORUM_EPOCH, end_quorum_epoch),
    G(WIRE_API_DESCRIBE_QUORUM, describe_quorum),
    G(WIRE_API_DESCRIBE_CLUSTER, describe_cluster),
    G(WIRE_API_FETCH_SNAPSHOT, fetch_snapshot),
    /* the classic group APIs (issue 12) */
    G(WIRE_API_OFFSET_COMMIT, offset_commit), G(WIRE_API_OFFSET_FETCH, offset_fetch),
    G(WIRE_API_JOIN_GROUP, join_group), G(WIRE_API_HEARTBEAT, heartbeat),
    G(WIRE_API_LEAVE_GROUP, leave_group), G(WIRE_API_SYNC_GROUP, sync_group),
    G(WIRE_API_DESCRIBE_GROUPS, describe_groups), G(WIRE_API_LIST_GROUPS, list_groups),
    /* KIP-848 consumer groups (issue 24) */
    G(WIRE_API_CONSUMER_GROUP_HEARTBEAT, consumer_group_heartbeat),
    G(WIRE_API_CONSUMER_GROUP_DESCRIBE, consumer_group_describe),
};

static const struct golden_api *golden_of(int16_t key)
{
    for (size_t i = 0; i < sizeof goldens / sizeof goldens[0]; i++)
        if (goldens[i].key == key)
            return &goldens[i];
    return NULL;
}

/* The golden versions kept as seeds: the oldest, the first flexible, the newest. */
static bool keep_version(const golden_case *cases, size_t n, size_t i, int16_t key)
{
    if (i == 0 || i == n - 1)
        return true;
    return wire_api_flexible(key, cases[i].version) && !wire_api_flexible(key, cases[i - 1].version);
}

static void put_body(const char *target, int sel, const wire_api_range *a, const golden_case *c,
                     const char *api, bool header)
{
    static uint8_t buf[SEED_BYTES_MAX];
    size_t len = 0;
    buf[len++] = (uint8_t)sel;
    buf[len++] = (uint8_t)(c->version - a->min_version);
    if (header) { /* correlation id 7, then empty tags when flexible */
        static const uint8_t corr[4] = {0, 0, 0, 7};
        memcpy(buf + len, corr, 4);
        len += 4;
        if (a->api_key != WIRE_API_API_VERSIONS && wire_api_flexible(a->api_key, c->version))
            buf[len++] = 0;
    }
    memcpy(buf + len, c->bytes, c->len);
    char name[128];
    snprintf(name, sizeof name, "%s-v%d%s", api, c->version, header ? "-header" : "");
    put(target, name, buf, len + c->len);
}

/* A request frame: header v1/v2 (client id "seed"), then the body. */
static void put_frame(int n, int16_t key, const golden_case *c, const char *api)
{
    static uint8_t buf[SEED_BYTES_MAX];
    kq_writer w;
    kq_writer_init(&w, 0);
    kq_write_i8(&w, (int8_t)n);
    wire_request_header h = {key, c->version, 42, kq_slice_cstr("seed")};
    wire_request_header_encode(&w, &h);
    kq_write_raw(&w, c->bytes, c->len);
    memcpy(buf, w.data, w.len);
    char name[128];
    snprintf(name, sizeof name, "frame-%s-v%d", api, c->version);
    put("wire_request", name, buf, w.len);
    kq_writer_free(&w);
}

static void wire_seeds(void)
{
    int n;
    const wire_api_range *apis = wire_advertised_apis(&n);
    for (int i = 0; i < n; i++) {
        const struct golden_api *g = golden_of(apis[i].api_key);
        if (!g)
            continue;
        for (size_t k = 0; k < g->nreq; k++)
            if (keep_version(g->req, g->nreq, k, g->key))
                put_body("wire_request", i, &apis[i], &g->req[k], g->name, false);
        for (size_t k = 0; k < g->nresp; k++)
            if (keep_version(g->resp, g->nresp, k, g->key))
                put_body("wire_response", i, &apis[i], &g->resp[k], g->name, false);
        /* the newest version once more behind a response header */
        put_body("wire_response", i + n, &apis[i], &g->resp[g->nresp - 1], g->name, true);
        if (g->key == WIRE_API_PRODUCE || g->key == WIRE_API_FETCH ||
            g->key == WIRE_API_API_VERSIONS || g->key == WIRE_API_VOTE)
            put_frame(n, g->key, &g->req[g->nreq - 1], g->name);
    }
}

/* handler_frame seeds: every API's oldest and newest golden request as a
 * whole frame (u16 length, header, body), and all of them in one input. */
static void frame_append(kq_writer *w, int16_t key, const golden_case *c)
{
    kq_writer f;
    kq_writer_init(&f, 0);
    wire_request_header h = {key, c->version, 42, kq_slice_cstr("seed")};
    wire_request_header_encode(&f, &h);
    kq_write_raw(&f, c->bytes, c->len);
    kq_write_i16(w, (int16_t)f.len);
    kq_write_raw(w, f.data, f.len);
    kq_writer_free(&f);
}

static void handler_frame_seeds(void)
{
    int n;
    const wire_api_range *apis = wire_advertised_apis(&n);
    kq_writer all;
    kq_writer_init(&all, 0);
    for (int i = 0; i < n; i++) {
        const struct golden_api *g = golden_of(apis[i].api_key);
        if (!g)
            continue;
        size_t picks[2] = {0, g->nreq - 1};
        for (int k = 0; k < 2; k++) {
            kq_writer w;
            kq_writer_init(&w, 0);
            frame_append(&w, g->key, &g->req[picks[k]]);
            char name[128];
            snprintf(name, sizeof name, "%s-v%d", g->name, g->req[picks[k]].version);
            if (w.len <= SEED_BYTES_MAX)
                put("handler_frame", name, w.data, w.len);
            kq_writer_free(&w);
        }
        frame_append(&all, g->key, &g->req[g->nreq - 1]);
    }
    if (all.len <= SEED_BYTES_MAX)
        put("handler_frame", "every-api-newest", all.data, all.len);
    kq_writer_free(&all);
}

/* ---- record batches ---------------------------------------------------- */

typedef struct blob {
    uint8_t data[SEED_BYTES_MAX];
    size_t len;
} blob;

/* A plain batch of n records with keys, values and one header each. */
static void plain_batch(kq_writer *w, int64_t base, int32_t epoch, int n)
{
    static record recs[16];
    static record_header_kv kv = {{(const uint8_t *)"h", 1}, {(const uint8_t *)"x", 1}};
    static char values[16][32];
    for (int i = 0; i < n; i++) {
        snprintf(values[i], sizeof values[i], "value-%d-%lld", i, (long long)base);
        memset(&recs[i], 0, sizeof recs[i]);
        recs[i].timestamp = 1700000000000LL + i;
        recs[i].key = i % 2 ? (kq_slice){NULL, -1} : kq_slice_cstr("key");
        recs[i].value = kq_slice_cstr(values[i]);
        recs[i].header_count = i % 3 == 2 ? 1 : 0;
        recs[i].headers = &kv;
    }
    record_batch_builder_args a = {
        .base_offset = base, .partition_leader_epoch = epoch, .base_timestamp = 1700000000000LL,
        .producer_id = -1, .producer_epoch = -1, .base_sequence = -1,
        .records = recs, .record_count = n,
    };
    if (!record_batch_build(w, &a))
        exit(1);
}

static size_t compress_with(int codec, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t len = cap;
    switch (codec) {
    case RECORD_COMPRESSION_GZIP: {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        zs.next_in = (Bytef *)(uintptr_t)in;
        zs.avail_in = (uInt)n;
        zs.next_out = out;
        zs.avail_out = (uInt)cap;
        deflate(&zs, Z_FINISH);
        len = cap - zs.avail_out;
        deflateEnd(&zs);
        return len;
    }
    case RECORD_COMPRESSION_SNAPPY:
        return snappy_compress((const char *)in, n, (char *)out, &len) == SNAPPY_OK ? len : 0;
    case RECORD_COMPRESSION_LZ4:
        len = LZ4F_compressFrame(out, cap, in, n, NULL);
        return LZ4F_isError(len) ? 0 : len;
    default:
        len = ZSTD_compress(out, cap, in, n, 3);
        return ZSTD_isError(len) ? 0 : len;
    }
}

/* The plain batch in w with its records compressed by codec. */
static void compressed_batch(const kq_writer *plain, int codec, blob *b)
{
    size_t hdr = RECORD_BATCH_HEADER_BYTES;
    memcpy(b->data, plain->data, hdr);
    size_t z = compress_with(codec, plain->data + hdr, plain->len - hdr, b->data + hdr,
                        sizeof b->data - hdr);
    if (z == 0)
        exit(1);
    b->len = hdr + z;
    uint32_t length = (uint32_t)(b->len - RECORD_BATCH_LOG_OVERHEAD);
    for (int i = 0; i < 4; i++)
        b->data[8 + i] = (uint8_t)(length >> (24 - 8 * i));
    b->data[22] = (uint8_t)((b->data[22] & ~RECORD_ATTR_COMPRESSION_MASK) | codec);
    uint32_t crc = kq_crc32c(0, b->data + 21, b->len - 21);
    for (int i = 0; i < 4; i++)
        b->data[17 + i] = (uint8_t)(crc >> (24 - 8 * i));
}

static void put_mode(const char *name, uint8_t mode, const uint8_t *data, size_t len)
{
    static uint8_t buf[SEED_BYTES_MAX + 1];
    buf[0] = mode;
    memcpy(buf + 1, data, len);
    put("record_batch", name, buf, len + 1);
}

static void record_seeds(void)
{
    static const char *codec_names[] = {"none", "gzip", "snappy", "lz4", "zstd"};
    kq_writer plain, two;
    kq_writer_init(&plain, 0);
    kq_writer_init(&two, 0);
    plain_batch(&plain, 0, 1, 5);
    put_mode("plain-sealed", 0, plain.data, plain.len);
    put_mode("plain", 1, plain.data, plain.len);
    plain_batch(&two, 0, 1, 2);
    plain_batch(&two, 2, 1, 3);
    int32_t voters[3] = {1, 2, 3};
    if (!record_build_leader_change(&two, 5, 2, 1700000000000LL, 1, voters, 3, voters, 2))
        exit(1);
    put_mode("two-plus-leader-change", 1, two.data, two.len);
    static blob b;
    for (int codec = 1; codec <= 4; codec++) {
        compressed_batch(&plain, codec, &b);
        char name[64];
        snprintf(name, sizeof name, "batch-%s", codec_names[codec]);
        put_mode(name, 1, b.data, b.len);
        /* the raw payload for record_decompress */
        b.data[RECORD_BATCH_HEADER_BYTES - 1] = (uint8_t)codec;
        snprintf(name, sizeof name, "decompress-%s", codec_names[codec]);
        put_mode(name, 2, b.data + RECORD_BATCH_HEADER_BYTES - 1,
                 b.len - RECORD_BATCH_HEADER_BYTES + 1);
    }
    /* a LeaderChangeMessage key + value (mode 3): leader 1, voters 1-3, granting 1 */
    kq_writer lc;
    kq_writer_init(&lc, 0);
    kq_write_i16(&lc, 0);
    kq_write_i16(&lc, RECORD_CONTROL_LEADER_CHANGE);
    kq_write_i16(&lc, 0);
    kq_write_i32(&lc, 1);
    kq_write_compact_array_len(&lc, 3);
    for (int i = 0; i < 3; i++) {
        kq_write_i32(&lc, voters[i]);
        kq_write_empty_tagged_fields(&lc);
    }
    kq_write_compact_array_len(&lc, 1);
    kq_write_i32(&lc, 1);
    kq_write_empty_tagged_fields(&lc);
    kq_write_empty_tagged_fields(&lc);
    put_mode("leader-change-value", 3, lc.data, lc.len);
    kq_writer_free(&lc);
    kq_writer_free(&plain);
    kq_writer_free(&two);
}

/* ---- log directories ---------------------------------------------------- */

/* flags, side text length (2 bytes), side text, segment bytes */
static void put_log(const char *name, uint8_t flags, const char *side, const uint8_t *seg,
                    size_t seg_len)
{
    static uint8_t buf[SEED_BYTES_MAX];
    size_t side_len = side ? strlen(side) : 0;
    buf[0] = flags;
    buf[1] = (uint8_t)(side_len >> 8);
    buf[2] = (uint8_t)side_len;
    if (side_len)
        memcpy(buf + 3, side, side_len);
    if (seg_len)
        memcpy(buf + 3 + side_len, seg, seg_len);
    put("log_open", name, buf, 3 + side_len + seg_len);
}

static void log_seeds(void)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    plain_batch(&w, 0, 1, 2);
    size_t first = w.len;
    plain_batch(&w, 2, 1, 3);
    int32_t voters[1] = {1};
    if (!record_build_leader_change(&w, 5, 2, 1700000000000LL, 1, voters, 1, voters, 1))
        exit(1);
    plain_batch(&w, 6, 2, 4);
    const char *ckpt = "0\n2\n1 0\n2 5\n";
    put_log("three-epochs", 0, NULL, w.data, w.len);
    put_log("with-checkpoint", 2, ckpt, w.data, w.len);
    put_log("stale-checkpoint", 2, "0\n1\n7 0\n", w.data, w.len);
    put_log("split-segments", 4 | 2, ckpt, w.data, w.len);
    put_log("torn-tail", 0, NULL, w.data, w.len - 7);
    put_log("torn-header", 0, NULL, w.data, first + 20);
    put_log("garbage-index", 8, "\x00\x00\x00\x01\x00\x00\x00\x00", w.data, w.len);
    w.data[first + 40] ^= 0x10; /* a flipped bit in the second batch: resealed by flag 1 */
    put_log("flipped-bit", 0, NULL, w.data, w.len);
    put_log("flipped-bit-sealed", 1, NULL, w.data, w.len);
    put_log("empty", 0, NULL, NULL, 0);
    kq_writer_free(&w);
}

/* ---- log directories written by kq_log ---------------------------------- */

typedef struct file_bytes {
    uint8_t data[SEED_BYTES_MAX];
    size_t len;
} file_bytes;

static void slurp(const char *dir, const char *name, file_bytes *f)
{
    char path[FUZZ_PATH_BYTES_MAX];
    snprintf(path, sizeof path, "%s/%s/%s", dir, KQ_LOG_PARTITION_DIR, name);
    FILE *in = fopen(path, "rb");
    f->len = in ? fread(f->data, 1, sizeof f->data, in) : 0;
    if (in)
        fclose(in);
}

static void append_flushed(kq_log *log, int32_t epoch, int n, bool flush)
{
    kq_writer w;
    char err[256];
    kq_writer_init(&w, 0);
    plain_batch(&w, 0, epoch, n);
    if (kq_log_append(log, w.data, w.len, kq_log_end_offset(log), epoch, err, sizeof err) != 0)
        exit(1);
    kq_log_flush_job *job = NULL;
    if (flush && kq_log_flush_begin(log, &job) == 0 && job) {
        if (kq_log_flush_run(job) != 0)
            exit(1);
        kq_log_flush_end(log, job);
    }
    kq_writer_free(&w);
}

/* flags, then checkpoint NUL recovery point as the side text, then the log */
static void put_real(const char *name, uint8_t flags, const file_bytes *ckpt,
                     const file_bytes *rp, const file_bytes *seg, size_t seg_len)
{
    static uint8_t buf[SEED_BYTES_MAX];
    size_t side = ckpt->len + 1 + rp->len, len = 0;
    buf[len++] = flags;
    buf[len++] = (uint8_t)(side >> 8);
    buf[len++] = (uint8_t)side;
    memcpy(buf + len, ckpt->data, ckpt->len);
    len += ckpt->len;
    buf[len++] = 0;
    memcpy(buf + len, rp->data, rp->len);
    len += rp->len;
    memcpy(buf + len, seg->data, seg_len);
    put("log_open", name, buf, len + seg_len);
}

static void real_log_seeds(void)
{
    static file_bytes seg, ckpt, rp;
    const char *dir = fuzz_scratch_dir();
    char err[256];
    kq_log *log = dir ? kq_log_open(dir, 1u << 20, err, sizeof err) : NULL;
    if (!log)
        exit(1);
    append_flushed(log, 1, 2, true);
    append_flushed(log, 1, 3, true);
    append_flushed(log, 2, 4, true);
    append_flushed(log, 2, 2, true);
    append_flushed(log, 3, 1, false); /* the recovery point lags behind this one */
    kq_log_abandon(log);
    slurp(dir, "00000000000000000000.log", &seg);
    slurp(dir, "leader-epoch-checkpoint", &ckpt);
    slurp(dir, KQ_LOG_RECOVERY_POINT_FILE, &rp);
    const uint8_t rp_flags = 2 | 16 | 32;
    put_real("real-recovery-point", rp_flags, &ckpt, &rp, &seg, seg.len);
    put_real("real-tail-above-recovery-point", rp_flags, &ckpt, &rp, &seg, seg.len - 9);
    seg.data[70] ^= 0x01; /* in the first batch's records: refused, or repaired */
    put_real("real-corrupt-below", rp_flags, &ckpt, &rp, &seg, seg.len);
    put_real("real-corrupt-below-repair", rp_flags | 64, &ckpt, &rp, &seg, seg.len);
    fuzz_clear_dir(dir);
}

/* ---- snapshot files ----------------------------------------------------- */

/* flags byte, epoch (4), end offset (8), then the file. */
static void put_snapshot(const char *name, uint8_t flags, const kq_snapshot_meta *m,
                         const uint8_t *file, size_t len)
{
    static uint8_t buf[SEED_BYTES_MAX];
    if (len + 13 > sizeof buf)
        exit(1);
    buf[0] = flags;
    for (int i = 0; i < 4; i++)
        buf[1 + i] = (uint8_t)((uint32_t)m->id.epoch >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        buf[5 + i] = (uint8_t)((uint64_t)m->id.end_offset >> (56 - 8 * i));
    memcpy(buf + 13, file, len);
    put("snapshot_state", name, buf, len + 13);
}

static void snapshot_seeds(void)
{
    kq_snapshot_meta m;
    memset(&m, 0, sizeof(m));
    m.id.end_offset = 1234;
    m.id.epoch = 7;
    m.last_contained_timestamp_ms = 1764600000000LL;
    m.voter_count = 3;
    for (int i = 0; i < 3; i++)
        m.voter_ids[i] = i + 1;
    m.pid_max_count = 2;
    m.pid_max[0].node_prefix = 1;
    m.pid_max[0].max_id = 1001;
    m.pid_max[1].node_prefix = 3;
    m.pid_max[1].max_id = 3000000000017LL;
    producer_state *ps = producer_state_create(64);
    kq_writer w;
    kq_writer_init(&w, 0);
    if (!ps || kq_snapshot_encode(ps, NULL, &m, &w) != 0)
        exit(1);
    put_snapshot("empty-table", 2, &m, w.data, w.len);
    for (int i = 0; i < 6; i++)
        for (int k = 0; k <= i; k++)
            producer_state_record(ps, 4000 + i, (int16_t)i, 10 * k, 10 * k + 9,
                                  100 * i + 10 * k, 100 * i + 10 * k + 9);
    producer_state_record(ps, 4001, 1, 20, 29, 900, 909);
    kq_writer_reset(&w);
    if (kq_snapshot_encode(ps, NULL, &m, &w) != 0)
        exit(1);
    put_snapshot("six-producers", 4, &m, w.data, w.len);
    put_snapshot("six-producers-table-1", 0, &m, w.data, w.len);
    put_snapshot("six-producers-sealed", 5, &m, w.data, w.len);
    put_snapshot("six-producers-truncated", 4, &m, w.data, w.len - 20);
    m.id.epoch = 8;
    put_snapshot("six-producers-other-epoch", 4, &m, w.data, w.len);
    m.id.epoch = 7;
    group_offsets *o = group_offsets_create();
    group_offset e[] = {
        { .group_id = "g", .topic = "t", .partition = 0, .offset = 5, .leader_epoch = -1 },
        { .group_id = "g", .topic = "t", .partition = 1, .offset = -1, .leader_epoch = 2,
          .metadata = "md", .commit_timestamp_ms = 1764600000000LL },
        { .group_id = "h", .topic = "u", .partition = 3, .offset = 9, .metadata = "" },
    };
    for (int i = 0; i < 3; i++)
        if (!o || !group_offsets_restore(o, &e[i]))
            exit(1);
    kq_writer_reset(&w);
    if (kq_snapshot_encode(ps, o, &m, &w) != 0)
        exit(1);
    put_snapshot("group-offsets", 4, &m, w.data, w.len);
    put_snapshot("group-offsets-sealed", 5, &m, w.data, w.len);
    /* Group membership (issue 24): a classic group, its member, a consumer
     * group's opaque record. */
    group_store *gs = group_store_create();
    kq_writer body;
    kq_writer_init(&body, 0);
    group_store_classic_group cg = {.state = 3, .generation = 4, .protocol_type = "consumer",
                                    .protocol_name = "range", .leader_id = "m-1",
                                    .state_timestamp_ms = 1764600000000LL};
    group_store_classic_group_write(&body, &cg);
    group_store_record r = {.kind = GROUP_STORE_GROUP, .group_id = "g",
                            .type = GROUP_STORE_TYPE_CLASSIC, .body = body.data,
                            .body_len = body.len};
    if (!gs || !group_store_restore(gs, &r))
        exit(1);
    kq_writer_reset(&body);
    group_store_classic_member cm = {.instance_id = "i-1", .client_id = "c", .client_host = "h",
                                     .session_timeout_ms = 10000, .rebalance_timeout_ms = 300000,
                                     .metadata = (const uint8_t *)"sub", .metadata_len = 3,
                                     .assignment = (const uint8_t *)"as", .assignment_len = 2};
    group_store_classic_member_write(&body, &cm);
    r = (group_store_record){.kind = GROUP_STORE_MEMBER, .group_id = "g", .member_id = "m-1",
                             .type = GROUP_STORE_TYPE_CLASSIC, .body = body.data,
                             .body_len = body.len};
    if (!group_store_restore(gs, &r))
        exit(1);
    r = (group_store_record){.kind = GROUP_STORE_GROUP, .group_id = "k",
                             .type = GROUP_STORE_TYPE_CONSUMER, .body = (const uint8_t *)"x",
                             .body_len = 1};
    if (!group_store_restore(gs, &r))
        exit(1);
    kq_writer_reset(&w);
    if (kq_snapshot_encode_groups(ps, o, NULL, gs, &m, NULL, &w) != 0)
        exit(1);
    put_snapshot("group-store", 4, &m, w.data, w.len);
    put_snapshot("group-store-sealed", 5, &m, w.data, w.len);
    kq_writer_free(&body);
    group_store_destroy(gs);
    group_offsets_destroy(o);
    kq_writer_free(&w);
    producer_state_destroy(ps);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    corpus = argv[1];
    wire_seeds();
    handler_frame_seeds();
    record_seeds();
    log_seeds();
    real_log_seeds();
    snapshot_seeds();
    return 0;
}
