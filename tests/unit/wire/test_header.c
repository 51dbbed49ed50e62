#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kq/wire.h"
#include "client_api_test_util.h"

/* Every proper prefix of a header fails to decode. */
#define CHECK_TRUNCATIONS_HEADER(data, len)                                      \
    do {                                                                         \
        for (size_t k_ = 0; k_ < (len); k_++) {                                  \
            uint8_t *copy_ = malloc(k_ ? k_ : 1);                                \
            memcpy(copy_, (data), k_);                                           \
            kq_reader r_;                                                        \
            kq_reader_init(&r_, copy_, k_);                                      \
            wire_request_header h_;                                              \
            assert_int_equal(wire_request_header_decode(&r_, &h_), -1);          \
            free(copy_);                                                         \
        }                                                                        \
    } while (0)

static void test_request_header_v1_golden(void **state)
{
    (void)state;
    static const uint8_t golden[] = {
        0x00, 0x03,             /* api_key 3 (Metadata) */
        0x00, 0x08,             /* api_version 8 (not flexible -> header v1) */
        0x00, 0x00, 0x00, 0x07, /* correlation_id 7 */
        0x00, 0x02, 'a', 'b',   /* client_id "ab" (int16 length) */
    };
    wire_request_header h = {WIRE_API_METADATA, 8, 7, test_slice("ab")};
    kq_writer w;
    kq_writer_init(&w, 1024);
    wire_request_header_encode(&w, &h);
    assert_false(w.error);
    assert_int_equal(w.len, sizeof golden);
    assert_memory_equal(w.data, golden, sizeof golden);

    wire_request_header d;
    kq_reader r;
    kq_reader_init(&r, golden, sizeof golden);
    assert_int_equal(wire_request_header_decode(&r, &d), 0);
    assert_int_equal(d.api_key, 3);
    assert_int_equal(d.api_version, 8);
    assert_int_equal(d.correlation_id, 7);
    assert_true(kq_slice_eq_cstr(d.client_id, "ab"));
    assert_int_equal(kq_reader_remaining(&r), 0);
    CHECK_TRUNCATIONS_HEADER(golden, sizeof golden);
    kq_writer_free(&w);
}

static void test_request_header_v2_golden(void **state)
{
    (void)state;
    static const uint8_t golden[] = {
        0x00, 0x00,             /* api_key 0 (Produce) */
        0x00, 0x09,             /* api_version 9 (flexible -> header v2) */
        0x00, 0x00, 0x00, 0x01, /* correlation_id 1 */
        0xFF, 0xFF,             /* client_id null: still int16 length in v2 */
        0x00,                   /* empty tagged fields */
    };
    wire_request_header h = {WIRE_API_PRODUCE, 9, 1, {NULL, -1}};
    kq_writer w;
    kq_writer_init(&w, 1024);
    wire_request_header_encode(&w, &h);
    assert_int_equal(w.len, sizeof golden);
    assert_memory_equal(w.data, golden, sizeof golden);

    wire_request_header d;
    kq_reader r;
    kq_reader_init(&r, golden, sizeof golden);
    assert_int_equal(wire_request_header_decode(&r, &d), 0);
    assert_int_equal(d.api_key, 0);
    assert_int_equal(d.api_version, 9);
    assert_int_equal(d.correlation_id, 1);
    assert_int_equal(d.client_id.len, -1);
    assert_int_equal(kq_reader_remaining(&r), 0);
    CHECK_TRUNCATIONS_HEADER(golden, sizeof golden);
    kq_writer_free(&w);
}

static void test_request_header_v2_skips_tags(void **state)
{
    (void)state;
    static const uint8_t in[] = {
        0x00, 0x12, 0x00, 0x03,  /* ApiVersions v3 (flexible) */
        0x00, 0x00, 0x00, 0x2A,  /* correlation 42 */
        0x00, 0x01, 'x',         /* client_id "x" */
        0x01, 0x05, 0x02, 0xAA, 0xBB, /* one tag: 5, size 2 */
        0x77,                    /* first body byte */
    };
    wire_request_header d;
    kq_reader r;
    kq_reader_init(&r, in, sizeof in);
    assert_int_equal(wire_request_header_decode(&r, &d), 0);
    assert_int_equal(d.correlation_id, 42);
    assert_int_equal(kq_reader_remaining(&r), 1);
    assert_int_equal(kq_read_i8(&r), 0x77);
}

static void test_request_header_unknown_key_is_v1(void **state)
{
    (void)state;
    static const uint8_t in[] = {
        0x03, 0xE8, 0x00, 0x32,  /* key 1000, version 50 */
        0x00, 0x00, 0x00, 0x05,  /* correlation 5 */
        0x00, 0x00,              /* client_id "" */
        0x00,                    /* body byte (would be a tag count in v2) */
    };
    wire_request_header d;
    kq_reader r;
    kq_reader_init(&r, in, sizeof in);
    assert_int_equal(wire_request_header_decode(&r, &d), 0);
    assert_int_equal(d.api_key, 1000);
    assert_int_equal(d.client_id.len, 0);
    assert_int_equal(kq_reader_remaining(&r), 1);

    static const uint8_t bad_client[] = {0x00, 0x03, 0x00, 0x00, 0, 0, 0, 1, 0x00, 0x05, 'a'};
    kq_reader_init(&r, bad_client, sizeof bad_client);
    assert_int_equal(wire_request_header_decode(&r, &d), -1);
}

static void test_response_header(void **state)
{
    (void)state;
    struct {
        int16_t key, version;
        size_t len;
    } cases[] = {
        {WIRE_API_METADATA, 8, 4},      /* v0 */
        {WIRE_API_METADATA, 9, 5},      /* v1: + tag byte */
        {WIRE_API_PRODUCE, 9, 5},
        {WIRE_API_PRODUCE, 8, 4},
        {WIRE_API_API_VERSIONS, 3, 4},  /* always v0 */
        {WIRE_API_API_VERSIONS, 4, 4},
        {WIRE_API_VOTE, 0, 5},
        {WIRE_API_INIT_PRODUCER_ID, 2, 5},
        {WIRE_API_INIT_PRODUCER_ID, 1, 4},
        {1000, 3, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kq_writer w;
        kq_writer_init(&w, 64);
        wire_response_header_encode(&w, cases[i].key, cases[i].version, 0x01020304);
        assert_int_equal(w.len, cases[i].len);
        static const uint8_t corr[] = {0x01, 0x02, 0x03, 0x04};
        assert_memory_equal(w.data, corr, 4);
        if (cases[i].len == 5)
            assert_int_equal(w.data[4], 0);
        int32_t c = 0;
        kq_reader r;
        kq_reader_init(&r, w.data, w.len);
        assert_int_equal(wire_response_header_decode(&r, cases[i].key, cases[i].version, &c), 0);
        assert_int_equal(c, 0x01020304);
        assert_int_equal(kq_reader_remaining(&r), 0);
        for (size_t k = 0; k < w.len; k++) {
            kq_reader_init(&r, w.data, k);
            assert_int_equal(wire_response_header_decode(&r, cases[i].key, cases[i].version, &c), -1);
        }
        kq_writer_free(&w);
    }
}

static void test_flexible_thresholds(void **state)
{
    (void)state;
    struct {
        int16_t key, first_flex;
    } f[] = {
        {WIRE_API_PRODUCE, 9},          {WIRE_API_FETCH, 12},
        {WIRE_API_LIST_OFFSETS, 6},     {WIRE_API_METADATA, 9},
        {WIRE_API_API_VERSIONS, 3},     {WIRE_API_INIT_PRODUCER_ID, 2},
        {WIRE_API_VOTE, 0},             {WIRE_API_BEGIN_QUORUM_EPOCH, 1},
        {WIRE_API_END_QUORUM_EPOCH, 1}, {WIRE_API_DESCRIBE_QUORUM, 0},
        {WIRE_API_DESCRIBE_CLUSTER, 0}, {WIRE_API_ADD_RAFT_VOTER, 0},
        {WIRE_API_REMOVE_RAFT_VOTER, 0}, {WIRE_API_UPDATE_RAFT_VOTER, 0},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (f[i].first_flex > 0)
            assert_false(wire_api_flexible(f[i].key, (int16_t)(f[i].first_flex - 1)));
        assert_true(wire_api_flexible(f[i].key, f[i].first_flex));
        assert_true(wire_api_flexible(f[i].key, (int16_t)(f[i].first_flex + 5)));
        assert_string_not_equal(wire_api_name(f[i].key), "Unknown");
    }
    assert_false(wire_api_flexible(1000, 30));
    assert_false(wire_api_flexible(-1, 30));
    assert_string_equal(wire_api_name(1000), "Unknown");
    assert_string_equal(wire_api_name(WIRE_API_PRODUCE), "Produce");
    assert_string_equal(wire_api_name(WIRE_API_API_VERSIONS), "ApiVersions");
}

static void test_advertised_and_accepted(void **state)
{
    (void)state;
    int n = 0;
    const wire_api_range *apis = wire_advertised_apis(&n);
    assert_int_equal(n, 37);
    struct {
        int16_t key, min, max;
    } expect[] = {
        {0, 0, 12}, {1, 4, 18}, {2, 0, 10}, {3, 0, 12}, {10, 0, 6}, {18, 0, 4}, {22, 0, 5},
        {52, 0, 2}, {53, 0, 1}, {54, 0, 1}, {55, 0, 2}, {60, 0, 1}, {17, 0, 1}, {36, 0, 2},
        {59, 0, 1},
        /* the classic group APIs (issue 12), not KIP-848's */
        {8, 2, 10}, {9, 1, 10}, {11, 0, 9}, {12, 0, 4}, {13, 0, 5}, {14, 0, 5}, {15, 0, 6},
        {16, 0, 5},
        /* dynamic voters (KIP-853, KIP-1186) and the kraft.version upgrade */
        {80, 0, 1}, {81, 0, 0}, {82, 0, 0}, {57, 0, 2},
        /* transactions (issue 23), as Kafka 4.4.0 brokers advertise them */
        {24, 0, 5}, {25, 0, 4}, {26, 0, 5}, {28, 0, 6}, {65, 0, 0}, {66, 0, 2},
        /* DeleteGroups and OffsetDelete (issue 24), as Kafka 4.4.0 advertises them */
        {42, 0, 3}, {47, 0, 0},
        /* KIP-848 consumer groups (issue 24), as Kafka 4.4.0 brokers advertise them */
        {68, 0, 1}, {69, 0, 1},
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        bool found = false;
        for (int k = 0; k < n; k++) {
            if (apis[k].api_key != expect[i].key)
                continue;
            found = true;
            assert_int_equal(apis[k].min_version, expect[i].min);
            assert_int_equal(apis[k].max_version, expect[i].max);
        }
        assert_true(found);
        int16_t amin = expect[i].key == WIRE_API_PRODUCE ? 3 : expect[i].min;
        if (amin > 0)
            assert_false(wire_api_accepted(expect[i].key, (int16_t)(amin - 1)));
        assert_true(wire_api_accepted(expect[i].key, amin));
        assert_true(wire_api_accepted(expect[i].key, expect[i].max));
        assert_false(wire_api_accepted(expect[i].key, (int16_t)(expect[i].max + 1)));
    }
    assert_false(wire_api_accepted(WIRE_API_PRODUCE, 0));
    assert_false(wire_api_accepted(WIRE_API_PRODUCE, 2));
    assert_false(wire_api_accepted(WIRE_API_FETCH, 3));
    assert_false(wire_api_accepted(19, 0)); /* CreateTopics: not here */
    assert_false(wire_api_accepted(1000, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_header_v1_golden),
        cmocka_unit_test(test_request_header_v2_golden),
        cmocka_unit_test(test_request_header_v2_skips_tags),
        cmocka_unit_test(test_request_header_unknown_key_is_v1),
        cmocka_unit_test(test_response_header),
        cmocka_unit_test(test_flexible_thresholds),
        cmocka_unit_test(test_advertised_and_accepted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
