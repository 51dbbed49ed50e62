/* The metrics endpoint's request parser (kq/http_request.h): pure, bounded,
 * reads nothing outside [buf, buf + len). */
#include "kq/http_request.h"

#include <stdbool.h>
#include <string.h>

static bool byte_allowed(uint8_t b)
{
    return (b >= 0x20 && b < 0x7f) || b == '\t' || b == '\r' || b == '\n';
}

static bool bytes_allowed(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!byte_allowed(p[i]))
            return false;
    return true;
}

/* Length of the line at buf[pos] without its terminator, and where the next
 * line starts; false when no LF follows within len (*bad when what there is
 * already cannot start a valid line). A CR is allowed only right before the
 * LF; only the head's bytes are ever checked (a body may be anything). */
static bool next_line(const uint8_t *buf, size_t len, size_t pos, size_t *line_len,
                      size_t *next, bool *bad)
{
    if (pos >= len)
        return false; /* *bad stays false: nothing more to judge */
    const uint8_t *lf = memchr(buf + pos, '\n', len - pos);
    if (!lf) {
        *bad = !bytes_allowed(buf + pos, len - pos);
        return false;
    }
    size_t end = (size_t)(lf - buf);
    size_t n = end - pos;
    if (n > 0 && buf[end - 1] == '\r')
        n--;
    if (memchr(buf + pos, '\r', n) || !bytes_allowed(buf + pos, n))
        *bad = true;
    *line_len = n;
    *next = end + 1;
    return true;
}

static bool is_token_char(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* "METHOD SP /target SP HTTP/1.x" */
static bool parse_request_line(const uint8_t *l, size_t n, kq_http_request *out)
{
    size_t m = 0;
    while (m < n && l[m] >= 'A' && l[m] <= 'Z')
        m++;
    if (m == 0 || m >= sizeof out->method || m >= n || l[m] != ' ')
        return false;
    size_t t = m + 1, te = t;
    while (te < n && l[te] > 0x20 && l[te] < 0x7f)
        te++;
    if (te == t || l[t] != '/' || te >= n || l[te] != ' ')
        return false;
    const uint8_t *v = l + te + 1;
    size_t vn = n - te - 1;
    if (vn != 8 || (memcmp(v, "HTTP/1.0", 8) != 0 && memcmp(v, "HTTP/1.1", 8) != 0))
        return false;
    memcpy(out->method, l, m);
    out->method[m] = '\0';
    const uint8_t *q = memchr(l + t, '?', te - t);
    out->path = l + t;
    out->path_len = q ? (size_t)(q - (l + t)) : te - t;
    return true;
}

/* "name: value" with a token name. */
static bool header_ok(const uint8_t *l, size_t n)
{
    size_t i = 0;
    while (i < n && is_token_char(l[i]))
        i++;
    return i > 0 && i < n && l[i] == ':';
}

enum kq_http_parse kq_http_parse_request(const uint8_t *buf, size_t len, kq_http_request *out)
{
    size_t scan = len < KQ_METRICS_HTTP_REQUEST_BYTES_MAX ? len : KQ_METRICS_HTTP_REQUEST_BYTES_MAX;
    kq_http_request r;
    memset(&r, 0, sizeof r);
    size_t pos = 0, n = 0, next = 0;
    bool bad = false;
    for (int line = 0;; line++) {
        if (!next_line(buf, scan, pos, &n, &next, &bad))
            return bad || scan == KQ_METRICS_HTTP_REQUEST_BYTES_MAX ? KQ_HTTP_BAD
                                                                     : KQ_HTTP_INCOMPLETE;
        if (bad)
            return KQ_HTTP_BAD;
        if (line == 0 ? !parse_request_line(buf + pos, n, &r)
                      : n > 0 && !header_ok(buf + pos, n))
            return KQ_HTTP_BAD;
        pos = next;
        if (line > 0 && n == 0)
            break;
    }
    r.head_bytes = pos;
    *out = r;
    return KQ_HTTP_COMPLETE;
}
