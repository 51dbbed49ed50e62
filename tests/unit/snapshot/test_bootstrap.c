/* Kafka's bootstrap snapshot (kq/bootstrap_snapshot.h): ours decoded with
 * our record batch code, every field checked, and the KRaftVersion, Voters
 * and footer values compared byte for byte with the file Kafka 4.4.0's
 * StorageTool wrote for the same node (kafka_bootstrap_golden.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/uuid.h"
#include "kq/record.h"
#include "kafka_bootstrap_golden.h"

#define TS 1796466081873LL /* Kafka's file's batch timestamp (0x1a24c28c051-ish) */

typedef struct batch_view {
    record_batch_header h;
    int n;
    int types[8];
    kq_slice values[8];
    int64_t ts[8];
} batch_view;

/* Splits a file into its batches, checking each CRC; returns the count. */
static int split(const uint8_t *data, size_t len, batch_view *out, int max)
{
    int k = 0;
    size_t pos = 0;
    while (pos < len) {
        assert_true(k < max);
        batch_view *b = &out[k++];
        memset(b, 0, sizeof *b);
        assert_int_equal(record_batch_check(data + pos, len - pos, &b->h), RECORD_OK);
        record_iter it;
        assert_int_equal(record_iter_open(&it, data + pos, len - pos), RECORD_OK);
        record r;
        while (record_iter_next(&it, &r)) {
            assert_true(b->n < 8);
            b->types[b->n] = record_batch_is_control(&b->h) ? record_control_type(r.key) : -1;
            b->values[b->n] = r.value;
            b->ts[b->n] = r.timestamp;
            b->n++;
        }
        assert_int_equal(it.status, RECORD_OK);
        record_iter_close(&it);
        assert_int_equal(b->n, b->h.record_count);
        pos += record_batch_size(&b->h);
    }
    assert_int_equal(pos, len);
    return k;
}

static void standalone(kq_bootstrap *b)
{
    memset(b, 0, sizeof *b);
    b->kraft_version = 1;
    b->has_voters = true;
    b->voters.count = 1;
    b->timestamp_ms = TS;
    b->voters.voters[0].id = 1;
    assert_int_equal(kq_uuid_from_string(kafka_dir_id, strlen(kafka_dir_id),
                                         &b->voters.voters[0].directory_id), 0);
    strcpy(b->voters.voters[0].listener, "CONTROLLER");
    strcpy(b->voters.voters[0].host, "localhost");
    b->voters.voters[0].port = 19093;
    b->voters.voters[0].kraft_version_max = 1;
}

static void assert_slice_equal(kq_slice a, kq_slice b)
{
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.ptr, b.ptr, (size_t)a.len);
}

static void test_standalone_matches_kafka(void **state)
{
    (void)state;
    kq_bootstrap b;
    standalone(&b);
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(kq_bootstrap_encode(&w, &b));
    batch_view ours[4], kafka[4];
    assert_int_equal(split(w.data, w.len, ours, 4), 2);
    assert_int_equal(split(kafka_bootstrap, sizeof kafka_bootstrap, kafka, 4), 3);
    /* Kafka: control batch (header, kraft.version, voters), a data batch of
     * FeatureLevelRecords, the footer. Ours: the same without the middle. */
    const batch_view *o = &ours[0], *k = &kafka[0];
    assert_int_equal(o->h.base_offset, 0);
    assert_int_equal(o->h.partition_leader_epoch, 0);
    assert_int_equal(o->h.magic, 2);
    assert_int_equal(o->h.attributes, k->h.attributes); /* control, no compression */
    assert_int_equal(o->h.last_offset_delta, 2);
    assert_int_equal(o->h.base_timestamp, TS);
    assert_int_equal(o->h.max_timestamp, TS);
    assert_int_equal(o->h.producer_id, -1);
    assert_int_equal(o->h.producer_epoch, -1);
    assert_int_equal(o->h.base_sequence, -1);
    assert_int_equal(o->n, 3);
    assert_int_equal(k->n, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(o->types[i], k->types[i]);
        assert_int_equal(o->ts[i], TS);
    }
    assert_int_equal(o->types[0], 3);
    assert_int_equal(o->types[1], RECORD_CONTROL_KRAFT_VERSION);
    assert_int_equal(o->types[2], RECORD_CONTROL_VOTERS);
    /* Header: version 0, LastContainedLogTimestamp, no tags. */
    assert_int_equal(o->values[0].len, 11);
    assert_int_equal(k->values[0].len, 11);
    assert_memory_equal(o->values[0].ptr, k->values[0].ptr, 2);
    assert_slice_equal(o->values[1], k->values[1]); /* KRaftVersion 1 */
    assert_slice_equal(o->values[2], k->values[2]); /* the voter, byte for byte */
    const batch_view *of = &ours[1], *kf = &kafka[2];
    assert_int_equal(kafka[1].h.attributes & RECORD_ATTR_CONTROL, 0);
    assert_int_equal(of->h.base_offset, 3);
    assert_int_equal(kf->h.base_offset, 9);
    assert_int_equal(of->h.partition_leader_epoch, 0);
    assert_int_equal(of->h.attributes, kf->h.attributes);
    assert_int_equal(of->n, 1);
    assert_int_equal(of->types[0], 4);
    assert_int_equal(kf->types[0], 4);
    assert_slice_equal(of->values[0], kf->values[0]);
    kq_writer_free(&w);
}

static void test_kraft_version_0_and_no_voters(void **state)
{
    (void)state;
    kq_bootstrap b;
    memset(&b, 0, sizeof b);
    b.timestamp_ms = TS;
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(kq_bootstrap_encode(&w, &b));
    batch_view v[4];
    assert_int_equal(split(w.data, w.len, v, 4), 2);
    assert_int_equal(v[0].n, 1);
    assert_int_equal(v[0].types[0], 3);
    assert_int_equal(v[1].h.base_offset, 1);
    kq_writer_free(&w);
    b.kraft_version = 1; /* --no-initial-controllers: KRaftVersion, no Voters */
    kq_writer_init(&w, 1 << 20);
    assert_true(kq_bootstrap_encode(&w, &b));
    assert_int_equal(split(w.data, w.len, v, 4), 2);
    assert_int_equal(v[0].n, 2);
    assert_int_equal(v[0].types[1], RECORD_CONTROL_KRAFT_VERSION);
    assert_int_equal(v[1].h.base_offset, 2);
    kq_writer_free(&w);
}

static void test_refusals(void **state)
{
    (void)state;
    kq_bootstrap b;
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    standalone(&b);
    b.kraft_version = 0; /* voters need kraft.version 1, as Kafka's builder */
    assert_false(kq_bootstrap_encode(&w, &b));
    standalone(&b);
    b.kraft_version = 2;
    assert_false(kq_bootstrap_encode(&w, &b));
    standalone(&b);
    b.voters.count = 0;
    assert_false(kq_bootstrap_encode(&w, &b));
    assert_int_equal(w.len, 0);
    kq_writer_free(&w);
}

static void test_decode_kafka_and_ours(void **state)
{
    (void)state;
    kq_bootstrap got, want;
    char err[256];
    standalone(&want);
    assert_int_equal(kq_bootstrap_decode(kafka_bootstrap, sizeof kafka_bootstrap, &got, err,
                                         sizeof err), 0);
    assert_int_equal(got.kraft_version, 1);
    assert_true(got.has_voters);
    assert_int_equal(got.voters.count, 1);
    assert_int_equal(got.voters.voters[0].id, 1);
    assert_memory_equal(got.voters.voters[0].directory_id.bytes, want.voters.voters[0].directory_id.bytes, 16);
    assert_string_equal(got.voters.voters[0].listener, "CONTROLLER");
    assert_string_equal(got.voters.voters[0].host, "localhost");
    assert_int_equal(got.voters.voters[0].port, 19093);
    /* Ours, two voters, round trip. */
    want.voters.count = 2;
    want.voters.voters[1] = want.voters.voters[0];
    want.voters.voters[1].id = 2;
    want.voters.voters[1].port = 19094;
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(kq_bootstrap_encode(&w, &want));
    assert_int_equal(kq_bootstrap_decode(w.data, w.len, &got, err, sizeof err), 0);
    assert_int_equal(got.voters.count, 2);
    assert_int_equal(got.voters.voters[1].id, 2);
    assert_int_equal(got.voters.voters[1].port, 19094);
    assert_int_equal(got.timestamp_ms, TS);
    kq_writer_free(&w);
}

static void decode_refused(const uint8_t *data, size_t len, const char *want)
{
    kq_bootstrap b;
    char err[256] = "";
    assert_int_equal(kq_bootstrap_decode(data, len, &b, err, sizeof err), -EBADMSG);
    if (!strcasestr(err, want))
        fail_msg("got '%s', want '%s'", err, want);
}

static void test_decode_refusals(void **state)
{
    (void)state;
    uint8_t f[sizeof kafka_bootstrap];
    memcpy(f, kafka_bootstrap, sizeof f);
    decode_refused(f, sizeof f - 1, "TRUNCATED");
    decode_refused(f, sizeof f - 74, "TRUNCATED"); /* cut inside the footer (75 bytes) */
    decode_refused(f, sizeof f - 75, "no SnapshotFooter");
    f[100] ^= 1; /* inside the Voters record */
    decode_refused(f, sizeof f, "CRC");
    memcpy(f, kafka_bootstrap, sizeof f);
    f[7] = 1; /* base offset 1 (outside the CRC) */
    decode_refused(f, sizeof f, "not contiguous");
    memcpy(f, kafka_bootstrap, sizeof f);
    f[11 + 4] = 0; /* PartitionLeaderEpoch 1 instead of 0 (outside the CRC) */
    f[15] = 1;
    decode_refused(f, sizeof f, "epoch not 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standalone_matches_kafka),
        cmocka_unit_test(test_kraft_version_0_and_no_voters),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_decode_kafka_and_ours),
        cmocka_unit_test(test_decode_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
