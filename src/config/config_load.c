/* Loads a Kafka .properties file with inih. Lines are fed to inih through our
 * own reader so that we count lines ourselves (the line of every key is kept
 * for checks made after parsing), accept lines longer than inih's buffer and
 * keep ';' inside values (inih would take " ;" as an inline comment). Each
 * key is read as its entry in the key table says (config_keys.def). */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "config_load.h"
#include "kq/limits.h"

/* Stands in for a value handed to the handler through side_value. */
#define CFG_SIDE_MARK "\x01"

typedef struct cfg_reader_ctx {
    cfg_load load;
    FILE *fp;
    FILE *warn;
    int line;
    char *linebuf;    /* CFG_LINE_MAX + 1 bytes */
    char *side_value; /* value of the current line when it bypasses inih */
} cfg_reader_ctx;

/* Records the first error only: "<file>[:<line>]: [<key>: ]<reason>". */
void cfg_fail(cfg_load *c, int line, const char *key, const char *fmt,
                     ...)
{
    if (c->failed)
        return;
    c->failed = true;
    c->err_line = line > 0 ? line : 0;
    char reason[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (!c->err || !c->errlen)
        return;
    char where[64] = "";
    if (line > 0)
        snprintf(where, sizeof where, ":%d", line);
    if (key)
        snprintf(c->err, c->errlen, "%s%s: %s: %s", c->path, where, key, reason);
    else
        snprintf(c->err, c->errlen, "%s%s: %s", c->path, where, reason);
}

static void trim_copy(char *dst, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t' || *s == '\f')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\f'))
        n--;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* Returns one physical line to inih, rewritten so inih parses it the way a
 * properties file is meant: no indentation continuation, '!' comments, and
 * values that would not survive inih (too long, or holding ';') are passed
 * on the side. */
static char *cfg_reader(char *buf, int num, void *stream)
{
    cfg_reader_ctx *c = stream;
    size_t n = 0;
    bool any = false, too_long = false;
    int ch;
    while ((ch = getc(c->fp)) != EOF) {
        any = true;
        if (ch == '\n')
            break;
        if (n < CFG_LINE_MAX)
            c->linebuf[n++] = (char)ch;
        else
            too_long = true;
    }
    if (!any || num < 8)
        return NULL;
    c->line++;
    free(c->side_value);
    c->side_value = NULL;
    if (n && c->linebuf[n - 1] == '\r')
        n--;
    c->linebuf[n] = '\0';
    char *s = c->linebuf;
    while (*s == ' ' || *s == '\t' || *s == '\f')
        s++;
    n = strlen(s); /* also stops at a stray NUL byte */
    size_t cap = (size_t)num;
    if (too_long) {
        cfg_fail(&c->load, c->line, NULL, "line too long (max %d bytes)", CFG_LINE_MAX);
        strcpy(buf, "#\n");
        return buf;
    }
    if (n == 0 || s[0] == '#' || s[0] == '!' || s[0] == ';') {
        strcpy(buf, "#\n");
        return buf;
    }
    if (n + 2 <= cap && !strchr(s, ';')) {
        memcpy(buf, s, n);
        buf[n] = '\n';
        buf[n + 1] = '\0';
        return buf;
    }
    size_t kn = strcspn(s, "=:");
    if (s[kn] == '\0' || kn + sizeof CFG_SIDE_MARK + 2 > cap) {
        /* No separator: let inih report the malformed line. A key too long
         * for inih's buffer cannot be one we know either. */
        if (s[kn] != '\0') {
            char key[64];
            trim_copy(key, s, kn < 60 ? kn : 60);
            cfg_fail(&c->load, c->line, NULL, "key too long: \"%s...\"", key);
            strcpy(buf, "#\n");
            return buf;
        }
        size_t m = n + 2 <= cap ? n : cap - 2;
        memcpy(buf, s, m);
        buf[m] = '\n';
        buf[m + 1] = '\0';
        return buf;
    }
    const char *v = s + kn + 1;
    c->side_value = malloc(strlen(v) + 1);
    if (!c->side_value) {
        cfg_fail(&c->load, c->line, NULL, "out of memory");
        strcpy(buf, "#\n");
        return buf;
    }
    trim_copy(c->side_value, v, strlen(v));
    memcpy(buf, s, kn);
    memcpy(buf + kn, "=" CFG_SIDE_MARK "\n", sizeof CFG_SIDE_MARK + 2);
    return buf;
}

/* Records who set key id (unless a spelling of higher rank did). */
static bool cfg_note(cfg_load *c, int id, int alias, int line)
{
    const cfg_key_desc *k = &cfg_keys[id];
    int rank = cfg_key_rank(k, alias);
    if (rank < c->rank[id])
        return false;
    c->rank[id] = rank;
    c->line[id] = line;
    c->spelling[id] = cfg_key_spelling(k, alias);
    return true;
}

/* One key=value of a known key: 1, or 0 after cfg_fail. A simple key is
 * always checked; an outranked spelling does not set its value, and the
 * parse function of a complex key only runs for the one that wins. */
static int cfg_set_value(cfg_reader_ctx *r, int id, int alias, const char *name,
                         const char *listener, const char *value)
{
    cfg_load *c = &r->load;
    const cfg_key_desc *k = &cfg_keys[id];
    char why[512];
    int64_t x = 0;
    if (k->parse) {
        if (!listener[0] && !cfg_note(c, id, alias, r->line))
            return 1;
        cfg_set s = {.cfg = c->cfg, .load = c, .key = k, .key_id = id, .spelling = name,
                     .alias = alias, .listener = listener, .value = value, .line = r->line};
        if (k->parse(&s, why, sizeof why) == 0)
            return 1;
        cfg_fail(c, r->line, name, "%s", why);
        return 0;
    }
    if (cfg_key_check(k, alias, value, &x, why, sizeof why) != 0) {
        cfg_fail(c, r->line, name, "%s", why);
        return 0;
    }
    if (!cfg_note(c, id, alias, r->line))
        return 1;
    cfg_key_store(k, c->cfg, value, cfg_key_scaled(k, alias, x));
    if (k->has_line)
        memcpy((char *)c->cfg + k->line_at, &r->line, sizeof r->line);
    return 1;
}

static int cfg_handler(void *user, const char *section, const char *name, const char *value)
{
    cfg_reader_ctx *r = user;
    if (strcmp(value, CFG_SIDE_MARK) == 0 && r->side_value)
        value = r->side_value;
    int alias = 0;
    bool too_long = false;
    char listener[KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
    int id = -1;
    if (section[0] == '\0')
        id = cfg_key_find(name, &alias, listener, sizeof listener, &too_long);
    if (id < 0) {
        /* Other Kafka keys are accepted, with a warning (docs/configuration.md). */
        if (r->warn)
            fprintf(r->warn, "warning: %s:%d: %s is not used by this server\n",
                    r->load.path, r->line, name);
        return 1;
    }
    if (too_long) {
        cfg_fail(&r->load, r->line, name, "listener name too long (max %d bytes)",
                 KQ_CONFIG_LISTENER_NAME_BYTES_MAX - 1);
        return 0;
    }
    return cfg_set_value(r, id, alias, name, listener, value);
}

void cfg_load_free(cfg_load *c)
{
    for (int k = 0; k < CFG_KEY_COUNT; k++)
        free(c->raw[k]);
    for (int k = 0; k < c->sasl_override_count; k++)
        free(c->sasl_overrides[k].value);
}

/* Runs inih over the open file: 0, or -1 after cfg_fail. */
static int cfg_read(cfg_reader_ctx *r)
{
    cfg_load *c = &r->load;
    errno = 0;
    int bad = ini_parse_stream(cfg_reader, r, cfg_handler, r);
    if (ferror(r->fp)) {
        int e = errno;
        c->failed = false;
        cfg_fail(c, 0, NULL, "cannot read: %s", e ? strerror(e) : "I/O error");
        return -1;
    }
    if (bad > 0 && (!c->failed || bad < c->err_line)) {
        c->failed = false;
        cfg_fail(c, bad, NULL, "malformed line (expected key=value)");
    }
    if (bad < 0 && !c->failed)
        cfg_fail(c, 0, NULL, "cannot parse (error %d)", bad);
    return c->failed ? -1 : 0;
}

int kq_config_load_warn(const char *path, kq_config *out, char *err,
                        size_t errlen, FILE *warn)
{
    kq_config_defaults(out);
    if (err && errlen)
        err[0] = '\0';
    cfg_reader_ctx r;
    memset(&r, 0, sizeof r);
    r.load.path = path;
    r.load.cfg = out;
    r.load.err = err;
    r.load.errlen = errlen;
    r.load.node_id[0] = r.load.node_id[1] = -1;
    r.warn = warn;
    if (strlen(path) >= sizeof out->path) {
        cfg_fail(&r.load, 0, NULL, "path too long");
        return -1;
    }
    strcpy(out->path, path);
    r.fp = fopen(path, "r");
    if (!r.fp) {
        cfg_fail(&r.load, 0, NULL, "cannot open: %s", strerror(errno));
        return -1;
    }
    r.linebuf = malloc(CFG_LINE_MAX + 1);
    int rc = -1;
    if (!r.linebuf)
        cfg_fail(&r.load, 0, NULL, "out of memory");
    else if (cfg_read(&r) == 0)
        rc = cfg_resolve(&r.load);
    cfg_load_free(&r.load);
    free(r.side_value);
    free(r.linebuf);
    fclose(r.fp);
    return rc;
}

int kq_config_load(const char *path, kq_config *out, char *err, size_t errlen)
{
    return kq_config_load_warn(path, out, err, errlen, stderr);
}
