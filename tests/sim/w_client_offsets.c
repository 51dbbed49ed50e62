/* Simulated ListOffsets by timestamp (issue 19): consumers now and then ask
 * a node for -3 (the batch holding the max timestamp) or for the first
 * batch at or after a record timestamp; the server searches off the loop
 * (exec_search.c, run here by W_EV_SEARCH_DONE). Checked: every answer
 * decodes strictly, carries one of the errors a client may get, and a
 * found offset comes with a timestamp that satisfies the query. */
#include "kq/kafka_errors.h"
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "kq/wire_list_offsets.h"
#include "prng.h"
#include "w_client_internal.h"

#define WCO_MAX_TIMESTAMP (-3)

void wco_send_list_offsets(w_world *w, w_client *c)
{
    int16_t v = (int16_t)sim_prng_range(&w->rng, 7, 9); /* -3 needs v7+ */
    if (!wire_api_accepted(WIRE_API_LIST_OFFSETS, v))
        v = 7;
    int64_t ts = sim_prng_chance(&w->rng, 500000)
                     ? WCO_MAX_TIMESTAMP
                     : WC_TIMESTAMP_BASE_MS + (int64_t)sim_prng_below(&w->rng, 600000);
    wire_list_offsets_partition p = {.partition_index = 0, .current_leader_epoch = -1,
                                     .timestamp = ts, .max_num_offsets = 1};
    wire_list_offsets_topic t = {kq_slice_cstr(WIRE_METADATA_TOPIC_NAME), &p, 1};
    wire_list_offsets_request req = {.replica_id = -1, .topics = &t, .topic_count = 1};
    wc_inflight f = {.op = WC_OP_LIST_OFFSETS, .version = v, .fetch_offset = ts};
    f.corr = wc_begin(c, WIRE_API_LIST_OFFSETS, v);
    wire_list_offsets_request_encode(&c->frame, v, &req);
    int leader = w_current_leader(w);
    f.node = leader >= 0 && sim_prng_chance(&w->rng, WC_LEADER_PPM)
                 ? leader
                 : (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 5000));
}

static bool wco_answer_ok(const wire_list_offsets_partition_response *pr, int64_t ts)
{
    int16_t e = pr->error_code;
    if (e == KAFKA_NOT_LEADER_OR_FOLLOWER || e == KAFKA_OFFSET_NOT_AVAILABLE ||
        e == KAFKA_REQUEST_TIMED_OUT || e == KAFKA_KAFKA_STORAGE_ERROR)
        return true; /* retriable (storage: a reset or a flipped bit meanwhile) */
    if (e != KAFKA_NONE || pr->offset < -1)
        return false;
    if (pr->offset == -1)
        return pr->timestamp == -1;
    return ts == WCO_MAX_TIMESTAMP || pr->timestamp >= ts;
}

void wco_on_list_offsets(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                         size_t len)
{
    if (!bytes)
        return; /* timed out or the connection went */
    kq_reader r;
    if (!wc_open_response(w, c, f, WIRE_API_LIST_OFFSETS, bytes, len, &r))
        return;
    wire_list_offsets_response resp;
    int rc = wire_list_offsets_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_LIST_OFFSETS, &r, rc))
        return;
    if (resp.topic_count != 1 || resp.topics[0].partition_count != 1) {
        w_fail(w, "client %d: ListOffsets v%d from node %d: %d topics", c->idx, f->version,
               f->node, resp.topic_count);
        return;
    }
    const wire_list_offsets_partition_response *pr = &resp.topics[0].partitions[0];
    if (!wco_answer_ok(pr, f->fetch_offset))
        w_fail(w, "client %d: ListOffsets v%d timestamp %lld from node %d: %s (%d), offset "
               "%lld, timestamp %lld", c->idx, f->version, (long long)f->fetch_offset, f->node,
               wc_error_name(pr->error_code), pr->error_code, (long long)pr->offset,
               (long long)pr->timestamp);
}
