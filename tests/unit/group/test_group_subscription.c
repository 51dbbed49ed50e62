/* Subscriptions of classic groups (issue 24, src/group/group_subscription.c):
 * the bounded reader of ConsumerProtocolSubscription (every version read as
 * its v0 prefix; anything that does not parse is "unknown"), hostile bytes
 * (every truncation and random bytes under the sanitizers), and what the
 * coordinator answers from it: group_subscribes_to (OffsetDelete's
 * GROUP_SUBSCRIBED_TO_TOPIC) and group_offsets_may_expire (Kafka's
 * offsetExpirationCondition: KIP-211 for Empty groups, KIP-496 for Stable
 * consumer groups with known subscriptions). */
#include "group_test_util.h"

#include <stdlib.h>

/* A subscription: version, the topics, user data (-1 null, else its
 * length), then extra bytes as newer versions add. */
static size_t sub_bytes(uint8_t *out, int16_t version, const char *const *topics, int n,
                        int32_t user_data, int extra)
{
    size_t at = 0;
    out[at++] = (uint8_t)(version >> 8);
    out[at++] = (uint8_t)version;
    out[at++] = 0;
    out[at++] = 0;
    out[at++] = 0;
    out[at++] = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(topics[i]);
        out[at++] = 0;
        out[at++] = (uint8_t)len;
        memcpy(out + at, topics[i], len);
        at += len;
    }
    for (int s = 24; s >= 0; s -= 8)
        out[at++] = (uint8_t)((uint32_t)user_data >> s);
    for (int i = 0; i < user_data; i++)
        out[at++] = 'u';
    for (int i = 0; i < extra; i++)
        out[at++] = (uint8_t)i;
    return at;
}

static void test_reader(void **state)
{
    (void)state;
    uint8_t b[256];
    const char *two[] = { "a", "__cluster_metadata" };
    size_t n = sub_bytes(b, 0, two, 2, -1, 0);
    assert_int_equal(group_subscription_lists(b, n, "__cluster_metadata"), 1);
    assert_int_equal(group_subscription_lists(b, n, "a"), 1);
    assert_int_equal(group_subscription_lists(b, n, "b"), 0);
    assert_int_equal(group_subscription_lists(b, n, "__cluster_metadat"), 0);
    /* v1-v3 and unknown versions: their later fields are not read */
    n = sub_bytes(b, 3, two, 2, 4, 17);
    assert_int_equal(group_subscription_lists(b, n, "a"), 1);
    n = sub_bytes(b, 99, two, 2, 0, 3);
    assert_int_equal(group_subscription_lists(b, n, "a"), 1);
    /* no topics */
    n = sub_bytes(b, 1, NULL, 0, -1, 0);
    assert_int_equal(group_subscription_lists(b, n, "a"), 0);
    /* every truncation does not parse, and is never read past */
    n = sub_bytes(b, 0, two, 2, 5, 0);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, b, cut);
        assert_int_equal(group_subscription_lists(copy, cut, "a"), -1);
        free(copy);
    }
    /* a null topic array, a null topic, a count past the bytes */
    n = sub_bytes(b, 0, two, 2, -1, 0);
    b[2] = b[3] = b[4] = b[5] = 0xff;
    assert_int_equal(group_subscription_lists(b, n, "a"), -1);
    n = sub_bytes(b, 0, two, 2, -1, 0);
    b[5] = 0x7f;
    assert_int_equal(group_subscription_lists(b, n, "a"), -1);
    n = sub_bytes(b, 0, two, 2, -1, 0);
    b[6] = b[7] = 0xff;
    assert_int_equal(group_subscription_lists(b, n, "a"), -1);
    /* the coordinator tests' metadata has no user data: unknown */
    assert_int_equal(group_subscription_lists(t_meta, sizeof(t_meta), "t"), -1);
    assert_int_equal(group_subscription_lists(NULL, 0, "t"), -1);
    /* random bytes: any answer, never a read outside */
    uint64_t x = 42;
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(round % 64);
        uint8_t *r = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            r[i] = (uint8_t)(x >> 56);
            if (i < 6 && (x & 1))
                r[i] = 0; /* small counts now and then */
        }
        int v = group_subscription_lists(r, len, "a");
        assert_true(v >= -1 && v <= 1);
        free(r);
    }
}

typedef struct member_in {
    group_coord *c;
    char id[KQ_GROUP_NAME_BYTES_MAX];
} member_in;

/* One member of group g, joined and synced alone (initial delay 0): Stable. */
static member_in stable_member(const char *g, const char *type, const uint8_t *meta, size_t len)
{
    member_in m = { .c = t_coord(0, 10) };
    group_protocol p = { "range", meta, len };
    group_join_request r = t_join_req(g, "", NULL, 1, &p, 1);
    r.protocol_type = type;
    const group_output *o = group_join(m.c, &r, 0);
    const group_answer *a = t_find(o, 1);
    assert_non_null(a);
    assert_int_equal(a->error, KAFKA_NONE);
    strcpy(m.id, a->member_id);
    group_assignment as = { m.id, (const uint8_t *)"x", 1 };
    o = t_sync(m.c, g, m.id, a->generation, 2, &as, 1, 1);
    assert_non_null(t_find(o, 2));
    group_summary s;
    assert_int_equal(group_describe(m.c, g, &s), KAFKA_NONE);
    assert_int_equal(s.state, GROUP_STABLE);
    return m;
}

static void test_coordinator(void **state)
{
    (void)state;
    uint8_t b[128];
    const char *other[] = { "other" };
    size_t n = sub_bytes(b, 1, other, 1, -1, 0);
    member_in m = stable_member("g", "consumer", b, n);
    int64_t since;
    assert_false(group_subscribes_to(m.c, "g", "__cluster_metadata"));
    assert_true(group_subscribes_to(m.c, "g", "other"));
    /* KIP-496: Stable, subscriptions known: from the commit */
    assert_true(group_offsets_may_expire(m.c, "g", &since));
    assert_int_equal(since, INT64_MIN);
    /* unknown groups: not subscribed, expire from the commit */
    assert_false(group_subscribes_to(m.c, "nope", "other"));
    assert_true(group_offsets_may_expire(m.c, "nope", &since));
    assert_int_equal(since, INT64_MIN);
    /* the member leaves: Empty, retention from then (Kafka's
     * currentStateTimestamp) */
    group_leave_member lm = { .member_id = m.id };
    const group_output *out;
    assert_int_equal(group_leave(m.c, "g", &lm, 1, 5000, &out), KAFKA_NONE);
    assert_false(group_subscribes_to(m.c, "g", "other"));
    assert_true(group_offsets_may_expire(m.c, "g", &since));
    assert_int_equal(since, 5000);
    group_coord_destroy(m.c);

    /* unparsable metadata: subscribed to everything, no expiry */
    m = stable_member("g", "consumer", t_meta, sizeof(t_meta));
    assert_true(group_subscribes_to(m.c, "g", "__cluster_metadata"));
    assert_false(group_offsets_may_expire(m.c, "g", &since));
    group_coord_destroy(m.c);

    /* another protocol type: never subscribed, no expiry while not Empty */
    m = stable_member("g", "connect", b, n);
    assert_false(group_subscribes_to(m.c, "g", "other"));
    assert_false(group_offsets_may_expire(m.c, "g", &since));
    group_coord_destroy(m.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_coordinator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
