/* Streamed consumer Fetch answers (issue 19): the bytes a client gets are
 * identical whether the answer is read and sent whole, materialised by the
 * executor, or read piece by piece through exec_stream_read as a transport
 * does (in chunks smaller than a batch: -ENOBUFS and need). (A segment
 * deleted between plan and read: tests/unit/storage/test_log_stream.c.) */
#include "handler_test_node.h"

#include <errno.h>

#include "kq/wire_fetch.h"
#include "kq/wire_produce.h"

#define META "__cluster_metadata"

enum mode { INLINE, STREAM_EXEC, STREAM_CHUNKED };
static enum mode cur_mode;
static size_t chunk_bytes;
static int stale_closes;
static int stream_calls;

static void mode_hook(exec_config *c)
{
    c->fetch_inline = cur_mode == INLINE;
    c->fetch_stream_min_bytes = 1;
}

/* A transport's read: the pieces in chunks of chunk_bytes (or need). */
static void chunked_reply_stream(void *ctx, void *slot, uint8_t *frame, size_t len,
                                 exec_stream_piece *pieces, uint32_t count)
{
    tn_node *n = ctx;
    stream_calls++;
    size_t total = len;
    for (uint32_t i = 0; i < count; i++)
        total += (size_t)pieces[i].cur.range.len;
    uint8_t *out = malloc(total);
    assert_non_null(out);
    size_t from = 0, at = 0;
    bool ok = true;
    for (uint32_t i = 0; i < count && ok; i++) {
        assert_true(pieces[i].at >= from && pieces[i].at <= len);
        memcpy(out + at, frame + from, pieces[i].at - from);
        at += pieces[i].at - from;
        from = pieces[i].at;
        size_t cap = chunk_bytes;
        kq_log_cursor *cur = &pieces[i].cur;
        while (ok && cur->done < cur->range.len) {
            size_t left = (size_t)(cur->range.len - cur->done), need = 0;
            ssize_t r = exec_stream_read(n->x, cur, out + at, cap < left ? cap : left, &need);
            if (r == -ENOBUFS) {
                assert_true(need > cap && need <= left);
                cap = need;
            } else if (r > 0) {
                at += (size_t)r;
                cap = chunk_bytes;
            } else {
                assert_int_equal(r, -ESTALE);
                ok = false;
            }
        }
    }
    if (ok) {
        memcpy(out + at, frame + from, len - from);
        assert_int_equal(at + len - from, total);
        assert_int_equal(((uint32_t)out[0] << 24 | (uint32_t)out[1] << 16 |
                          (uint32_t)out[2] << 8 | out[3]), total - 4);
        tn_reply_cb(n, slot, out + 4, total - 4);
    } else {
        stale_closes++;
        tn_reply_close_cb(n, slot, "stale");
    }
    free(out);
    free(frame);
    free(pieces);
}

static void produce(tn_node *n, tn_slot *slot, int count, const char *tag)
{
    kq_writer b;
    tn_batch(&b, -1, -1, -1, count, tag);
    wire_produce_partition p = {.index = 0, .records = {b.data, (int32_t)b.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = 1,
                                .timeout_ms = 30000, .topics = &t, .topic_count = 1};
    TN_SEND(n, slot, WIRE_API_PRODUCE, 9, 1, wire_produce_request_encode, &req);
    kq_writer_free(&b);
}

static void fetch(tn_node *n, tn_slot *slot, int16_t v, int32_t corr, int64_t offset,
                  int32_t partition_max, int partitions)
{
    wire_fetch_partition p[2];
    for (int i = 0; i < 2; i++)
        p[i] = (wire_fetch_partition){.partition = 0, .current_leader_epoch = -1,
                                      .fetch_offset = offset + i * 7, .last_fetched_epoch = -1,
                                      .log_start_offset = -1, .partition_max_bytes = partition_max};
    wire_fetch_topic t = {.topic = v < 13 ? kq_slice_cstr(META) : (kq_slice){NULL, -1},
                          .topic_id = WIRE_METADATA_TOPIC_ID, .partitions = p,
                          .partition_count = partitions};
    wire_fetch_request req = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                              .max_wait_ms = 0, .min_bytes = 1, .max_bytes = 1 << 20,
                              .session_epoch = -1, .topics = &t, .topic_count = 1,
                              .rack_id = kq_slice_cstr("")};
    TN_SEND(n, slot, WIRE_API_FETCH, v, corr, wire_fetch_request_encode, &req);
}

typedef struct answers {
    uint8_t *data[16];
    size_t len[16];
    int count;
} answers;

/* One node in mode m: the same log, the same Fetch requests; the bytes of
 * every answer. */
static void run_mode(enum mode m, answers *out)
{
    cur_mode = m;
    tn_config_hook = mode_hook;
    tn_reply_stream = m == STREAM_CHUNKED ? chunked_reply_stream : NULL;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1}, p = {2};
    for (int i = 0; i < 40; i++)
        produce(&n, &p, 10 + i % 7, "streamed-record-value");
    tn_flush(&n);
    static const int16_t versions[] = {4, 11, 12, 13, 16};
    int32_t corr = 10;
    out->count = 0;
    for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
        for (int k = 0; k < 3; k++) {
            int32_t max = k == 0 ? 1 << 20 : k == 1 ? 3000 : 10; /* 10: one batch still */
            fetch(&n, &s, versions[v], corr, k == 2 ? 0 : 5, max, k == 1 ? 2 : 1);
            const tn_reply *r = tn_last(&n, &s);
            assert_non_null(r);
            assert_int_equal(r->kind, TN_REPLY);
            assert_true(out->count < 16);
            out->data[out->count] = malloc(r->len);
            memcpy(out->data[out->count], r->data, r->len);
            out->len[out->count++] = r->len;
            corr++;
        }
    }
    tn_close(&n);
    tn_config_hook = NULL;
    tn_reply_stream = NULL;
}

static void answers_free(answers *a)
{
    for (int i = 0; i < a->count; i++)
        free(a->data[i]);
}

static void test_streamed_answers_are_byte_identical(void **state)
{
    (void)state;
    answers inl, ex, ch;
    run_mode(INLINE, &inl);
    run_mode(STREAM_EXEC, &ex);
    size_t sizes[] = {1, 100, 700, 1 << 20};
    for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
        chunk_bytes = sizes[c];
        stream_calls = 0;
        run_mode(STREAM_CHUNKED, &ch);
        assert_int_equal(stream_calls, ch.count); /* every answer was streamed */
        assert_int_equal(stale_closes, 0);
        assert_int_equal(ch.count, inl.count);
        for (int i = 0; i < inl.count; i++) {
            assert_int_equal(ch.len[i], inl.len[i]);
            assert_memory_equal(ch.data[i], inl.data[i], inl.len[i]);
        }
        answers_free(&ch);
    }
    assert_int_equal(ex.count, inl.count);
    for (int i = 0; i < inl.count; i++) {
        assert_true(inl.len[i] > 1000 || i % 3 == 2);
        assert_int_equal(ex.len[i], inl.len[i]);
        assert_memory_equal(ex.data[i], inl.data[i], inl.len[i]);
    }
    answers_free(&inl);
    answers_free(&ex);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamed_answers_are_byte_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
