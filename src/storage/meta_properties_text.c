/* meta.properties text: a pure parser and Kafka's rendering of it
 * (kq/meta_properties.h). Java's Properties.load is wider (escapes, line
 * continuations, whitespace separators); a file Kafka wrote never needs
 * them for these keys, so a backslash is refused rather than misread. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kq/meta_properties.h"

enum { HAVE_VERSION = 1, HAVE_NODE = 2, HAVE_CLUSTER = 4 };

static int fail(char *err, size_t errlen, const char *key, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s", key, why);
    return -EINVAL;
}

static bool parse_int32(const char *v, size_t len, int32_t *out)
{
    if (len == 0 || len > 10)
        return false;
    long long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return false;
        x = x * 10 + (v[i] - '0');
    }
    if (x > INT32_MAX)
        return false;
    *out = (int32_t)x;
    return true;
}

static size_t trim_end(const char *s, size_t len)
{
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    return len;
}

static int take(const char *key, size_t klen, const char *v, size_t vlen, kq_meta_properties *m,
                unsigned *have, char *err, size_t errlen)
{
#define IS(k) (klen == strlen(k) && memcmp(key, k, klen) == 0)
    if (IS("version")) {
        if (vlen != 1 || v[0] != '1')
            return fail(err, errlen, "version", "only version 1 (KRaft) is supported");
        *have |= HAVE_VERSION;
    } else if (IS("node.id")) {
        if (!parse_int32(v, vlen, &m->node_id))
            return fail(err, errlen, "node.id", "not a non-negative base-10 int32");
        *have |= HAVE_NODE;
    } else if (IS("cluster.id")) {
        if (vlen == 0 || vlen > KQ_CLUSTER_ID_BYTES_MAX)
            return fail(err, errlen, "cluster.id", "empty or longer than 63 bytes");
        memcpy(m->cluster_id, v, vlen);
        m->cluster_id[vlen] = '\0';
        *have |= HAVE_CLUSTER;
    } else if (IS("directory.id")) {
        if (kq_uuid_from_string(v, vlen, &m->directory_id) != 0)
            return fail(err, errlen, "directory.id", "not a Uuid (22 base64url characters)");
        m->has_directory_id = true;
    }
#undef IS
    return 0;
}

int kq_meta_properties_parse(const char *text, size_t len, kq_meta_properties *out, char *err,
                             size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->node_id = -1;
    unsigned have = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t llen = nl ? (size_t)(nl - line) : len - pos;
        pos += llen + (nl ? 1 : 0);
        size_t s = 0;
        while (s < llen && (line[s] == ' ' || line[s] == '\t' || line[s] == '\f'))
            s++;
        if (s == llen || line[s] == '#' || line[s] == '!' || trim_end(line, llen) <= s)
            continue;
        if (memchr(line, '\\', llen) || memchr(line, '\0', llen))
            return fail(err, errlen, "line", "escapes and NUL bytes are not supported");
        size_t k = s;
        while (k < llen && line[k] != '=' && line[k] != ':')
            k++;
        if (k == llen)
            return fail(err, errlen, "line", "no '=' in a key line");
        size_t kend = trim_end(line, k), v = k + 1;
        while (v < llen && (line[v] == ' ' || line[v] == '\t'))
            v++;
        /* Java keeps a value's trailing blanks; only a CR (CRLF lines) goes. */
        size_t vend = llen > v && line[llen - 1] == '\r' ? llen - 1 : llen;
        int rc = take(line + s, kend - s, line + v, vend > v ? vend - v : 0, out, &have, err,
                      errlen);
        if (rc != 0)
            return rc;
    }
    if (!(have & HAVE_VERSION))
        return fail(err, errlen, "version", "missing (only version 1, KRaft, is supported)");
    if (!(have & HAVE_NODE))
        return fail(err, errlen, "node.id", "missing");
    if (!(have & HAVE_CLUSTER))
        return fail(err, errlen, "cluster.id", "missing");
    return 0;
}

int kq_meta_properties_render(const kq_meta_properties *m, const char *date, char *out,
                              size_t out_len)
{
    char dir[KQ_UUID_TEXT_BYTES + 32] = "";
    if (m->has_directory_id) {
        char id[KQ_UUID_TEXT_BYTES + 1];
        kq_uuid_to_string(&m->directory_id, id, sizeof id);
        snprintf(dir, sizeof dir, "directory.id=%s\n", id);
    }
    int n = snprintf(out, out_len, "#\n#%s\nnode.id=%d\n%sversion=1\ncluster.id=%s\n", date,
                     (int)m->node_id, dir, m->cluster_id);
    return (n < 0 || (size_t)n >= out_len) ? -ENOSPC : n;
}
