/* Invariant told-hw-monotonic (issue 22): the high watermarks that Fetch
 * answers tell a node never go back. Kafka's follower keeps the HW it was
 * told across epochs (QuorumState.transitionToFollower) and throws when a
 * later answer tells less (FollowerState.updateHighWatermark: "Non-monotonic
 * update of high watermark"), so a Kafka voter in our quorum would stop. It
 * reads the HW only from answers without error, divergence or snapshot id,
 * and ignores answers from an epoch older than one it heard (Kafka's
 * maybeHandleCommonResponse); -1 (unknown) tells nothing. Our leaders tell
 * -1 until their epoch commits, as Kafka's LeaderState: the HW a new leader
 * knew as a follower may be below one another follower was told. Checked
 * when the answer leaves (one connection keeps its order). */
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "w_check_internal.h"

const wire_fetch_partition_data *w_fetch_answer_partition(int16_t version, const uint8_t *frame,
                                                          size_t len, kq_arena *arena)
{
    kq_reader r;
    kq_reader_init(&r, frame, len);
    int32_t corr;
    wire_fetch_response resp;
    if (wire_response_header_decode(&r, WIRE_API_FETCH, version, &corr) == 0 &&
        wire_fetch_response_decode(&r, version, arena, &resp) == 0 && resp.error_code == 0 &&
        resp.response_count == 1 && resp.responses[0].partition_count == 1)
        return &resp.responses[0].partitions[0];
    return NULL;
}

/* The HW and leader epoch an answer tells; false when it tells none. */
static bool told(int16_t version, const uint8_t *frame, size_t len, int64_t *hw, int32_t *epoch)
{
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    bool ok = false;
    const wire_fetch_partition_data *pd = w_fetch_answer_partition(version, frame, len, &arena);
    if (pd) {
        ok = pd->error_code == 0 && pd->high_watermark >= 0 && pd->has_current_leader &&
             !(pd->has_diverging_epoch && pd->diverging_epoch.epoch >= 0) &&
             !(pd->has_snapshot_id && pd->snapshot_id.end_offset >= 0);
        *hw = pd->high_watermark;
        *epoch = pd->current_leader.leader_epoch;
    }
    kq_arena_free(&arena);
    return ok;
}

void w_check_told_hw_on_answer(w_world *w, const w_req *req, const uint8_t *frame, size_t len)
{
    if (req->api_key != WIRE_API_FETCH || req->from < 0 || req->from >= SIM_NODES_MAX ||
        !w_check_on(w, W_INV_TOLD_HW_MONOTONIC))
        return;
    int64_t hw;
    int32_t epoch;
    struct w_check *c = w->check;
    int to = req->from;
    if (!told(req->api_version, frame, len, &hw, &epoch) || epoch < c->told_epoch[to])
        return;
    if (hw < c->told_hw[to])
        w_inv_fail(w, W_INV_TOLD_HW_MONOTONIC,
                   "node %d was told HW %lld in epoch %d after HW %lld in epoch %d",
                   w->nodes[to].id, (long long)hw, epoch, (long long)c->told_hw[to],
                   c->told_epoch[to]);
    c->told_epoch[to] = epoch;
    if (hw > c->told_hw[to])
        c->told_hw[to] = hw;
}
