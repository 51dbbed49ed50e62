/* The request object's contract (kq/request.h): the handler hands a Produce
 * over as one kq_request, the executor completes it exactly once and hands
 * it back; completing twice, handing back an uncompleted request, or a
 * next frame while one is still out stops the process (KQ_ASSERT). */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handler_test_node.h"

#include "kq/request.h"
#include "kq/wire_produce.h"

/* Decodes a Produce of b straight through the handlers (not the executor)
 * and returns the decision. */
static handler_decision decide_produce(tn_node *n, tn_slot *slot, int32_t corr, kq_writer *b)
{
    wire_produce_partition p = {.index = 0, .records = {b->data, (int32_t)b->len}};
    wire_produce_topic t = {.name = kq_slice_cstr("__cluster_metadata"), .partitions = &p,
                            .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = -1,
                                .timeout_ms = 30000, .topics = &t, .topic_count = 1};
    kq_writer w;
    tn_begin_request(&w, WIRE_API_PRODUCE, 9, corr);
    wire_produce_request_encode(&w, 9, &req);
    assert_false(w.error);
    handler_decision d;
    handler_on_frame(exec_handler(n->x), slot, w.data, w.len, &d);
    kq_writer_free(&w); /* the decision's records point into it: not appended here */
    return d;
}

/* Runs fn in a child and asserts it dies of the KQ_ASSERT's abort. */
static void assert_aborts(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2); /* the FATAL line */
        fn();
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void test_produce_hands_over_one_request(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 2, "r");
    handler_decision d = decide_produce(&n, &s, 7, &b);
    kq_writer_free(&b);
    assert_int_equal(d.kind, HANDLER_APPEND);
    kq_request *req = d.request;
    assert_non_null(req);
    assert_ptr_equal(req->slot, &s);
    assert_int_equal(req->api_key, WIRE_API_PRODUCE);
    assert_int_equal(req->api_version, 9);
    assert_int_equal(req->correlation_id, 7);
    assert_int_equal(req->phase, KQ_REQUEST_AT_EXECUTOR);
    assert_int_equal(req->action, KQ_REQUEST_APPEND);
    assert_int_equal(req->append.offset_count, 2);
    /* The executor's result, by hand: the handler answers from it. */
    kq_request_result res = {.error = KAFKA_NOT_LEADER_OR_FOLLOWER, .base_offset = -1,
                             .last_offset = -1, .epoch = -1, .producer_id = -1};
    kq_request_complete(req, &res);
    assert_int_equal(req->phase, KQ_REQUEST_EXECUTED);
    handler_request_done(exec_handler(n.x), req);
    assert_int_equal(tn_count(&n, &s), 1); /* not appended: answered at once */
    tn_close(&n);
}

static void complete_twice(void)
{
    kq_request r = {.action = KQ_REQUEST_APPEND};
    kq_request_hand_over(&r);
    kq_request_fail(&r, KAFKA_NOT_LEADER_OR_FOLLOWER);
    kq_request_fail(&r, KAFKA_NOT_LEADER_OR_FOLLOWER); /* aborts */
}

static void complete_undecided(void)
{
    kq_request r = {.action = KQ_REQUEST_APPEND};
    kq_request_fail(&r, KAFKA_NOT_LEADER_OR_FOLLOWER); /* never handed over: aborts */
}

static void test_double_completion_aborts(void **state)
{
    (void)state;
    assert_aborts(complete_twice);
    assert_aborts(complete_undecided);
}

static tn_node child_node;

/* A request handed back without its result. */
static void hand_back_uncompleted(void)
{
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 1, "r");
    handler_decision d = decide_produce(&child_node, &s, 1, &b);
    handler_request_done(exec_handler(child_node.x), d.request); /* aborts */
}

/* A request lost: the next frame comes while it is still out. */
static void next_frame_while_out(void)
{
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 1, "r");
    (void)decide_produce(&child_node, &s, 1, &b);
    (void)decide_produce(&child_node, &s, 2, &b); /* aborts */
}

static void test_lost_request_aborts(void **state)
{
    (void)state;
    tn_open_leader(&child_node);
    assert_aborts(hand_back_uncompleted);
    assert_aborts(next_frame_while_out);
    tn_close(&child_node);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_produce_hands_over_one_request),
        cmocka_unit_test(test_double_completion_aborts),
        cmocka_unit_test(test_lost_request_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
