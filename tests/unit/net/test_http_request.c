/* kq_http_parse_request: what a scraper sends is complete, split reads
 * wait, malformed or oversized heads are bad, a body is never judged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kq/http_request.h"

static enum kq_http_parse parse(const char *s, kq_http_request *r)
{
    return kq_http_parse_request((const uint8_t *)s, strlen(s), r);
}

static void test_scrape(void **state)
{
    (void)state;
    kq_http_request r;
    const char *req = "GET /metrics?name=x HTTP/1.1\r\nHost: a:1\r\nAccept: */*\r\n\r\n";
    assert_int_equal(parse(req, &r), KQ_HTTP_COMPLETE);
    assert_string_equal(r.method, "GET");
    assert_int_equal(r.path_len, 8);
    assert_memory_equal(r.path, "/metrics", 8);
    assert_int_equal(r.head_bytes, strlen(req));
    for (size_t cut = 0; cut < strlen(req); cut++)
        assert_int_equal(kq_http_parse_request((const uint8_t *)req, cut, &r),
                         KQ_HTTP_INCOMPLETE);
    assert_int_equal(parse("GET / HTTP/1.0\n\n", &r), KQ_HTTP_COMPLETE);
    assert_int_equal(r.path_len, 1);
}

static void test_body_not_judged(void **state)
{
    (void)state;
    kq_http_request r;
    const uint8_t req[] = "POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\n\x00\xff";
    assert_int_equal(kq_http_parse_request(req, sizeof req - 1, &r), KQ_HTTP_COMPLETE);
    assert_string_equal(r.method, "POST");
}

static void test_bad(void **state)
{
    (void)state;
    kq_http_request r;
    const char *bad[] = {
        "GARBAGE\r\n\r\n",       "get /metrics HTTP/1.1\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
        "GET /m HTTP/2.0\r\n\r\n", "GET  /m HTTP/1.1\r\n\r\n",
        "GET /m HTTP/1.1\r\nno colon\r\n\r\n",
        "GET /m HTTP/1.1\r\n: v\r\n\r\n", "GET /m\rx HTTP/1.1\r\n\r\n", "\r\n",
        "GETTINGTOOLONGMETHOD /m HTTP/1.1\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], &r), KQ_HTTP_BAD);
    const uint8_t binary[] = {'G', 'E', 'T', ' ', 0x01};
    assert_int_equal(kq_http_parse_request(binary, sizeof binary, &r), KQ_HTTP_BAD);
}

static void test_oversized(void **state)
{
    (void)state;
    static uint8_t big[KQ_METRICS_HTTP_REQUEST_BYTES_MAX + 10];
    memset(big, 'a', sizeof big);
    memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
    kq_http_request r;
    assert_int_equal(kq_http_parse_request(big, KQ_METRICS_HTTP_REQUEST_BYTES_MAX - 1, &r),
                     KQ_HTTP_INCOMPLETE);
    assert_int_equal(kq_http_parse_request(big, KQ_METRICS_HTTP_REQUEST_BYTES_MAX, &r),
                     KQ_HTTP_BAD);
    assert_int_equal(kq_http_parse_request(big, sizeof big, &r), KQ_HTTP_BAD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scrape),
        cmocka_unit_test(test_body_not_judged),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_oversized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
