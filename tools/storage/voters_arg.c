/* --initial-controllers id@host:port:directory-id,... (Kafka's
 * DynamicVoters syntax; an IPv6 host in brackets). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/meta_properties.h"
#include "storage_tool.h"

static int parse_one(const char *s, size_t len, kq_voter *v, const char *listener)
{
    char buf[600];
    if (len == 0 || len >= sizeof buf)
        return -EINVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *at = strchr(buf, '@');
    char *dir = strrchr(buf, ':');
    if (!at || !dir || dir < at)
        return -EINVAL;
    *dir++ = '\0';
    char *port = strrchr(at + 1, ':');
    if (!port)
        return -EINVAL;
    *port++ = '\0';
    *at = '\0';
    char *end;
    long id = strtol(buf, &end, 10);
    long p = strtol(port, &end, 10);
    if (buf[0] < '0' || buf[0] > '9' || id > INT32_MAX || p < 0 || p > 65535 || *end || !*port)
        return -EINVAL;
    for (const char *c = buf; *c; c++)
        if (*c < '0' || *c > '9')
            return -EINVAL;
    char *host = at + 1;
    size_t hlen = strlen(host);
    if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
        host[hlen - 1] = '\0';
        host++;
    }
    if (!*host || strlen(host) > KQ_BOOTSTRAP_NAME_BYTES_MAX)
        return -EINVAL;
    if (kq_uuid_from_string(dir, strlen(dir), &v->directory_id) != 0 ||
        kq_uuid_reserved_directory(&v->directory_id))
        return -EINVAL;
    v->id = (int32_t)id;
    v->port = (uint16_t)p;
    v->kraft_version_min = 0; /* what this build runs (Kafka 4.4's range) */
    v->kraft_version_max = 1;
    snprintf(v->host, sizeof v->host, "%s", host);
    snprintf(v->listener, sizeof v->listener, "%s", listener);
    return 0;
}

int storage_tool_parse_voters(const char *arg, const char *listener, kq_bootstrap *b, char *err,
                              size_t errlen)
{
    b->voters.count = 0;
    const char *p = arg;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (b->voters.count == KQ_BOOTSTRAP_VOTERS_MAX) {
            snprintf(err, errlen, "--initial-controllers: more than %d voters",
                     KQ_BOOTSTRAP_VOTERS_MAX);
            return -EINVAL;
        }
        kq_voter *v = &b->voters.voters[b->voters.count];
        if (parse_one(p, len, v, listener) != 0) {
            snprintf(err, errlen, "--initial-controllers: '%.*s' is not "
                     "id@host:port:directory-id (a Uuid, not a reserved one)", (int)len, p);
            return -EINVAL;
        }
        if (kq_voter_set_find(&b->voters, v->id) >= 0) {
            snprintf(err, errlen, "--initial-controllers: voter %d listed twice", (int)v->id);
            return -EINVAL;
        }
        b->voters.count++;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}
