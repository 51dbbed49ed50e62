/* Part of the end-of-run check: every live node's metrics text (the
 * executor's exec_metrics_write, on the simulator's clock) fits the
 * endpoint's bound, names exactly one current state, and the leader's says
 * "leader" with a high watermark at or past the final one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/metrics.h"
#include "w_check_internal.h"

#define STATE_PREFIX "kafka_server_raft_metrics_current_state{state=\""
#define HW_PREFIX "\nkafka_server_raft_metrics_high_watermark "

static int count_states_on(const char *text)
{
    int on = 0;
    for (const char *p = strstr(text, STATE_PREFIX); p; p = strstr(p + 1, STATE_PREFIX)) {
        const char *end = strchr(p, '\n');
        if (end && end - p > 2 && memcmp(end - 2, " 1", 2) == 0)
            on++;
    }
    return on;
}

static void check_node(w_world *w, int node, bool leader, int64_t final_hw, char *buf)
{
    kq_mtext t;
    kq_mtext_init(&t, buf, KQ_METRICS_RESPONSE_BYTES_MAX);
    exec_metrics_write(w->nodes[node].x, &t);
    if (t.truncated) {
        w_fail(w, "final: node %d's metrics exceed the response bound", node + 1);
        return;
    }
    if (count_states_on(buf) != 1) {
        w_fail(w, "final: node %d's metrics name %d current states", node + 1,
               count_states_on(buf));
        return;
    }
    if (!leader)
        return;
    const char *hw = strstr(buf, HW_PREFIX);
    if (!strstr(buf, STATE_PREFIX "leader\"} 1\n") || !hw ||
        strtoll(hw + strlen(HW_PREFIX), NULL, 10) < final_hw)
        w_fail(w, "final: leader %d's metrics do not say leader with a high watermark >= %lld",
               node + 1, (long long)final_hw);
}

void w_check_metrics(w_world *w, int leader, int64_t final_hw)
{
    char *buf = malloc(KQ_METRICS_RESPONSE_BYTES_MAX);
    if (!buf)
        return;
    for (int i = 0; i < w->n && !w->failed; i++)
        if (w_node_alive(w, i) && w->nodes[i].x)
            check_node(w, i, i == leader, final_hw, buf);
    free(buf);
}
