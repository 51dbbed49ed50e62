/* Streamed consumer Fetch answers (issue 19, docs/configuration.md "How a Fetch answer is
 * sent"): the handler plans the log ranges an answer holds; the transport
 * reads them through exec_stream_read as its socket drains. A transport
 * without reply_stream gets the answer materialised here, so every
 * transport (the handler tests among them) runs the same handler path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_metrics.h"
#include "exec_stream.h"
#include "kq/assert.h"
#include "kq/log_line.h"

ssize_t exec_stream_read(kq_exec *x, kq_log_cursor *cur, uint8_t *buf, size_t cap, size_t *need)
{
    if (x->failed)
        return -ECANCELED;
    ssize_t n = kq_log_cursor_read(x->log, cur, buf, cap, need);
    if (n >= 0 || n == -ENOBUFS)
        return n;
    if (n == -ESTALE) {
        exec_metrics_fetch_stream_stale(x);
        LOG_LINE_LIMITED("node %d: a streamed Fetch answer lost its segment (retention or a "
                         "reset) at offset %lld: closing that connection",
                         x->cfg.node_id, (long long)cur->next_offset);
        return n;
    }
    char why[128];
    snprintf(why, sizeof(why), "streaming the log at offset %lld: %s",
             (long long)cur->next_offset, strerror((int)-n));
    exec_fatal(x, "cannot read flushed log data", why);
    return n;
}

/* Reads every piece into its place in one frame of len + the pieces'
 * bytes. Returns NULL (and the reason) when a read failed. */
static uint8_t *stream_materialise(kq_exec *x, const uint8_t *frame, size_t len,
                                   exec_stream_piece *pieces, uint32_t count, size_t *out_len,
                                   const char **why)
{
    size_t total = len;
    for (uint32_t i = 0; i < count; i++)
        total += (size_t)pieces[i].cur.range.len;
    uint8_t *out = malloc(total);
    if (!out) {
        *why = "out of memory";
        return NULL;
    }
    size_t from = 0, w = 0;
    for (uint32_t i = 0; i < count; i++) {
        KQ_ASSERT(pieces[i].at >= from && pieces[i].at <= len);
        memcpy(out + w, frame + from, pieces[i].at - from);
        w += pieces[i].at - from;
        from = pieces[i].at;
        kq_log_cursor *cur = &pieces[i].cur;
        while (cur->done < cur->range.len) {
            size_t need = 0;
            ssize_t n = exec_stream_read(x, cur, out + w, (size_t)(cur->range.len - cur->done),
                                         &need);
            if (n <= 0) {
                free(out);
                *why = n == -ESTALE ? "streamed Fetch answer lost its segment"
                                    : "cannot read the log";
                return NULL;
            }
            w += (size_t)n;
        }
    }
    memcpy(out + w, frame + from, len - from);
    w += len - from;
    KQ_ASSERT(w == total);
    *out_len = total;
    return out;
}

void exec_reply_stream(kq_exec *x, void *slot, uint8_t *frame, size_t len,
                       const handler_stream_piece *hp, uint32_t count)
{
    exec_metrics_answered(x, slot);
    exec_stream_piece *pieces = malloc(sizeof(*pieces) * (count ? count : 1));
    if (x->failed || !pieces) {
        free(frame);
        free(pieces);
        if (!x->failed)
            x->env.reply_close(x->env.ctx, slot, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        pieces[i].at = hp[i].at;
        kq_log_cursor_init(&pieces[i].cur, &hp[i].range);
    }
    exec_metrics_fetch_streamed(x);
    if (x->env.reply_stream) {
        x->env.reply_stream(x->env.ctx, slot, frame, len, pieces, count);
        return;
    }
    const char *why = NULL;
    size_t out_len = 0;
    uint8_t *out = stream_materialise(x, frame, len, pieces, count, &out_len, &why);
    free(frame);
    free(pieces);
    if (!out) {
        if (!x->failed)
            x->env.reply_close(x->env.ctx, slot, why);
    } else if (x->env.reply_take) {
        x->env.reply_take(x->env.ctx, slot, out, out_len);
    } else {
        x->env.reply(x->env.ctx, slot, out + 4, out_len - 4);
        free(out);
    }
}
