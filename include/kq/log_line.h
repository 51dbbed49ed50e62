/* Timestamped log lines on stderr: "[2026-11-29 21:15:49,123] message". */
#ifndef KQ_LOG_LINE_H
#define KQ_LOG_LINE_H

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void log_line(const char *fmt, ...);

#endif
