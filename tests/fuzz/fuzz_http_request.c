/* Fuzz target: the metrics endpoint's HTTP request parser
 * (include/kq/http_request.h), on bytes any client can send. Input: the
 * bytes received on one connection. Properties: no crash or UB; a complete
 * request's head lies within the input and the byte bound, its path within
 * the head and starting with '/', its method upper-case letters; a read
 * split anywhere before the head's end is "incomplete" (never "bad"), and
 * any longer prefix parses to the same head. */
#include <string.h>

#include "fuzz.h"
#include "kq/http_request.h"

#define PREFIXES_CHECKED 16

static void check_complete(const uint8_t *data, size_t size, const kq_http_request *r)
{
    FUZZ_CHECK(r->head_bytes > 0 && r->head_bytes <= size &&
                   r->head_bytes <= KQ_METRICS_HTTP_REQUEST_BYTES_MAX,
               "the head lies within the input and the bound");
    FUZZ_CHECK(r->path >= data && r->path_len > 0 && r->path + r->path_len <= data + r->head_bytes,
               "the path lies within the head");
    FUZZ_CHECK(r->path[0] == '/', "the path starts with a slash");
    size_t m = strnlen(r->method, sizeof r->method);
    FUZZ_CHECK(m > 0 && m < sizeof r->method, "the method is terminated and not empty");
    for (size_t i = 0; i < m; i++)
        FUZZ_CHECK(r->method[i] >= 'A' && r->method[i] <= 'Z', "the method is upper case");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kq_http_request r;
    enum kq_http_parse p = kq_http_parse_request(data, size, &r);
    FUZZ_CHECK(p == KQ_HTTP_INCOMPLETE || p == KQ_HTTP_COMPLETE || p == KQ_HTTP_BAD,
               "a known verdict");
    if (p == KQ_HTTP_INCOMPLETE)
        FUZZ_CHECK(size < KQ_METRICS_HTTP_REQUEST_BYTES_MAX,
                   "a full buffer is never incomplete (the server would wait forever)");
    if (p != KQ_HTTP_COMPLETE)
        return 0;
    check_complete(data, size, &r);
    for (int k = 0; k < PREFIXES_CHECKED; k++) {
        size_t cut = (size_t)((r.head_bytes * (uint64_t)k) / PREFIXES_CHECKED);
        kq_http_request q;
        FUZZ_CHECK(kq_http_parse_request(data, cut, &q) == KQ_HTTP_INCOMPLETE,
                   "a read split before the head's end waits for more");
    }
    kq_http_request again;
    size_t longer = r.head_bytes + (size - r.head_bytes) / 2;
    FUZZ_CHECK(kq_http_parse_request(data, longer, &again) == KQ_HTTP_COMPLETE &&
                   again.head_bytes == r.head_bytes && again.path_len == r.path_len &&
                   strcmp(again.method, r.method) == 0,
               "bytes after the head change nothing");
    return 0;
}
