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

#endif
