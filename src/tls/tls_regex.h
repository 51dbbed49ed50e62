/* Java regular expressions (as Kafka's principal mapping rules hold them)
 * rewritten into POSIX extended ones for regcomp, for the common subset. */
#ifndef KQ_TLS_REGEX_H
#define KQ_TLS_REGEX_H

#include <stdbool.h>
#include <stddef.h>

/* Translates the Java pattern src (len bytes, not NUL-terminated) into dst
 * (NUL-terminated; cap must be at least TLS_REGEX_EXPANSION * len + 1).
 * *icase is set for a leading "(?i)". False with the reason in why. */
#define TLS_REGEX_EXPANSION 16
bool tls_regex_translate(const char *src, size_t len, char *dst, size_t cap, bool *icase,
                         char *why, size_t whylen);

#endif
