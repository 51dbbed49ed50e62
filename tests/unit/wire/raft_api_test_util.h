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

#endif
