/* Whole request frames through the handlers and the executor, against a
 * real Raft core (a single voter that leads) and a real log on the
 * simulator's in-memory file system. The input is a sequence of frames, each
 * a big-endian u16 length then that many bytes. Properties: no client input
 * stops the node (env fatal), every slot is completed at most once, flushes
 * complete, and the node still answers a well-formed ApiVersions after. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kq/exec.h"
#include "kq/log_line.h"
#include "sim_fs.h"

#define FRAMES_MAX 64

typedef struct fz_slot {
    int answers;
} fz_slot;

typedef struct fz_node {
    sim_fs *fs;
    kq_exec *x;
    int64_t now;
    kq_log_flush_job *job;
    fz_slot slots[FRAMES_MAX + 1];
} fz_node;

static void answer(fz_node *n, void *slot)
{
    fz_slot *s = slot;
    FUZZ_CHECK(s >= n->slots && s < n->slots + FRAMES_MAX + 1, "a slot we handed out");
    FUZZ_CHECK(++s->answers == 1, "every slot is completed at most once");
}
static void f_reply(void *c, void *slot, const uint8_t *d, size_t len)
{
    FUZZ_CHECK(d && len >= 4, "a response has a header");
    answer(c, slot);
}
static void f_none(void *c, void *slot) { answer(c, slot); }
static void f_close(void *c, void *slot, const char *why) { (void)why; answer(c, slot); }
static const char *f_peer(void *c, void *slot) { (void)c; (void)slot; return "fuzz"; }
static int64_t f_now(void *c) { return ((fz_node *)c)->now; }
static bool f_send(void *c, int32_t id, int32_t corr, const uint8_t *f, size_t l, uint64_t t)
{
    (void)c, (void)id, (void)corr, (void)f, (void)l, (void)t;
    return false; /* a single voter has no peers */
}
static void f_flush(void *c, kq_log_flush_job *job) { ((fz_node *)c)->job = job; }
static void f_timer(void *c, int64_t due) { (void)c, (void)due; }
static void f_fatal(void *c, const char *what, const char *detail)
{
    (void)c, (void)what, (void)detail;
    FUZZ_CHECK(false, "no client input stops the node");
}

static void settle(fz_node *n)
{
    while (n->job) {
        kq_log_flush_job *job = n->job;
        n->job = NULL;
        exec_flush_done(n->x, job, kq_log_flush_run(job));
    }
}

static bool open_node(fz_node *n)
{
    memset(n, 0, sizeof(*n));
    n->now = 1000000;
    n->fs = sim_fs_create();
    exec_config c = {.node_id = 1, .voter_count = 1, .cluster_id = "fuzz", .log_dir = "/data",
                     .segment_bytes = 1 << 16, .frame_bytes_max = 1 << 20,
                     .election_timeout_ms = 1000, .fetch_timeout_ms = 2000,
                     .election_backoff_max_ms = 1000, .request_timeout_ms = 500,
                     .retry_backoff_ms = 50, .random_seed = 1, .producer_id_base = 1};
    c.voters[0] = (exec_endpoint){.node_id = 1, .host = "localhost", .port = 9092};
    exec_env env = {.ctx = n, .fs = sim_fs_table(n->fs), .now_ms = f_now, .peer_send = f_send,
                    .reply = f_reply, .reply_none = f_none, .reply_close = f_close,
                    .slot_peer = f_peer, .flush_start = f_flush, .arm_timer = f_timer,
                    .fatal = f_fatal};
    char err[512];
    n->x = n->fs ? exec_create(&c, &env, err, sizeof(err)) : NULL;
    if (!n->x)
        return false;
    exec_start(n->x);
    settle(n);
    return true;
}

/* ApiVersions v0 (correlation id 7): the node still answers. */
static void still_answers(fz_node *n)
{
    uint8_t frame[] = {0, 18, 0, 0, 0, 0, 0, 7, 0, 0};
    fz_slot *s = &n->slots[FRAMES_MAX];
    exec_on_frame(n->x, s, frame, sizeof(frame));
    settle(n);
    FUZZ_CHECK(s->answers == 1, "the node still answers ApiVersions");
}

static void quiet(void *ctx, const char *line)
{
    (void)ctx, (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_line_set_sink(quiet, NULL);
    fz_node n;
    FUZZ_CHECK(open_node(&n), "a fresh single-voter node opens");
    size_t pos = 0;
    for (int i = 0; i < FRAMES_MAX && pos + 2 <= size; i++) {
        size_t len = (size_t)data[pos] << 8 | data[pos + 1];
        pos += 2;
        if (len > size - pos)
            len = size - pos;
        uint8_t *frame = malloc(len ? len : 1);
        if (len)
            memcpy(frame, data + pos, len);
        pos += len;
        exec_on_frame(n.x, &n.slots[i], frame, len);
        free(frame);
        settle(&n);
        n.now += 7;
    }
    n.now += 60000; /* every long poll and produce wait expires */
    exec_on_timer(n.x);
    settle(&n);
    still_answers(&n);
    exec_destroy(n.x, false);
    sim_fs_destroy(n.fs);
    return 0;
}
