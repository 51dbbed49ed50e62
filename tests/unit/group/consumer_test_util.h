/* Helpers of the KIP-848 consumer group tests: a coordinator with topics,
 * and clients that behave as Kafka's consumer does (they give up a
 * partition as soon as an answer no longer assigns it, and report what
 * they own in every heartbeat). */
#ifndef CONSUMER_TEST_UTIL_H
#define CONSUMER_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kq/group_consumer.h"
#include "kq/mutants.h"

#define TC_TOPICS 3
#define TC_PARTS_MAX 64

/* t0 has 3 partitions, t1 4, t2 5. */
static inline group_topic tc_topic(int i)
{
    static const char *names[TC_TOPICS] = {"t0", "t1", "t2"};
    group_topic t = {.name = names[i], .partition_count = 3 + i};
    memset(t.id, 0, 16);
    t.id[0] = (uint8_t)(0x10 + i);
    return t;
}

static inline group_coord *tc_coord(uint32_t mutants)
{
    group_config cfg = group_config_default();
    cfg.members_per_connection_max = 0;
    cfg.mutants = mutants;
    group_coord *c = group_coord_create(&cfg);
    assert_non_null(c);
    group_topic t[TC_TOPICS];
    for (int i = 0; i < TC_TOPICS; i++)
        t[i] = tc_topic(i);
    assert_true(group_consumer_set_topics(c, t, TC_TOPICS));
    return c;
}

/* A client: what it owns, per topic index, as a bit set of partitions. */
typedef struct tc_client {
    char id[KQ_GROUP_NAME_BYTES_MAX];
    const char *instance;
    int32_t epoch;
    uint64_t owned[TC_TOPICS];
    const char *topics[TC_TOPICS];
    int topic_count;
    const char *assignor;
    int32_t rebalance_timeout_ms;
    /* the last answer */
    enum kafka_error error;
    bool got_assignment;
} tc_client;

static inline void tc_init(tc_client *m, const char *id, const char *topics_csv)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->id, sizeof(m->id), "%s", id);
    m->rebalance_timeout_ms = 30000;
    for (int i = 0; i < TC_TOPICS; i++)
        if (strstr(topics_csv, tc_topic(i).name))
            m->topics[m->topic_count++] = tc_topic(i).name;
}

static inline int tc_topic_index(const uint8_t id[16]) { return id[0] - 0x10; }

/* Sends a heartbeat: a join (epoch 0) sends everything, a later one the
 * owned partitions only (as Kafka's consumer when nothing else changed). */
static inline void tc_hb_full(group_coord *c, const char *group, tc_client *m, int64_t now,
                              bool full, group_consumer_heartbeat_response *out)
{
    group_topic_partitions owned[TC_TOPICS];
    int32_t parts[TC_TOPICS][TC_PARTS_MAX];
    int n = 0;
    for (int t = 0; t < TC_TOPICS; t++) {
        int k = 0;
        for (int p = 0; p < TC_PARTS_MAX; p++)
            if (m->owned[t] >> p & 1)
                parts[t][k++] = p;
        if (!k)
            continue;
        group_topic tt = tc_topic(t);
        memcpy(owned[n].topic_id, tt.id, 16);
        owned[n].topic_name = NULL;
        owned[n].partitions = parts[t];
        owned[n++].partition_count = k;
    }
    bool join = m->epoch == 0;
    group_consumer_heartbeat_request r = {
        .version = 1, .group_id = group, .member_id = m->id, .member_epoch = m->epoch,
        .instance_id = m->instance, .rack_id = NULL,
        .rebalance_timeout_ms = join || full ? m->rebalance_timeout_ms : -1,
        .subscribed_topic_names = m->topics,
        .subscribed_topic_count = join || full ? m->topic_count : -1,
        .server_assignor = m->assignor, .owned = owned, .owned_count = join ? 0 : n,
        .client_id = "client", .client_host = "/127.0.0.1",
    };
    group_consumer_heartbeat(c, &r, now, out);
    m->error = out->error;
    m->got_assignment = out->has_assignment;
    if (out->error != KAFKA_NONE)
        return;
    m->epoch = out->member_epoch;
    if (out->has_assignment) {
        memset(m->owned, 0, sizeof(m->owned));
        for (int i = 0; i < out->assignment_count; i++)
            for (int j = 0; j < out->assignment[i].partition_count; j++)
                m->owned[tc_topic_index(out->assignment[i].topic_id)] |=
                    1ull << out->assignment[i].partitions[j];
    }
}

static inline enum kafka_error tc_hb(group_coord *c, const char *group, tc_client *m,
                                     int64_t now)
{
    group_consumer_heartbeat_response out;
    tc_hb_full(c, group, m, now, false, &out);
    return out.error;
}

static inline int tc_count(const tc_client *m)
{
    int n = 0;
    for (int t = 0; t < TC_TOPICS; t++)
        n += __builtin_popcountll(m->owned[t]);
    return n;
}

static inline void tc_assert_exclusive(const group_coord *c)
{
    char why[256];
    bool ok = group_consumer_check_exclusive(c, why, sizeof(why));
    if (!ok)
        fail_msg("%s", why);
}

static inline group_consumer_summary tc_describe(const group_coord *c, const char *group)
{
    group_consumer_summary s;
    const char *msg;
    assert_int_equal(group_consumer_describe(c, group, &s, &msg), KAFKA_NONE);
    return s;
}

#endif
