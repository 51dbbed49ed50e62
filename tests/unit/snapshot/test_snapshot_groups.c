/* Snapshot files with the group store (issue 24, "kq.group" and
 * "kq.group-member"; include/kq/snapshot_state.h): a store round trips in
 * key order (classic groups, a consumer group's opaque bodies, a group
 * known only by its members); a store filled to KQ_GROUP_STORE_BYTES_MAX
 * with the largest records takes no more than its counted bytes in the
 * file; files without the records give an empty store; a bad value, a
 * tombstone, a record under the other kind's key and a key twice are
 * refused, and every truncation of a small file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/group_store.h"
#include "kq/snapshot_state.h"
#include "snapshot_internal.h"

#define END 5000
#define ERR_BYTES 256

static void sample_meta(kq_snapshot_meta *m)
{
    memset(m, 0, sizeof(*m));
    m->id = (raft_snapshot_id){END, 4};
    m->last_contained_timestamp_ms = 1764600000000;
    m->voter_count = 1;
    m->voter_ids[0] = 1;
}

static group_store_record classic_group(const char *id, kq_writer *body)
{
    kq_writer_reset(body);
    group_store_classic_group g = {.state = 3, .generation = 9, .protocol_type = "consumer",
                                   .protocol_name = "range", .leader_id = "m-0",
                                   .state_timestamp_ms = 77};
    assert_true(group_store_classic_group_write(body, &g));
    return (group_store_record){.kind = GROUP_STORE_GROUP, .group_id = id,
                                .type = GROUP_STORE_TYPE_CLASSIC, .body = body->data,
                                .body_len = body->len};
}

static group_store_record classic_member(const char *group, const char *id, kq_writer *body,
                                         size_t bytes)
{
    kq_writer_reset(body);
    uint8_t *data = calloc(1, bytes ? bytes : 1);
    group_store_classic_member m = {.client_id = "c", .client_host = "/h:1",
                                    .session_timeout_ms = 6000, .rebalance_timeout_ms = 6000,
                                    .metadata = data, .metadata_len = bytes / 2,
                                    .assignment = data, .assignment_len = bytes - bytes / 2};
    assert_true(group_store_classic_member_write(body, &m));
    free(data);
    return (group_store_record){.kind = GROUP_STORE_MEMBER, .group_id = group, .member_id = id,
                                .type = GROUP_STORE_TYPE_CLASSIC, .body = body->data,
                                .body_len = body->len};
}

static group_store *sample(void)
{
    group_store *s = group_store_create();
    kq_writer b;
    kq_writer_init(&b, 0);
    group_store_record r = classic_group("orders", &b);
    assert_true(group_store_restore(s, &r));
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof(id), "m-%d", 2 - i);
        r = classic_member("orders", id, &b, 40);
        assert_true(group_store_restore(s, &r));
    }
    static const uint8_t opaque[] = {1, 2, 3, 4};
    r = (group_store_record){.kind = GROUP_STORE_GROUP, .group_id = "kip848",
                             .type = GROUP_STORE_TYPE_CONSUMER, .body = opaque, .body_len = 4};
    assert_true(group_store_restore(s, &r));
    r.kind = GROUP_STORE_MEMBER;
    r.member_id = "uuid-1";
    assert_true(group_store_restore(s, &r));
    r = classic_member("alone", "m-9", &b, 0); /* no group record */
    assert_true(group_store_restore(s, &r));
    group_store_restored(s, END);
    kq_writer_free(&b);
    return s;
}

static void assert_same(const group_store *a, const group_store *b)
{
    assert_int_equal(group_store_group_count(a), group_store_group_count(b));
    assert_int_equal(group_store_record_count(a), group_store_record_count(b));
    assert_int_equal(group_store_bytes(a), group_store_bytes(b));
    group_store_record x, y;
    for (int gi = 0; group_store_group_at(a, gi, &x); gi++) {
        assert_true(group_store_group_at(b, gi, &y));
        assert_string_equal(x.group_id, y.group_id);
        assert_int_equal(x.tombstone, y.tombstone);
        assert_int_equal(x.type, y.type);
        assert_int_equal(x.body_len, y.body_len);
        if (x.body_len)
            assert_memory_equal(x.body, y.body, x.body_len);
        assert_int_equal(group_store_member_count(a, gi), group_store_member_count(b, gi));
        for (int mi = 0; group_store_member_at(a, gi, mi, &x); mi++) {
            assert_true(group_store_member_at(b, gi, mi, &y));
            assert_string_equal(x.member_id, y.member_id);
            assert_int_equal(x.body_len, y.body_len);
            assert_memory_equal(x.body, y.body, x.body_len);
        }
    }
}

static int decode(const kq_writer *w, group_store *s)
{
    char err[ERR_BYTES];
    return kq_snapshot_decode_groups(w->data, w->len, (raft_snapshot_id){END, 4}, NULL, NULL,
                                     NULL, s, NULL, NULL, err, sizeof(err));
}

static void test_round_trip(void **state)
{
    (void)state;
    group_store *s = sample();
    kq_snapshot_meta m;
    sample_meta(&m);
    kq_writer w;
    kq_writer_init(&w, KQ_SNAPSHOT_BYTES_MAX);
    assert_int_equal(kq_snapshot_encode_groups(NULL, NULL, NULL, s, &m, NULL, &w), 0);
    group_store *back = group_store_create();
    assert_int_equal(decode(&w, back), 0);
    assert_same(s, back);
    assert_int_equal(group_store_noted_to(back), END);
    group_store_record r;
    assert_true(group_store_group_at(back, 0, &r));
    assert_string_equal(r.group_id, "alone"); /* key order */
    assert_true(r.tombstone);
    /* Validation alone (NULL) takes the same file; a file without the
     * records empties the store. */
    char err[ERR_BYTES];
    assert_int_equal(kq_snapshot_decode_all(w.data, w.len, m.id, NULL, NULL, NULL, NULL, NULL,
                                            err, sizeof(err)), 0);
    kq_writer_reset(&w);
    assert_int_equal(kq_snapshot_encode_all(NULL, NULL, NULL, &m, NULL, &w), 0);
    assert_int_equal(decode(&w, back), 0);
    assert_int_equal(group_store_group_count(back), 0);
    kq_writer_free(&w);
    group_store_destroy(s);
    group_store_destroy(back);
}

/* The budget in records of the largest body: the file holds no more than
 * their counted cost beyond an empty snapshot's bytes and the batch
 * headers. */
static void test_full_store_fits(void **state)
{
    (void)state;
    group_store *s = group_store_create();
    kq_writer b;
    kq_writer_init(&b, 0);
    char group[KQ_GROUP_NAME_BYTES_MAX], member[KQ_GROUP_NAME_BYTES_MAX];
    memset(group, 'g', sizeof(group) - 1);
    group[sizeof(group) - 1] = 0;
    memset(member, 'm', sizeof(member) - 1);
    member[sizeof(member) - 1] = 0;
    size_t bytes = KQ_GROUP_STORE_METADATA_BYTES_MAX + KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX;
    int n = 0;
    for (;; n++) {
        snprintf(member, 16, "%015d", n);
        member[15] = 'm';
        group_store_record r = classic_member(group, member, &b, bytes);
        if (group_store_bytes(s) + group_store_record_cost(&r) > KQ_GROUP_STORE_BYTES_MAX)
            break;
        assert_true(group_store_restore(s, &r));
    }
    kq_snapshot_meta m;
    sample_meta(&m);
    kq_writer empty, w;
    kq_writer_init(&empty, KQ_SNAPSHOT_BYTES_MAX);
    kq_writer_init(&w, KQ_SNAPSHOT_BYTES_MAX);
    assert_int_equal(kq_snapshot_encode_groups(NULL, NULL, NULL, NULL, &m, NULL, &empty), 0);
    assert_int_equal(kq_snapshot_encode_groups(NULL, NULL, NULL, s, &m, NULL, &w), 0);
    print_message("a full group store: %d members, %llu counted bytes, %zu in the file\n", n,
                  (unsigned long long)group_store_bytes(s), w.len - empty.len);
    assert_true(w.len - empty.len <=
                group_store_bytes(s) + 61u * KQ_SNAPSHOT_BATCHES_MAX);
    group_store *back = group_store_create();
    assert_int_equal(decode(&w, back), 0);
    assert_same(s, back);
    kq_writer_free(&b);
    kq_writer_free(&w);
    kq_writer_free(&empty);
    group_store_destroy(s);
    group_store_destroy(back);
}

/* A file whose data batch holds the records (key, value) after the voters. */
static void build_file(kq_writer *w, const char *const *keys, const kq_writer *values, int n)
{
    kq_snapshot_meta m;
    sample_meta(&m);
    kq_writer_reset(w);
    assert_true(snap_build_header(w, 4, m.last_contained_timestamp_ms));
    kq_writer v;
    kq_writer_init(&v, 0);
    snap_write_voters(&v, &m);
    record recs[4];
    memset(recs, 0, sizeof(recs));
    recs[0].key = kq_slice_cstr(SNAP_KEY_VOTERS);
    recs[0].value = (kq_slice){v.data, (int32_t)v.len};
    for (int i = 0; i < n; i++) {
        recs[i + 1].key = kq_slice_cstr(keys[i]);
        recs[i + 1].value = (kq_slice){values[i].data, (int32_t)values[i].len};
    }
    record_batch_builder_args a = {.base_offset = 1, .partition_leader_epoch = 4,
                                   .producer_id = -1, .producer_epoch = -1,
                                   .base_sequence = -1, .records = recs,
                                   .record_count = n + 1};
    assert_true(record_batch_build(w, &a));
    assert_true(snap_build_footer(w, 2 + n, 4, m.last_contained_timestamp_ms));
    kq_writer_free(&v);
}

static void test_refused(void **state)
{
    (void)state;
    group_store *s = group_store_create();
    kq_writer w, body, v[3];
    kq_writer_init(&w, 0);
    kq_writer_init(&body, 0);
    for (int i = 0; i < 3; i++)
        kq_writer_init(&v[i], 0);
    group_store_record g = classic_group("g", &body);
    group_store_write_value(&v[0], &g);
    const char *keys[3] = {SNAP_KEY_GROUP, SNAP_KEY_GROUP, SNAP_KEY_GROUP_MEMBER};
    build_file(&w, keys, v, 1);
    assert_int_equal(decode(&w, s), 0);
    assert_int_equal(group_store_group_count(s), 1);
    for (size_t n = 0; n < w.len; n += 5) {
        char err[ERR_BYTES];
        assert_int_not_equal(kq_snapshot_decode_groups(w.data, n, (raft_snapshot_id){END, 4},
                                                       NULL, NULL, NULL, s, NULL, NULL, err,
                                                       sizeof(err)),
                             0);
        assert_int_equal(group_store_group_count(s), 0);
    }
    kq_writer twice[2] = {v[0], v[0]};
    build_file(&w, keys, twice, 2); /* a key twice */
    assert_int_equal(decode(&w, s), -EBADMSG);
    build_file(&w, keys + 2, v, 1); /* a group's value under the member key */
    assert_int_equal(decode(&w, s), -EBADMSG);
    group_store_record t = {.kind = GROUP_STORE_GROUP, .group_id = "g",
                            .type = GROUP_STORE_TYPE_CLASSIC, .tombstone = true};
    group_store_write_value(&v[1], &t);
    build_file(&w, keys, v + 1, 1); /* a tombstone */
    assert_int_equal(decode(&w, s), -EBADMSG);
    kq_writer_reset(&v[2]);
    kq_write_raw(&v[2], v[0].data, v[0].len - 1);
    build_file(&w, keys, v + 2, 1); /* a value cut short */
    assert_int_equal(decode(&w, s), -EBADMSG);
    assert_int_equal(group_store_group_count(s), 0);
    kq_writer_free(&w);
    kq_writer_free(&body);
    for (int i = 0; i < 3; i++)
        kq_writer_free(&v[i]);
    group_store_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_full_store_fits),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
