/* One simulated node: creates its core from the durable state, feeds it
 * events and carries out its actions the way the daemon does. */
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "sim.h"

static raft_epoch_entry epoch_buf[RAFT_EPOCH_CACHE_MAX];

bool sim_node_start(sim_world *w, int idx)
{
    sim_node *nd = &w->nodes[idx];
    if (nd->running)
        return true;
    raft_config cfg = w->cfg;
    cfg.node_id = nd->id;
    cfg.random_seed = sim_prng_next(&w->rng);
    raft_quorum_state q = {0, -1, -1};
    if (nd->qstate_stored)
        q = nd->qstate;
    raft_log_state ls;
    ls.end_offset = sim_log_end(&nd->log);
    ls.epoch_count = sim_log_epochs(&nd->log, epoch_buf, RAFT_EPOCH_CACHE_MAX);
    ls.epochs = epoch_buf;
    nd->r = raft_create(&cfg, &q, &ls, w->now);
    if (!nd->r)
        return sim_fail(w, "raft_create failed for node %d", nd->id);
    nd->running = true;
    nd->shutting_down = false;
    sim_trace(w, "node %d start (epoch %d voted %d leader %d, log end %lld)", nd->id, q.epoch,
              q.voted_id, q.leader_id, (long long)ls.end_offset);
    nd->wake_gen++;
    nd->wake_at = w->now;
    return sim_schedule(w, w->now, SIM_EV_WAKE, idx, nd->wake_gen, 0, NULL);
}

void sim_node_stop(sim_world *w, int idx)
{
    sim_node *nd = &w->nodes[idx];
    if (!nd->running)
        return;
    raft_destroy(nd->r);
    nd->r = NULL;
    nd->running = false;
    nd->inc++;
    nd->wake_gen++;
    nd->flush_n = 0;
    nd->shutting_down = false;
    int64_t before = sim_log_end(&nd->log);
    sim_log_crash(&nd->log);
    nd->restarts++;
    sim_trace(w, "node %d stop (log end %lld -> %lld)", nd->id, (long long)before,
              (long long)sim_log_end(&nd->log));
}

bool sim_node_shutdown(sim_world *w, int idx, int64_t timeout_ms)
{
    sim_node *nd = &w->nodes[idx];
    if (!nd->running || nd->shutting_down)
        return true;
    nd->shutting_down = true;
    sim_trace(w, "node %d graceful shutdown", nd->id);
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_SHUTDOWN;
    ev.now_ms = w->now;
    if (!sim_node_step(w, idx, &ev))
        return false;
    if (nd->running && nd->shutting_down)
        return sim_schedule(w, w->now + timeout_ms, SIM_EV_STOP, idx, nd->inc, 0, NULL);
    return true;
}

bool sim_node_status(sim_world *w, int idx, raft_status *st)
{
    if (!w->nodes[idx].running)
        return false;
    raft_get_status(w->nodes[idx].r, st);
    return true;
}

static uint64_t new_token(sim_world *w, int node, uint64_t inc)
{
    if (w->token_n == w->token_cap) {
        size_t cap = w->token_cap ? w->token_cap * 2 : 1024;
        sim_token *t = realloc(w->tokens, cap * sizeof(*t));
        if (!t)
            return 0;
        w->tokens = t;
        w->token_cap = cap;
    }
    w->tokens[w->token_n].req_node = node;
    w->tokens[w->token_n].req_inc = inc;
    return ++w->token_n; /* tokens start at 1 */
}

static bool deliver_later(sim_world *w, sim_msg *m)
{
    int64_t at = w->now + sim_net_delay(&w->net, &w->rng);
    if (sim_prng_chance(&w->rng, w->net.dup_ppm)) {
        sim_msg *c = sim_msg_clone(m);
        if (c && !sim_schedule(w, w->now + sim_net_delay(&w->net, &w->rng), SIM_EV_DELIVER, m->to,
                               0, 0, c))
            sim_msg_free(c);
    }
    if (!sim_schedule(w, at, SIM_EV_DELIVER, m->to, 0, 0, m)) {
        sim_msg_free(m);
        return sim_fail(w, "out of memory");
    }
    return true;
}

/* Tells the sender its request could not be sent (as a refused connection would). */
static bool maybe_send_failed(sim_world *w, int from, uint64_t from_inc, const raft_msg *req)
{
    if (!sim_prng_chance(&w->rng, w->send_failed_ppm))
        return true;
    int64_t arg = ((int64_t)req->type << 32) | (uint32_t)req->to;
    return sim_schedule(w, w->now + sim_net_delay(&w->net, &w->rng), SIM_EV_SEND_FAILED, from,
                        from_inc, arg, NULL);
}

static bool do_send(sim_world *w, int idx, const raft_msg *msg)
{
    sim_node *nd = &w->nodes[idx];
    if (msg->from != nd->id)
        return sim_fail(w, "node %d sends %s with from=%d", nd->id, sim_msg_type_name(msg->type),
                        msg->from);
    sim_msg *m = calloc(1, sizeof(*m));
    if (!m)
        return sim_fail(w, "out of memory");
    m->m = *msg;
    m->from = idx;
    m->from_inc = nd->inc;
    if (sim_msg_is_request(msg->type)) {
        if (msg->to < 1 || msg->to > w->n || msg->to == nd->id) {
            sim_msg_free(m);
            return sim_fail(w, "node %d sends %s to bad id %d", nd->id,
                            sim_msg_type_name(msg->type), msg->to);
        }
        m->to = msg->to - 1;
        m->to_inc = w->nodes[m->to].inc;
        m->m.token = new_token(w, idx, nd->inc);
        if (!m->m.token) {
            sim_msg_free(m);
            return sim_fail(w, "out of memory");
        }
    } else {
        if (msg->token < 1 || msg->token > w->token_n) {
            sim_msg_free(m);
            return sim_fail(w, "node %d sends %s with unknown token %llu", nd->id,
                            sim_msg_type_name(msg->type), (unsigned long long)msg->token);
        }
        const sim_token *t = &w->tokens[msg->token - 1];
        m->to = t->req_node;
        m->to_inc = t->req_inc;
        m->m.to = w->nodes[t->req_node].id;
        m->m.token = 0;
        if (msg->type == RAFT_MSG_FETCH_RESPONSE) {
            raft_fetch_response *fr = &m->m.u.fetch_response;
            fr->records = NULL;
            fr->records_len = 0;
            if (fr->read_end_offset > fr->read_offset) {
                if (fr->read_end_offset > sim_log_durable_end(&nd->log) &&
                    sim_check_on(w, SIM_INV_SERVE_DURABLE)) {
                    sim_msg_free(m);
                    return sim_fail(w,
                                    "invariant serve-durable: leader %d serves up to %lld but only "
                                    "%lld is flushed",
                                    nd->id, (long long)fr->read_end_offset,
                                    (long long)sim_log_durable_end(&nd->log));
                }
                kq_writer wr;
                kq_writer_init(&wr, 0);
                sim_log_read(&nd->log, fr->read_offset, fr->read_end_offset, fr->read_max_bytes,
                             &wr);
                if (wr.error) {
                    kq_writer_free(&wr);
                    sim_msg_free(m);
                    return sim_fail(w, "out of memory");
                }
                m->records = wr.data;
                fr->records_len = wr.len;
            }
        }
    }
    sim_node *to = &w->nodes[m->to];
    bool req = sim_msg_is_request(msg->type);
    if (!to->running || to->inc != m->to_inc) {
        sim_trace(w, "  drop %s %d->%d (destination down)", sim_msg_type_name(msg->type), nd->id,
                  to->id);
        bool ok = !req || maybe_send_failed(w, idx, nd->inc, &m->m);
        sim_msg_free(m);
        return ok;
    }
    if (sim_net_blocked(&w->net, idx, m->to) || sim_prng_chance(&w->rng, w->net.loss_ppm)) {
        sim_trace(w, "  lose %s %d->%d", sim_msg_type_name(msg->type), nd->id, to->id);
        sim_msg_free(m);
        return true;
    }
    return deliver_later(w, m);
}

static void schedule_wake(sim_world *w, int idx, int64_t wake_at)
{
    sim_node *nd = &w->nodes[idx];
    if (wake_at < w->now)
        wake_at = w->now;
    nd->wake_gen++;
    nd->wake_at = wake_at;
    sim_schedule(w, wake_at, SIM_EV_WAKE, idx, nd->wake_gen, 0, NULL);
}

static bool do_flush(sim_world *w, int idx, int64_t offset)
{
    sim_node *nd = &w->nodes[idx];
    if (nd->flush_n == nd->flush_cap) {
        int cap = nd->flush_cap ? nd->flush_cap * 2 : 16;
        sim_flush *f = realloc(nd->flushes, (size_t)cap * sizeof(*f));
        if (!f)
            return sim_fail(w, "out of memory");
        nd->flushes = f;
        nd->flush_cap = cap;
    }
    nd->flushes[nd->flush_n].offset = offset;
    nd->flushes[nd->flush_n].target_n = nd->log.n;
    nd->flush_n++;
    int64_t at = w->now + sim_prng_range(&w->rng, w->flush_min_ms, w->flush_max_ms);
    if (at < nd->flush_free_at)
        at = nd->flush_free_at;
    nd->flush_free_at = at;
    return sim_schedule(w, at, SIM_EV_FLUSH_DONE, idx, nd->inc, 0, NULL);
}

bool sim_node_step(sim_world *w, int idx, raft_event *ev)
{
    sim_node *nd = &w->nodes[idx];
    raft_output *out = &w->out;
    raft_status before;
    raft_get_status(nd->r, &before);
    raft_step(nd->r, ev, out);
    for (int i = 0; i < out->action_count && !w->failed; i++) {
        const raft_action *a = &out->actions[i];
        switch (a->type) {
        case RAFT_ACTION_STORE_QSTATE:
            nd->qstate = a->qstate;
            nd->qstate_stored = true;
            sim_trace(w, "  node %d store qstate epoch %d voted %d leader %d", nd->id,
                      a->qstate.epoch, a->qstate.voted_id, a->qstate.leader_id);
            break;
        case RAFT_ACTION_TRUNCATE: {
            sim_trace(w, "  node %d truncate to %lld (end %lld)", nd->id, (long long)a->offset,
                      (long long)sim_log_end(&nd->log));
            if (!sim_inv_on_truncate(w, idx, before.high_watermark, a->offset))
                return false;
            int n = sim_log_truncate(&nd->log, a->offset);
            for (int f = 0; f < nd->flush_n; f++)
                if (nd->flushes[f].target_n > n)
                    nd->flushes[f].target_n = n;
            break;
        }
        case RAFT_ACTION_APPEND: {
            char err[160];
            bool rewrite = a->append.base_offset >= 0;
            int64_t end = sim_log_end(&nd->log);
            if (!sim_log_append(&nd->log, a->append.records, a->append.len, rewrite,
                                a->append.base_offset, a->append.epoch, err, sizeof(err)))
                return sim_fail(w, "node %d: %s", nd->id, err);
            sim_trace(w, "  node %d append [%lld..%lld) %s epoch %d", nd->id, (long long)end,
                      (long long)sim_log_end(&nd->log), rewrite ? "leader" : "follower",
                      rewrite ? a->append.epoch : -1);
            break;
        }
        case RAFT_ACTION_FLUSH:
            if (!do_flush(w, idx, a->offset))
                return false;
            break;
        case RAFT_ACTION_SEND:
            if (!do_send(w, idx, &a->msg))
                return false;
            break;
        default:
            return sim_fail(w, "node %d: unknown action %d", nd->id, (int)a->type);
        }
    }
    if (w->failed)
        return false;
    if (out->role_changed && w->p.verbose) {
        raft_status st;
        raft_get_status(nd->r, &st);
        sim_trace(w, "  node %d -> %s epoch %d leader %d (%s)", nd->id, raft_role_name(st.role),
                  st.epoch, st.leader_id, out->reason);
    }
    if (out->high_watermark_changed) {
        sim_trace(w, "  node %d HW %lld", nd->id, (long long)out->high_watermark);
        if (!sim_inv_on_leader_hw(w, idx, out->high_watermark))
            return false;
    }
    if (out->shutdown_complete && nd->shutting_down)
        sim_schedule(w, w->now, SIM_EV_STOP, idx, nd->inc, 0, NULL);
    schedule_wake(w, idx, out->wake_at_ms);
    return !w->failed;
}
