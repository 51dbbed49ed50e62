/* Prometheus text exposition (format 0.0.4) into a bounded buffer: once
 * something does not fit, the writer is marked truncated and writes nothing
 * more (the caller must not serve an incomplete body). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kq/metrics.h"

void kq_mtext_init(kq_mtext *t, char *buf, size_t cap)
{
    *t = (kq_mtext){.buf = buf, .cap = cap};
    if (cap > 0)
        buf[0] = '\0';
    else
        t->truncated = true;
}

static void mtext_put(kq_mtext *t, const char *s, size_t n)
{
    if (t->truncated)
        return;
    if (n >= t->cap - t->len) {
        t->truncated = true;
        return;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void mtext_str(kq_mtext *t, const char *s)
{
    mtext_put(t, s, strlen(s));
}

/* Help text: backslash and newline escaped. */
static void mtext_help(kq_mtext *t, const char *help)
{
    for (const char *p = help; *p; p++) {
        if (*p == '\\')
            mtext_put(t, "\\\\", 2);
        else if (*p == '\n')
            mtext_put(t, "\\n", 2);
        else
            mtext_put(t, p, 1);
    }
}

void kq_mtext_family(kq_mtext *t, const char *name, const char *type, const char *help)
{
    mtext_str(t, "# HELP ");
    mtext_str(t, name);
    mtext_put(t, " ", 1);
    mtext_help(t, help);
    mtext_str(t, "\n# TYPE ");
    mtext_str(t, name);
    mtext_put(t, " ", 1);
    mtext_str(t, type);
    mtext_put(t, "\n", 1);
}

bool kq_mtext_escape_label(const char *value, char *out, size_t cap)
{
    size_t n = 0;
    if (cap == 0)
        return false;
    for (const char *p = value; *p; p++) {
        const char *rep = *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : *p == '\n' ? "\\n" : NULL;
        size_t len = rep ? 2 : 1;
        if (n + len >= cap) {
            out[n] = '\0';
            return false;
        }
        if (rep)
            memcpy(out + n, rep, 2);
        else
            out[n] = *p;
        n += len;
    }
    out[n] = '\0';
    return true;
}

static void mtext_label(kq_mtext *t, const char *name, const char *value, bool first)
{
    char esc[2 * KQ_METRICS_LABEL_BYTES_MAX + 1];
    if (!kq_mtext_escape_label(value, esc, sizeof esc))
        t->truncated = true; /* never cut a label value silently */
    if (!first)
        mtext_put(t, ",", 1);
    mtext_str(t, name);
    mtext_put(t, "=\"", 2);
    mtext_str(t, esc);
    mtext_put(t, "\"", 1);
}

static void mtext_number(kq_mtext *t, double v)
{
    char num[64];
    if (isnan(v))
        snprintf(num, sizeof num, "NaN");
    else if (isinf(v))
        snprintf(num, sizeof num, v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(num, sizeof num, "%.0f", v);
    else
        snprintf(num, sizeof num, "%.17g", v);
    mtext_str(t, num);
}

/* name{labels[,le="..."]} value */
static void mtext_line(kq_mtext *t, const char *name, const char *suffix, const kq_mlabel *labels,
                       int label_count, const char *le, double value)
{
    mtext_str(t, name);
    mtext_str(t, suffix);
    if (label_count > 0 || le) {
        mtext_put(t, "{", 1);
        for (int i = 0; i < label_count; i++)
            mtext_label(t, labels[i].name, labels[i].value, i == 0);
        if (le)
            mtext_label(t, "le", le, label_count == 0);
        mtext_put(t, "}", 1);
    }
    mtext_put(t, " ", 1);
    mtext_number(t, value);
    mtext_put(t, "\n", 1);
}

void kq_mtext_sample(kq_mtext *t, const char *name, const kq_mlabel *labels, int label_count,
                     double value)
{
    mtext_line(t, name, "", labels, label_count, NULL, value);
}

void kq_mtext_histogram(kq_mtext *t, const char *name, const kq_mlabel *labels, int label_count,
                        const kq_histogram *h)
{
    uint64_t cumulative = 0;
    for (int i = 0; i <= h->bound_count; i++) {
        cumulative += h->counts[i];
        char le[32];
        if (i == h->bound_count)
            snprintf(le, sizeof le, "+Inf");
        else
            snprintf(le, sizeof le, "%.15g", h->bounds[i]);
        mtext_line(t, name, "_bucket", labels, label_count, le, (double)cumulative);
    }
    mtext_line(t, name, "_sum", labels, label_count, NULL, h->sum);
    mtext_line(t, name, "_count", labels, label_count, NULL, (double)h->count);
}
