/* Timestamped log lines on stderr: "[2026-11-29 21:15:49,123] message". */
#ifndef KQ_LOG_LINE_H
#define KQ_LOG_LINE_H

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void log_line(const char *fmt, ...);

/* Where lines go instead of stderr (the simulator prefixes them with the
 * simulated time and node, or drops them). NULL restores stderr. */
typedef void (*log_line_sink)(void *ctx, const char *line);
void log_line_set_sink(log_line_sink sink, void *ctx);


/* ---- Rate-limited lines (issue 19: every line a client can cause). Per
 * call site at most KQ_LOG_LIMITED_LINES_PER_WINDOW lines per
 * KQ_LOG_LIMITED_WINDOW_MS (kq/limits.h); the others are counted, and the
 * next line let through says how many were suppressed. One thread (the
 * event loop) per site. */
#include <stdbool.h>
#include <stdint.h>

typedef struct kq_log_limit {
    uint64_t window_start_ms;
    uint32_t in_window; /* lines let through in this window */
    uint64_t suppressed; /* since the last line let through */
    bool started;
} kq_log_limit;

/* Whether a line may go out at now_ms; when it may, *suppressed is the
 * count dropped before it (then reset). Pure. */
bool kq_log_limit_allow(kq_log_limit *l, uint64_t now_ms, uint64_t *suppressed);
/* Lines suppressed by every limited site since start (a metric). */
uint64_t log_line_suppressed_total(void);
/* The clock of the limited lines: monotonic ms by default; the simulator
 * sets its own (NULL restores the default). */
void log_line_set_clock(uint64_t (*now_ms)(void *ctx), void *ctx);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void log_line_limited(kq_log_limit *l, const char *fmt, ...);

#define LOG_LINE_LIMITED(...)                                                                  \
    do {                                                                                       \
        static kq_log_limit log_line_site_;                                                    \
        log_line_limited(&log_line_site_, __VA_ARGS__);                                        \
    } while (0)

#endif
