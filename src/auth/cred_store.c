/* The credential store: the credentials file read whole (bounded), parsed
 * line by line with "file:line: reason" errors, then sorted by name for
 * lookups and duplicate detection. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "auth_internal.h"

static int store_add(kq_cred_store *s, const auth_user *u)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        if (cap > AUTH_USERS_MAX)
            cap = AUTH_USERS_MAX;
        auth_user *n = realloc(s->users, cap * sizeof *n);
        if (!n)
            return -1;
        s->users = n;
        s->cap = cap;
    }
    s->users[s->count++] = *u;
    return 0;
}

static int name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

static int user_cmp(const void *a, const void *b)
{
    const auth_user *x = a, *y = b;
    return name_cmp(x->name, x->name_bytes, y->name, y->name_bytes);
}

/* One line (without its '\n'), numbered lineno. */
static int parse_line(kq_cred_store *s, const char *name, const char *line, size_t n, int lineno,
                      char *err, size_t err_bytes)
{
    char why[160];
    size_t i = 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    if (i == n || line[i] == '#')
        return 0;
    if (n > AUTH_CRED_LINE_BYTES_MAX) {
        snprintf(err, err_bytes, "%s:%d: line longer than %d bytes", name, lineno,
                 AUTH_CRED_LINE_BYTES_MAX);
        return -1;
    }
    if (memchr(line, '\0', n)) {
        snprintf(err, err_bytes, "%s:%d: NUL byte", name, lineno);
        return -1;
    }
    if (s->count == AUTH_USERS_MAX) {
        snprintf(err, err_bytes, "%s:%d: more than %d users", name, lineno, AUTH_USERS_MAX);
        return -1;
    }
    auth_user u;
    int rc = auth_cred_line_parse(line, n, &u, why, sizeof why);
    if (rc == 0) {
        u.line = lineno;
        rc = store_add(s, &u);
        if (rc != 0)
            snprintf(why, sizeof why, "out of memory");
    }
    OPENSSL_cleanse(&u, sizeof u);
    if (rc != 0)
        snprintf(err, err_bytes, "%s:%d: %s", name, lineno, why);
    return rc;
}

static int check_duplicates(const kq_cred_store *s, const char *name, char *err,
                            size_t err_bytes)
{
    for (size_t i = 1; i < s->count; i++) {
        const auth_user *a = &s->users[i - 1], *b = &s->users[i];
        if (user_cmp(a, b) != 0)
            continue;
        int first = a->line < b->line ? a->line : b->line;
        int again = a->line < b->line ? b->line : a->line;
        snprintf(err, err_bytes, "%s:%d: user '%s' already defined on line %d", name, again,
                 a->name, first);
        return -1;
    }
    return 0;
}

int kq_cred_store_parse(const char *name, const char *text, size_t text_bytes,
                        kq_cred_store **out, char *err, size_t err_bytes)
{
    *out = NULL;
    kq_cred_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_bytes, "%s: out of memory", name);
        return -1;
    }
    size_t pos = 0;
    int lineno = 0;
    while (pos < text_bytes) {
        const char *nl = memchr(text + pos, '\n', text_bytes - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : text_bytes - pos;
        if (parse_line(s, name, text + pos, n, ++lineno, err, err_bytes) != 0) {
            kq_cred_store_free(s);
            return -1;
        }
        pos += n + 1;
    }
    if (s->count > 1)
        qsort(s->users, s->count, sizeof *s->users, user_cmp);
    if (check_duplicates(s, name, err, err_bytes) != 0) {
        kq_cred_store_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* Reads at most AUTH_CRED_FILE_BYTES_MAX bytes; *len and a malloc'd buffer. */
static char *read_bounded(const char *path, size_t *len, char *err, size_t err_bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_bytes, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(AUTH_CRED_FILE_BYTES_MAX + 1);
    size_t n = buf ? fread(buf, 1, AUTH_CRED_FILE_BYTES_MAX + 1, f) : 0;
    bool failed = !buf || ferror(f);
    fclose(f);
    if (failed || n > AUTH_CRED_FILE_BYTES_MAX) {
        if (failed)
            snprintf(err, err_bytes, "%s: %s", path, buf ? "read error" : "out of memory");
        else
            snprintf(err, err_bytes, "%s: larger than %u bytes", path, AUTH_CRED_FILE_BYTES_MAX);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int kq_cred_store_load(const char *path, kq_cred_store **out, char *err, size_t err_bytes)
{
    size_t len = 0;
    *out = NULL;
    char *text = read_bounded(path, &len, err, err_bytes);
    if (!text)
        return -1;
    int rc = kq_cred_store_parse(path, text, len, out, err, err_bytes);
    OPENSSL_cleanse(text, len);
    free(text);
    return rc;
}

void kq_cred_store_free(kq_cred_store *store)
{
    if (!store)
        return;
    if (store->users)
        OPENSSL_cleanse(store->users, store->cap * sizeof *store->users);
    free(store->users);
    free(store);
}

size_t kq_cred_store_count(const kq_cred_store *store)
{
    return store ? store->count : 0;
}

const kq_scram_credential *kq_cred_store_find(const kq_cred_store *store, const char *user,
                                              size_t user_bytes, enum kq_scram_hash hash)
{
    if (!store || (hash != KQ_SCRAM_SHA_256 && hash != KQ_SCRAM_SHA_512))
        return NULL;
    size_t lo = 0, hi = store->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const auth_user *u = &store->users[mid];
        int c = name_cmp(user, user_bytes, u->name, u->name_bytes);
        if (c == 0)
            return u->cred[hash].present ? &u->cred[hash] : NULL;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}
