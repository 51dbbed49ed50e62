/* The executor's peer table follows the voter set in force (KIP-853): a new
 * voter's endpoint reaches env->peer_endpoint and the handlers' node list;
 * a changed endpoint replaces it; a node no longer a voter (and not the
 * leader) is forgotten; a static set changes nothing. Runs the real
 * executor (handler_test_node.h) and drives exec_peers_follow with the
 * sets the core would report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "exec_internal.h"
#include "handler/handler_test_node.h"
#include "handler_internal.h"

static struct {
    int calls;
    int32_t id;
    char host[64];
    uint16_t port;
    bool forgotten;
} seen;

static void capture(void *ctx, int32_t id, const char *host, uint16_t port)
{
    (void)ctx;
    seen.calls++;
    seen.id = id;
    seen.forgotten = host == NULL;
    snprintf(seen.host, sizeof seen.host, "%s", host ? host : "");
    seen.port = port;
}

static kq_voter_set static_set(int n)
{
    kq_voter_set s = {.count = n};
    for (int i = 0; i < n; i++)
        s.voters[i].id = i + 1; /* static voters: no endpoint */
    return s;
}

static void add_voter(kq_voter_set *s, int32_t id, const char *host, uint16_t port)
{
    kq_voter *v = &s->voters[s->count++];
    memset(v, 0, sizeof *v);
    v->id = id;
    snprintf(v->host, sizeof v->host, "%s", host);
    v->port = port;
}

/* Follows set as exec_follow_voters does with the core's. */
static bool follow(kq_exec *x, const kq_voter_set *set, int32_t leader)
{
    if (!exec_peers_follow(x, set, leader))
        return false;
    handler_endpoint nodes[HANDLER_NODES_MAX];
    handler_set_nodes(x->handler, nodes, exec_peers_nodes(x->peers, nodes));
    return true;
}

static const handler_endpoint *listed(kq_exec *x, int32_t id)
{
    const handler *h = exec_handler(x);
    for (int i = 0; i < h->svc.node_count; i++)
        if (h->svc.nodes[i].node_id == id)
            return &h->svc.nodes[i];
    return NULL;
}

static void test_static_set_changes_nothing(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    n.x->env.peer_endpoint = capture;
    memset(&seen, 0, sizeof seen);
    kq_voter_set s = static_set(3);
    assert_false(follow(n.x, &s, 2));
    assert_int_equal(seen.calls, 0);
    assert_int_equal(exec_handler(n.x)->svc.node_count, 3);
    assert_int_equal(listed(n.x, 2)->port, TN_PORT_BASE + 2);
    tn_close(&n);
}

static void test_new_voter_reaches_seam_and_node_list(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    n.x->env.peer_endpoint = capture;
    memset(&seen, 0, sizeof seen);
    kq_voter_set s = static_set(3);
    add_voter(&s, 4, "node4.new", 19094);
    assert_true(follow(n.x, &s, 1));
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.id, 4);
    assert_string_equal(seen.host, "node4.new");
    assert_int_equal(seen.port, 19094);
    assert_int_equal(exec_handler(n.x)->svc.node_count, 4);
    assert_non_null(listed(n.x, 4));
    assert_int_equal(listed(n.x, 4)->port, 19094);
    assert_int_equal(exec_peer_index(n.x->peers, 4), 3);
    /* The same set again: nothing to tell. */
    assert_false(follow(n.x, &s, 1));
    assert_int_equal(seen.calls, 1);
    /* Its endpoint moves: replaced, with a fresh generation. */
    uint32_t gen = n.x->peers->slots[3].generation;
    s.voters[3].port = 19095;
    assert_true(follow(n.x, &s, 1));
    assert_int_equal(seen.calls, 2);
    assert_int_equal(seen.port, 19095);
    assert_int_equal(listed(n.x, 4)->port, 19095);
    assert_true(n.x->peers->slots[3].generation != gen);
    tn_close(&n);
}

static void test_removed_voter_forgotten_unless_leader(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    n.x->env.peer_endpoint = capture;
    memset(&seen, 0, sizeof seen);
    kq_voter_set s = static_set(3);
    add_voter(&s, 4, "node4.new", 19094);
    assert_true(follow(n.x, &s, 4));
    kq_voter_set without = static_set(3);
    /* Still the leader: kept (its removal commits through it). */
    assert_false(follow(n.x, &without, 4));
    assert_non_null(listed(n.x, 4));
    /* Another leader: forgotten, the channel may go, the slot is free. */
    assert_true(follow(n.x, &without, 2));
    assert_true(seen.forgotten);
    assert_int_equal(seen.id, 4);
    assert_null(listed(n.x, 4));
    assert_int_equal(exec_peer_index(n.x->peers, 4), -1);
    assert_int_equal(exec_peers_count(n.x->peers), 3);
    /* A configured voter is never forgotten. */
    kq_voter_set two = static_set(2);
    assert_false(follow(n.x, &two, 2));
    assert_non_null(listed(n.x, 3));
    tn_close(&n);
}

static void test_table_bounded_by_reuse(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    /* Many voters come and go: slots are reused, never exhausted. */
    for (int32_t id = 10; id < 10 + 4 * EXEC_PEERS_MAX; id++) {
        kq_voter_set s = static_set(3);
        add_voter(&s, id, "churn.test", (uint16_t)(20000 + id));
        assert_true(follow(n.x, &s, 1));
        assert_int_equal(exec_peers_count(n.x->peers), 4);
    }
    tn_close(&n);
}

/* A leader our set does not name (ours is behind): a slot without an
 * endpoint (a transport routing by id reaches it; none is announced),
 * dropped once another leader is followed. */
static void test_leader_outside_the_set_gets_a_slot(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    n.x->env.peer_endpoint = capture;
    memset(&seen, 0, sizeof seen);
    kq_voter_set s = static_set(3);
    assert_true(follow(n.x, &s, 7));
    assert_true(exec_peer_index(n.x->peers, 7) >= 0);
    assert_int_not_equal(seen.id, 7);
    assert_false(follow(n.x, &s, 7));
    assert_false(follow(n.x, &s, -1)); /* leaderless: the last leader is kept */
    assert_true(exec_peer_index(n.x->peers, 7) >= 0);
    assert_true(follow(n.x, &s, 2));
    assert_int_equal(exec_peer_index(n.x->peers, 7), -1);
    tn_close(&n);
}

/* The core addressing a node without a slot gets SEND_FAILED back, not a
 * crash (peer_send is never asked). */
static void test_send_to_unknown_node_fails_cleanly(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    raft_msg m = {.type = RAFT_MSG_FETCH_REQUEST, .from = 1, .to = 42};
    exec_send(n.x, &m);
    int32_t to = 0;
    enum raft_msg_type type = 0;
    assert_true(exec_peers_take_send_failed(n.x->peers, &to, &type));
    assert_int_equal(to, 42);
    assert_int_equal(type, RAFT_MSG_FETCH_REQUEST);
    assert_false(exec_peers_take_send_failed(n.x->peers, &to, &type));
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_set_changes_nothing),
        cmocka_unit_test(test_new_voter_reaches_seam_and_node_list),
        cmocka_unit_test(test_removed_voter_forgotten_unless_leader),
        cmocka_unit_test(test_table_bounded_by_reuse),
        cmocka_unit_test(test_send_to_unknown_node_fails_cleanly),
        cmocka_unit_test(test_leader_outside_the_set_gets_a_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
