/* Error text and file reading for the TLS module. */
#include <errno.h>
#include <openssl/err.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tls_internal.h"

bool tls_fail(char *err, size_t errlen, const char *key, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return false;
    int n = snprintf(err, errlen, "%s: ", key);
    if (n < 0 || (size_t)n >= errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

void tls_append_openssl_errors(char *buf, size_t cap)
{
    unsigned long e;
    while ((e = ERR_get_error()) != 0) {
        size_t used = strnlen(buf, cap);
        if (used + 3 >= cap)
            continue; /* keep draining the queue */
        const char *reason = ERR_reason_error_string(e);
        char code[32];
        if (!reason) {
            snprintf(code, sizeof code, "error %d", ERR_GET_REASON(e));
            reason = code;
        }
        if (!strstr(buf, reason)) /* OpenSSL often queues one reason twice */
            snprintf(buf + used, cap - used, "%s%s", used ? "; " : "", reason);
    }
}

char *tls_read_file(const char *path, const char *key, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tls_fail(err, errlen, key, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    static const size_t max = KQ_TLS_STORE_FILE_BYTES_MAX;
    char *data = OPENSSL_malloc(max + 2);
    size_t n = data ? fread(data, 1, max + 1, f) : 0;
    int read_errno = ferror(f) ? errno : 0;
    fclose(f);
    if (!data) {
        tls_fail(err, errlen, key, "out of memory reading %s", path);
        return NULL;
    }
    if (read_errno || n == 0 || n > max) {
        if (read_errno)
            tls_fail(err, errlen, key, "cannot read %s: %s", path, strerror(read_errno));
        else if (n == 0)
            tls_fail(err, errlen, key, "%s is empty", path);
        else
            tls_fail(err, errlen, key, "%s is larger than %u bytes", path, (unsigned)max);
        tls_file_free(data);
        return NULL;
    }
    data[n] = '\0';
    *len = n;
    return data;
}

void tls_file_free(char *data)
{
    if (data)
        OPENSSL_clear_free(data, KQ_TLS_STORE_FILE_BYTES_MAX + 2);
}
