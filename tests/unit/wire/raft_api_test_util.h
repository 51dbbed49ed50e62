/* Checks shared by the KRaft API codec tests (endpoint arrays and the
 * partition results they have in common). Include after <cmocka.h>. */
#ifndef RAFT_API_TEST_UTIL_H
#define RAFT_API_TEST_UTIL_H

#include "codec_harness.h"
#include "kq/wire_raft_common.h"

#define META_NAME_BYTES                                                                       \
    '_', '_', 'c', 'l', 'u', 's', 't', 'e', 'r', '_', 'm', 'e', 't', 'a', 'd', 'a', 't', 'a'
#define U16(b) b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b

static inline void raft_check_listeners(const wire_raft_listener *a, int32_t an,
                                        const wire_raft_listener *d, int32_t dn)
{
    assert_int_equal(dn, an);
    for (int32_t i = 0; i < an; i++) {
        harness_assert_slice_eq(a[i].name, d[i].name);
        harness_assert_slice_eq(a[i].host, d[i].host);
        assert_int_equal(d[i].port, a[i].port);
    }
}

/* The response's NodeEndpoints tag exists from v1 (decoded empty before). */
static inline void raft_check_node_endpoints(const wire_raft_node_endpoint *a, int32_t an,
                                             const wire_raft_node_endpoint *d, int32_t dn,
                                             int16_t v)
{
    if (v < 1) {
        assert_int_equal(dn, 0);
        return;
    }
    assert_int_equal(dn, an);
    for (int32_t i = 0; i < an; i++) {
        assert_int_equal(d[i].node_id, a[i].node_id);
        harness_assert_slice_eq(a[i].host, d[i].host);
        assert_int_equal(d[i].port, a[i].port);
    }
}

/* PartitionIndex, ErrorCode, LeaderId, LeaderEpoch of two partition results
 * (any struct with those fields). */
#define RAFT_CHECK_LEADER_RESULT(ap, dp)                                  \
    do {                                                                  \
        assert_int_equal((dp)->partition_index, (ap)->partition_index);   \
        assert_int_equal((dp)->error_code, (ap)->error_code);             \
        assert_int_equal((dp)->leader_id, (ap)->leader_id);               \
        assert_int_equal((dp)->leader_epoch, (ap)->leader_epoch);         \
    } while (0)

/* BeginQuorumEpoch and EndQuorumEpoch responses share one layout. Checks
 * both versions' golden bytes for `in`, which must be: error 0, one topic
 * "__cluster_metadata" with one partition {index 0, error 0, leader 1,
 * epoch 5}, and one node endpoint {1, "h", 9092}. */
static inline void raft_epoch_response_golden(const harness_codec *c, const void *in,
                                              harness_check_fn check)
{
    static const uint8_t v0[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x00, 0x00, 0x00, 0x01,             /* topics: int32 count 1 */
        0x00, 0x12, META_NAME_BYTES,        /* topic_name */
        0x00, 0x00, 0x00, 0x01,             /* partitions: count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
    };
    harness_check_golden(c, 0, in, v0, sizeof v0, check);
    static const uint8_t v1[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
        0x00, 0x00,                         /* partition, topic tags */
        0x01,                               /* 1 top-level tag */
        0x00, 0x0a,                         /* tag 0 NodeEndpoints, size 10 */
        0x02,                               /*   compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   node_id 1 */
        0x02, 'h',                          /*   host "h" */
        0x23, 0x84,                         /*   port 9092 */
        0x00,                               /*   no tags */
    };
    harness_check_golden(c, 1, in, v1, sizeof v1, check);
}

#endif
