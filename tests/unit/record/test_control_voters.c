/* KIP-853 control records (src/record/control_voters.c): VotersRecord and
 * KRaftVersionRecord values, the control batch that carries them, and the
 * scan that finds them in a log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kq/buf.h"
#include "kq/record.h"
#include "kq/voter_set.h"

/* VotersRecord v0 for one voter, computed by hand from VotersRecord.json:
 * id 1, directory id 01..10, endpoint CONTROLLER://localhost:19093,
 * kraft.version 0..1. */
static const uint8_t golden_voters[] = {
    0x00, 0x00,             /* Version 0 */
    0x02,                   /* Voters: 1 (compact) */
    0x00, 0x00, 0x00, 0x01, /* VoterId 1 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* VoterDirectoryId */
    0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
    0x02,                   /* Endpoints: 1 */
    0x0b, 'C', 'O', 'N', 'T', 'R', 'O', 'L', 'L', 'E', 'R', /* Name */
    0x0a, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't',      /* Host */
    0x4a, 0x95,             /* Port 19093 */
    0x00,                   /* Endpoint tags */
    0x00, 0x00, 0x00, 0x01, /* MinSupportedVersion 0, MaxSupportedVersion 1 */
    0x00,                   /* KRaftVersionFeature tags */
    0x00,                   /* Voter tags */
    0x00,                   /* tags */
};
/* Offsets into golden_voters of fields the refusal tests edit. */
enum { GV_COUNT = 2, GV_ID = 3, GV_ENDPOINTS = 23, GV_NAME_LEN = 24, GV_HOST_LEN = 35,
       GV_MIN = 48, GV_MAX = 50 };

static const uint8_t golden_kraft_version_1[] = { 0x00, 0x00, 0x00, 0x01, 0x00 };

/* LeaderChangeMessage v0: leader 2, voters {1,2,3}, granting {2,3}. */
static const uint8_t golden_leader_change[] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x03, 0x00,
    0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
};

static kq_voter voter(int32_t id, uint8_t dir_seed, const char *host, uint16_t port)
{
    kq_voter v;
    memset(&v, 0, sizeof v);
    v.id = id;
    for (int i = 0; i < 16 && dir_seed; i++)
        v.directory_id.bytes[i] = (uint8_t)(dir_seed + i);
    strcpy(v.listener, "CONTROLLER");
    strcpy(v.host, host);
    v.port = port;
    v.kraft_version_min = 0;
    v.kraft_version_max = 1;
    return v;
}

static kq_slice slice(const uint8_t *p, size_t n)
{
    return (kq_slice){ p, (int32_t)n };
}

static void test_voters_golden(void **state)
{
    (void)state;
    kq_voter_set set = { .count = 1 };
    set.voters[0] = voter(1, 1, "localhost", 19093);
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    record_write_voters_value(&w, &set);
    assert_false(w.error);
    assert_int_equal(w.len, sizeof golden_voters);
    assert_memory_equal(w.data, golden_voters, sizeof golden_voters);
    kq_writer_free(&w);

    kq_voter_set got;
    assert_null(record_parse_voters(slice(golden_voters, sizeof golden_voters), &got));
    assert_int_equal(got.count, 1);
    assert_memory_equal(&got.voters[0], &set.voters[0], sizeof(kq_voter));
}

static void round_trip(const kq_voter_set *set)
{
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    record_write_voters_value(&w, set);
    assert_false(w.error);
    kq_voter_set got;
    memset(&got, 0xee, sizeof got);
    assert_null(record_parse_voters(slice(w.data, w.len), &got));
    assert_int_equal(got.count, set->count);
    assert_memory_equal(got.voters, set->voters, sizeof(kq_voter) * (size_t)set->count);
    kq_writer_free(&w);
}

static void test_voters_round_trip(void **state)
{
    (void)state;
    kq_voter_set set;
    memset(&set, 0, sizeof set);
    /* The most voters, a zero directory id (upgraded from static voters),
     * the longest host, a wider kraft.version range. */
    for (int i = 0; i < KQ_VOTER_SET_MAX; i++)
        set.voters[i] = voter(100 - i, (uint8_t)i, "h", (uint16_t)(9000 + i));
    set.count = KQ_VOTER_SET_MAX;
    memset(set.voters[3].host, 'x', KQ_VOTER_NAME_BYTES_MAX);
    set.voters[3].host[KQ_VOTER_NAME_BYTES_MAX] = '\0';
    set.voters[4].kraft_version_min = 1;
    set.voters[4].kraft_version_max = 7;
    set.voters[5].port = 65535;
    round_trip(&set);
    set.count = 1;
    round_trip(&set);
}

/* Parses golden_voters with byte at set to val (and the rest as is). */
static const char *parse_edited(size_t at, uint8_t val)
{
    uint8_t b[sizeof golden_voters];
    memcpy(b, golden_voters, sizeof b);
    b[at] = val;
    kq_voter_set got;
    return record_parse_voters(slice(b, sizeof b), &got);
}

/* Writes set as a value (without the checks of record_build_control) and
 * returns what the parser says of it. */
static const char *parse_written(const kq_voter_set *set)
{
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    record_write_voters_value(&w, set);
    kq_voter_set got;
    const char *why = record_parse_voters(slice(w.data, w.len), &got);
    if (why)
        assert_int_equal(got.count, 0);
    kq_writer_free(&w);
    return why;
}

static void test_voters_refusals(void **state)
{
    (void)state;
    kq_voter_set got;
    for (size_t len = 0; len < sizeof golden_voters; len++)
        assert_non_null(record_parse_voters(slice(golden_voters, len), &got));
    uint8_t trailing[sizeof golden_voters + 1];
    memcpy(trailing, golden_voters, sizeof golden_voters);
    trailing[sizeof golden_voters] = 0;
    assert_non_null(record_parse_voters(slice(trailing, sizeof trailing), &got));
    assert_non_null(record_parse_voters((kq_slice){ NULL, -1 }, &got));

    assert_non_null(parse_edited(1, 1));              /* Version 1 */
    assert_non_null(parse_edited(GV_COUNT, 1));       /* no voters */
    assert_non_null(parse_edited(GV_COUNT, 0));       /* null array */
    assert_non_null(parse_edited(GV_ID, 0x80));       /* negative id */
    assert_non_null(parse_edited(GV_ENDPOINTS, 1));   /* no endpoints */
    assert_non_null(parse_edited(GV_ENDPOINTS, 0));   /* null endpoints */
    assert_non_null(parse_edited(GV_NAME_LEN + 1, 0)); /* a NUL in the name */
    assert_non_null(parse_edited(GV_MIN + 1, 2));     /* min 2 > max 1 */
    assert_non_null(parse_edited(GV_MIN, 0x80));      /* negative min */
    assert_null(parse_edited(GV_MAX + 1, 2));          /* max 2: accepted */

    kq_voter_set set;
    memset(&set, 0, sizeof set);
    set.voters[0] = voter(1, 1, "a", 1);
    set.voters[1] = voter(2, 2, "b", 2);
    set.count = 2;
    assert_null(parse_written(&set));
    set.voters[1].id = 1;
    assert_non_null(parse_written(&set)); /* a voter listed twice */
    set.voters[1].id = 2;
    set.voters[1].listener[0] = '\0';
    assert_non_null(parse_written(&set)); /* empty listener (a static voter) */
    set.voters[1] = voter(2, 2, "", 2);
    assert_non_null(parse_written(&set)); /* empty host */
}

/* One Voter entry written by hand: id, a zero directory id, endpoint
 * CONTROLLER://a:1 and, when host2, a second endpoint OTHER://host2:2. */
static void write_voter_by_hand(kq_writer *w, int32_t id, const char *host2)
{
    kq_write_i32(w, id);
    kq_write_uuid(w, (kq_uuid){ { 0 } });
    kq_write_compact_array_len(w, host2 ? 2 : 1);
    kq_write_compact_cstring(w, "CONTROLLER");
    kq_write_compact_cstring(w, "a");
    kq_write_u16(w, 1);
    kq_write_empty_tagged_fields(w);
    if (host2) {
        kq_write_compact_cstring(w, "OTHER");
        kq_write_compact_cstring(w, host2);
        kq_write_u16(w, 2);
        kq_write_empty_tagged_fields(w);
    }
    kq_write_i16(w, 0);
    kq_write_i16(w, 1);
    kq_write_empty_tagged_fields(w);
    kq_write_empty_tagged_fields(w);
}

/* Values written by hand where the writer cannot: a second endpoint (with
 * a host one byte too long), one voter more than the limit. */
static void test_voters_refusals_by_hand(void **state)
{
    (void)state;
    kq_voter_set got;
    kq_writer w;
    char host[KQ_VOTER_NAME_BYTES_MAX + 2];
    memset(host, 'x', sizeof host - 1);
    host[sizeof host - 1] = '\0';
    for (int bad_host = 0; bad_host < 2; bad_host++) {
        kq_writer_init(&w, 1 << 20);
        kq_write_i16(&w, 0);
        kq_write_compact_array_len(&w, 1);
        write_voter_by_hand(&w, 1, bad_host ? host : "b");
        kq_write_empty_tagged_fields(&w);
        const char *why = record_parse_voters(slice(w.data, w.len), &got);
        if (bad_host) {
            assert_non_null(why); /* every endpoint is checked */
        } else {
            assert_null(why); /* the first endpoint is kept */
            assert_string_equal(got.voters[0].listener, "CONTROLLER");
            assert_string_equal(got.voters[0].host, "a");
            assert_int_equal(got.voters[0].port, 1);
        }
        kq_writer_free(&w);
    }

    for (int n = KQ_VOTER_SET_MAX; n <= KQ_VOTER_SET_MAX + 1; n++) {
        kq_writer_init(&w, 1 << 20);
        kq_write_i16(&w, 0);
        kq_write_compact_array_len(&w, n);
        for (int i = 0; i < n; i++)
            write_voter_by_hand(&w, i, NULL);
        kq_write_empty_tagged_fields(&w);
        const char *why = record_parse_voters(slice(w.data, w.len), &got);
        if (n > KQ_VOTER_SET_MAX)
            assert_non_null(why);
        else
            assert_null(why);
        kq_writer_free(&w);
    }
}

static void test_kraft_version(void **state)
{
    (void)state;
    for (int16_t level = 0; level <= 1; level++) {
        kq_writer w;
        kq_writer_init(&w, 1 << 20);
        record_write_kraft_version_value(&w, level);
        if (level == 1) {
            assert_int_equal(w.len, sizeof golden_kraft_version_1);
            assert_memory_equal(w.data, golden_kraft_version_1, w.len);
        }
        int16_t got = -1;
        assert_null(record_parse_kraft_version(slice(w.data, w.len), &got));
        assert_int_equal(got, level);
        kq_writer_free(&w);
    }
    int16_t got = 7;
    for (size_t len = 0; len < sizeof golden_kraft_version_1; len++)
        assert_non_null(record_parse_kraft_version(slice(golden_kraft_version_1, len), &got));
    static const uint8_t trailing[] = { 0, 0, 0, 1, 0, 0 };
    static const uint8_t version1[] = { 0, 1, 0, 1, 0 };
    static const uint8_t level2[] = { 0, 0, 0, 2, 0 };
    static const uint8_t negative[] = { 0, 0, 0xff, 0xff, 0 };
    assert_non_null(record_parse_kraft_version(slice(trailing, sizeof trailing), &got));
    assert_non_null(record_parse_kraft_version(slice(version1, sizeof version1), &got));
    assert_non_null(record_parse_kraft_version(slice(level2, sizeof level2), &got));
    assert_non_null(record_parse_kraft_version(slice(negative, sizeof negative), &got));
    assert_non_null(record_parse_kraft_version((kq_slice){ NULL, -1 }, &got));
    assert_int_equal(got, 7); /* untouched by refusals */
}

static const int32_t lc_voters[] = { 1, 2, 3 };
static const int32_t lc_granting[] = { 2, 3 };

static record_control_args lc_args(int64_t base_offset)
{
    return (record_control_args){
        .base_offset = base_offset, .epoch = 7, .timestamp_ms = 1234567,
        .leader_id = 2, .lc_voters = lc_voters, .lc_voter_count = 3,
        .lc_granting = lc_granting, .lc_granting_count = 2,
        .kraft_version = -1, .voters = NULL,
    };
}

/* A LeaderChange-only control batch is what the LeaderChange builder
 * writes and what a batch built independently around the golden value is. */
static void test_build_control_leader_change_only(void **state)
{
    (void)state;
    record_control_args a = lc_args(42);
    kq_writer got, lc, want;
    kq_writer_init(&got, 1 << 20);
    kq_writer_init(&lc, 1 << 20);
    kq_writer_init(&want, 1 << 20);
    assert_true(record_build_control(&got, &a));
    assert_true(record_build_leader_change(&lc, 42, 7, 1234567, 2, lc_voters, 3, lc_granting, 2));
    static const uint8_t key[] = { 0, 0, 0, RECORD_CONTROL_LEADER_CHANGE };
    record rec = { .timestamp = 1234567, .key = slice(key, 4),
                   .value = slice(golden_leader_change, sizeof golden_leader_change) };
    record_batch_builder_args b = {
        .base_offset = 42, .partition_leader_epoch = 7, .attributes = RECORD_ATTR_CONTROL,
        .base_timestamp = 1234567, .producer_id = -1, .producer_epoch = -1,
        .base_sequence = -1, .records = &rec, .record_count = 1,
    };
    assert_true(record_batch_build(&want, &b));
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, want.len);
    assert_int_equal(lc.len, want.len);
    assert_memory_equal(lc.data, want.data, want.len);
    kq_writer_free(&got);
    kq_writer_free(&lc);
    kq_writer_free(&want);
}

static kq_voter_set one_voter_set(void)
{
    kq_voter_set set;
    memset(&set, 0, sizeof set);
    set.voters[0] = voter(1, 1, "localhost", 19093);
    set.count = 1;
    return set;
}

static void test_build_control_all_three(void **state)
{
    (void)state;
    kq_voter_set set = one_voter_set();
    record_control_args a = lc_args(10);
    a.kraft_version = 1;
    a.voters = &set;
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(record_build_control(&w, &a));
    record_batch_header h;
    assert_int_equal(record_batch_check(w.data, w.len, &h), RECORD_OK);
    assert_int_equal(record_set_validate(w.data, w.len, true, NULL), RECORD_OK);
    assert_true(record_batch_is_control(&h));
    assert_int_equal(h.record_count, 3);
    assert_int_equal(h.partition_leader_epoch, 7);
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, w.data, w.len), RECORD_OK);
    static const int types[] = { RECORD_CONTROL_LEADER_CHANGE, RECORD_CONTROL_KRAFT_VERSION,
                                 RECORD_CONTROL_VOTERS };
    static const struct { const uint8_t *p; size_t n; } values[] = {
        { golden_leader_change, sizeof golden_leader_change },
        { golden_kraft_version_1, sizeof golden_kraft_version_1 },
        { golden_voters, sizeof golden_voters },
    };
    for (int i = 0; i < 3; i++) {
        assert_true(record_iter_next(&it, &rec));
        assert_int_equal(rec.offset, 10 + i);
        assert_int_equal(record_control_type(rec.key), types[i]);
        assert_int_equal(rec.value.len, values[i].n);
        assert_memory_equal(rec.value.ptr, values[i].p, values[i].n);
    }
    assert_false(record_iter_next(&it, &rec));
    assert_int_equal(it.status, RECORD_OK);
    record_iter_close(&it);
    kq_writer_free(&w);
}

static bool builds(const record_control_args *a)
{
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    bool ok = record_build_control(&w, a);
    if (!ok)
        assert_int_equal(w.len, 0);
    kq_writer_free(&w);
    return ok;
}

static void test_build_control_refusals(void **state)
{
    (void)state;
    kq_voter_set set = one_voter_set();
    record_control_args a = lc_args(0);
    a.leader_id = -1;
    assert_false(builds(&a)); /* nothing to write */
    a.kraft_version = 2;
    assert_false(builds(&a));
    a.kraft_version = 0;
    assert_true(builds(&a));
    a.kraft_version = -1;
    a.voters = &set;
    assert_true(builds(&a)); /* a Voters record alone (a voter change) */
    set.count = 0;
    assert_false(builds(&a));
    set = one_voter_set();
    set.voters[0].listener[0] = '\0'; /* a static voter has no listener */
    assert_false(builds(&a));
    set = one_voter_set();
    set.voters[0].kraft_version_min = 2;
    assert_false(builds(&a));
    set = one_voter_set();
    set.voters[1] = set.voters[0];
    set.count = 2;
    assert_false(builds(&a)); /* listed twice */
    a = lc_args(0);
    a.lc_voter_count = -1;
    assert_false(builds(&a));
    a = lc_args(0);
    a.lc_granting = NULL;
    assert_false(builds(&a));
}

typedef struct seen {
    int n;
    int64_t offsets[8];
    int types[8];
    int stop_at; /* return 9 on this call (1-based), 0: never */
} seen;

static int on_record(void *ctx, int64_t offset, int type, kq_slice value)
{
    seen *s = ctx;
    assert_true(s->n < 8);
    s->offsets[s->n] = offset;
    s->types[s->n] = type;
    s->n++;
    if (type == RECORD_CONTROL_VOTERS) {
        kq_voter_set set;
        assert_null(record_parse_voters(value, &set));
    } else {
        int16_t level;
        assert_null(record_parse_kraft_version(value, &level));
    }
    return s->n == s->stop_at ? 9 : 0;
}

static void data_batch(kq_writer *w, int64_t base_offset, int count)
{
    static const uint8_t v[] = "value";
    record recs[4];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < count; i++) {
        recs[i].key = (kq_slice){ NULL, -1 };
        recs[i].value = slice(v, 5);
    }
    record_batch_builder_args a = {
        .base_offset = base_offset, .partition_leader_epoch = 7, .base_timestamp = 1,
        .producer_id = -1, .producer_epoch = -1, .base_sequence = -1,
        .records = recs, .record_count = count,
    };
    assert_true(record_batch_build(w, &a));
}

/* data 0..2 | LeaderChange 3 | data 4..5 | LC+KRaftVersion+Voters 6..8 |
 * Voters 9 | data 10 (its record count broken: a data batch is not read). */
static void mixed_log(kq_writer *w, kq_voter_set *set)
{
    *set = one_voter_set();
    data_batch(w, 0, 3);
    record_control_args a = lc_args(3);
    assert_true(record_build_control(w, &a));
    data_batch(w, 4, 2);
    a = lc_args(6);
    a.kraft_version = 1;
    a.voters = set;
    assert_true(record_build_control(w, &a));
    a = lc_args(9);
    a.leader_id = -1;
    a.voters = set;
    assert_true(record_build_control(w, &a));
    size_t last = w->len;
    data_batch(w, 10, 1);
    w->data[last + 60] = 5; /* RecordsCount 5 of 1 */
}

static void test_scan(void **state)
{
    (void)state;
    kq_voter_set set;
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    mixed_log(&w, &set);
    seen s = { 0 };
    assert_int_equal(record_scan_voter_records(w.data, w.len, on_record, &s), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.offsets[0], 7);
    assert_int_equal(s.types[0], RECORD_CONTROL_KRAFT_VERSION);
    assert_int_equal(s.offsets[1], 8);
    assert_int_equal(s.types[1], RECORD_CONTROL_VOTERS);
    assert_int_equal(s.offsets[2], 9);
    assert_int_equal(s.types[2], RECORD_CONTROL_VOTERS);

    /* A partial batch at the end is ignored, wherever it is cut. */
    size_t full = w.len;
    data_batch(&w, 11, 1);
    size_t cut = w.len - 1;
    record_control_args a = lc_args(12);
    a.kraft_version = 1;
    size_t ctl = w.len;
    assert_true(record_build_control(&w, &a));
    memset(&s, 0, sizeof s);
    assert_int_equal(record_scan_voter_records(w.data, cut, on_record, &s), 0);
    assert_int_equal(s.n, 3);
    memset(&s, 0, sizeof s);
    assert_int_equal(record_scan_voter_records(w.data, w.len - 1, on_record, &s), 0);
    assert_int_equal(s.n, 3);
    memset(&s, 0, sizeof s);
    assert_int_equal(record_scan_voter_records(w.data, w.len, on_record, &s), 0);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.offsets[3], 13);

    /* fn's first non-zero result stops the scan. */
    memset(&s, 0, sizeof s);
    s.stop_at = 2;
    assert_int_equal(record_scan_voter_records(w.data, w.len, on_record, &s), 9);
    assert_int_equal(s.n, 2);

    /* A control batch whose records do not iterate. */
    w.data[ctl + 60] = 7; /* RecordsCount 7 of 2 */
    memset(&s, 0, sizeof s);
    assert_int_equal(record_scan_voter_records(w.data, w.len, on_record, &s), -1);
    /* Not a batch at all (bad magic). */
    w.data[full + 16] = 1;
    memset(&s, 0, sizeof s);
    assert_int_equal(record_scan_voter_records(w.data, w.len, on_record, &s), -1);
    assert_int_equal(s.n, 3);
    assert_int_equal(record_scan_voter_records(w.data, 0, on_record, &s), 0);
    kq_writer_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voters_golden),
        cmocka_unit_test(test_voters_round_trip),
        cmocka_unit_test(test_voters_refusals),
        cmocka_unit_test(test_voters_refusals_by_hand),
        cmocka_unit_test(test_kraft_version),
        cmocka_unit_test(test_build_control_leader_change_only),
        cmocka_unit_test(test_build_control_all_three),
        cmocka_unit_test(test_build_control_refusals),
        cmocka_unit_test(test_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
