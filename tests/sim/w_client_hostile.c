/* The hostile producer (issue 19): Produce requests that smuggle a control
 * batch after one or two ordinary data batches (a fifth of the time first),
 * as any client on a client listener could send: a forged offset commit of
 * another client's group (g<k>, a huge offset), one whose value does not
 * parse (it stopped the leader before), a LeaderChangeMessage, and a data
 * record under the control bit. Every control batch it sends is reported
 * to the checker by CRC (w_check_on_client_control): `no-client-control`
 * fails if any node appends one. Answers are only traced: the invariant
 * judges what reaches a log, not what is answered. */
#include <stdio.h>
#include <string.h>

#include "kq/group_offsets.h"
#include "kq/kafka_errors.h"
#include "kq/record.h"
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "kq/wire_produce.h"
#include "prng.h"
#include "w_check.h"
#include "w_client_internal.h"

#define WCH_SENDS_MAX 200      /* control batches per run (the checker keeps them all) */
#define WCH_SEND_PPM 200000    /* of its wake-ups: one Produce (none is in flight) */
#define WCH_FIRST_PPM 200000   /* of requests: the control batch first */

enum wch_kind { WCH_FORGED_COMMIT, WCH_UNPARSABLE_COMMIT, WCH_LEADER_CHANGE, WCH_BARE_CONTROL,
                WCH_KIND_COUNT };

static void wch_data_batch(w_world *w, w_client *c, kq_writer *out)
{
    uint8_t value[8];
    uint64_t v = ((uint64_t)c->idx << WC_VALUE_CLIENT_SHIFT) | (++c->value_seq & WC_VALUE_SEQ_MASK);
    for (int i = 0; i < 8; i++)
        value[i] = (uint8_t)(v >> (56 - 8 * i));
    record rec = {.timestamp = WC_TIMESTAMP_BASE_MS, .key = {NULL, -1}, .value = {value, 8}};
    record_batch_builder_args a = {.base_timestamp = WC_TIMESTAMP_BASE_MS + (int64_t)w->now,
                                   .producer_id = -1, .producer_epoch = -1,
                                   .base_sequence = -1, .records = &rec, .record_count = 1};
    if (!record_batch_build(out, &a))
        w_fail(w, "client %d: cannot build a data batch", c->idx);
}

/* Appends one control batch of a random kind; reports its CRC. */
static void wch_control_batch(w_world *w, w_client *c, kq_writer *out)
{
    size_t start = out->len;
    char group[16];
    /* One of g0..g15 (the offset committers' groups; 16, not SIM_CLIENTS_MAX,
     * keeps the draws of the worlds before issue 24 as they were). */
    snprintf(group, sizeof group, "g%d", (int)sim_prng_below(&w->rng, 16));
    group_offset e = {.group_id = group, .topic = WIRE_METADATA_TOPIC_NAME, .partition = 0,
                      .offset = INT64_C(1) << 40, .leader_epoch = -1,
                      .commit_timestamp_ms = WC_TIMESTAMP_BASE_MS, .log_offset = -1};
    static const uint8_t commit_key[4] = {0, 0, (uint8_t)(KQ_CONTROL_OFFSET_COMMIT >> 8),
                                          (uint8_t)(KQ_CONTROL_OFFSET_COMMIT & 0xff)};
    static const uint8_t junk[6] = {0, 0, 0x7f, 0x7f, 'x', 'y'}; /* a group id cut short */
    record rec = {.timestamp = WC_TIMESTAMP_BASE_MS, .key = {commit_key, 4},
                  .value = {junk, sizeof junk}};
    record_batch_builder_args a = {.attributes = RECORD_ATTR_CONTROL,
                                   .base_timestamp = WC_TIMESTAMP_BASE_MS + (int64_t)w->now,
                                   .producer_id = -1, .producer_epoch = -1,
                                   .base_sequence = -1, .records = &rec, .record_count = 1};
    int32_t voters[1] = {w->nodes[0].id};
    bool ok = false;
    switch ((enum wch_kind)sim_prng_below(&w->rng, WCH_KIND_COUNT)) {
    case WCH_FORGED_COMMIT:
        ok = group_offsets_build_batch(out, &e, 1, WC_TIMESTAMP_BASE_MS + (int64_t)w->now);
        break;
    case WCH_UNPARSABLE_COMMIT:
        ok = record_batch_build(out, &a);
        break;
    case WCH_LEADER_CHANGE:
        ok = record_build_leader_change(out, 0, 1, WC_TIMESTAMP_BASE_MS + (int64_t)w->now,
                                        voters[0], voters, 1, voters, 1);
        break;
    case WCH_BARE_CONTROL:
    case WCH_KIND_COUNT:
        rec.key = (kq_slice){NULL, -1};
        ok = record_batch_build(out, &a);
        break;
    }
    record_batch_header h;
    if (!ok || record_batch_parse_header(out->data + start, out->len - start, &h) != RECORD_OK) {
        w_fail(w, "client %d: cannot build a control batch", c->idx);
        return;
    }
    w_check_on_client_control(w, h.crc);
}

static void wch_send(w_world *w, w_client *c)
{
    kq_writer records;
    kq_writer_init(&records, 0);
    bool first = sim_prng_chance(&w->rng, WCH_FIRST_PPM);
    int data = (int)sim_prng_range(&w->rng, 1, 2);
    if (first)
        wch_control_batch(w, c, &records);
    for (int i = 0; i < data; i++)
        wch_data_batch(w, c, &records);
    if (!first)
        wch_control_batch(w, c, &records);
    if (!first && sim_prng_chance(&w->rng, 300000))
        wch_data_batch(w, c, &records); /* the control batch in the middle */
    int16_t v = (int16_t)sim_prng_range(&w->rng, 3, 11);
    wire_produce_partition p = {.index = 0, .records = {records.data, (int32_t)records.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(WIRE_METADATA_TOPIC_NAME), .partitions = &p,
                            .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = -1, .timeout_ms = 2000,
                                .topics = &t, .topic_count = 1};
    wc_inflight f = {.op = WC_OP_HOSTILE_PRODUCE, .version = v, .acks = -1};
    f.corr = wc_begin(c, WIRE_API_PRODUCE, v);
    wire_produce_request_encode(&c->frame, v, &req);
    kq_writer_free(&records);
    int leader = w_current_leader(w);
    f.node = leader >= 0 && sim_prng_chance(&w->rng, 900000)
                 ? leader
                 : (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 1000, 4000));
}

void wch_act(w_world *w, w_client *c)
{
    if (!w->clients_on || c->stop_new || c->value_seq >= WCH_SENDS_MAX ||
        wc_count_op(c, WC_OP_HOSTILE_PRODUCE) > 0 || !sim_prng_chance(&w->rng, WCH_SEND_PPM))
        return;
    wch_send(w, c);
}

void wch_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len)
{
    kq_reader r;
    if (!bytes || !wc_open_response(w, c, f, WIRE_API_PRODUCE, bytes, len, &r))
        return;
    wire_produce_response resp;
    int rc = wire_produce_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_PRODUCE, &r, rc) || resp.topic_count != 1 ||
        resp.topics[0].partition_count != 1)
        return;
    w_trace(w, "client %d: smuggled control batch to node %d: %s", c->idx, f->node,
            wc_error_name(resp.topics[0].partitions[0].error_code));
}
