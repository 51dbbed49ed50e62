/* Helpers of the group coordinator's tests: requests with defaults and
 * answers found by token. */
#ifndef GROUP_TEST_UTIL_H
#define GROUP_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kq/group.h"

#define T_SESSION_MS 10000
#define T_REBALANCE_MS 30000

static const uint8_t t_meta[] = { 0, 1, 0, 0, 0, 1, 0, 1, 't' };

static inline group_coord *t_coord(int32_t initial_delay_ms, int32_t max_size)
{
    group_config cfg = group_config_default();
    cfg.initial_rebalance_delay_ms = initial_delay_ms;
    cfg.max_size = max_size;
    cfg.members_per_connection_max = 0; /* one client host here: tested on its own */
    group_coord *c = group_coord_create(&cfg);
    assert_non_null(c);
    return c;
}

static inline group_join_request t_join_req(const char *group, const char *member,
                                            const char *instance, uint64_t token,
                                            const group_protocol *protos, int n)
{
    static const group_protocol range = { "range", t_meta, sizeof(t_meta) };
    group_join_request r = {
        .token = token, .group_id = group, .member_id = member, .instance_id = instance,
        .client_id = "client", .client_host = "/127.0.0.1", .protocol_type = "consumer",
        .protocols = protos ? protos : &range, .protocol_count = protos ? n : 1,
        .session_timeout_ms = T_SESSION_MS, .rebalance_timeout_ms = T_REBALANCE_MS,
    };
    return r;
}

static inline const group_answer *t_find(const group_output *out, uint64_t token)
{
    for (int i = 0; i < out->answer_count; i++)
        if (out->answers[i].token == token)
            return &out->answers[i];
    return NULL;
}

/* A dynamic member's join without the MEMBER_ID_REQUIRED step. */
static inline const group_output *t_join(group_coord *c, const char *group, const char *member,
                                         uint64_t token, int64_t now_ms)
{
    group_join_request r = t_join_req(group, member, NULL, token, NULL, 0);
    return group_join(c, &r, now_ms);
}

static inline const group_output *t_sync(group_coord *c, const char *group, const char *member,
                                         int32_t generation, uint64_t token,
                                         const group_assignment *a, int n, int64_t now_ms)
{
    group_sync_request r = {
        .token = token, .group_id = group, .member_id = member, .generation = generation,
        .assignments = a, .assignment_count = n,
    };
    return group_sync(c, &r, now_ms);
}

#endif
