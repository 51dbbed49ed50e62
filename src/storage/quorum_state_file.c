/* The quorum-state file: Kafka's v0 JSON shape, replaced atomically. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/quorum_state_file.h"
#include "kq/uuid.h"
#include "storage_internal.h"

#define QSTATE_NAME "quorum-state"

typedef struct json {
    const char *p;
    const char *end;
    const char *err;
} json;

static void ws(json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool fail(json *j, const char *why)
{
    if (!j->err)
        j->err = why;
    return false;
}

static bool expect(json *j, char c)
{
    ws(j);
    if (j->p >= j->end || *j->p != c)
        return fail(j, c == '{' ? "expected an object" : "unexpected character");
    j->p++;
    return true;
}

static bool peek(json *j, char c)
{
    ws(j);
    return j->p < j->end && *j->p == c;
}

/* A string without escapes other than \" and \\ (enough for keys and the
 * cluster id); returns its bounds. */
static bool string(json *j, const char **s, size_t *len)
{
    if (!expect(j, '"'))
        return fail(j, "expected a string");
    const char *start = j->p;
    while (j->p < j->end && *j->p != '"') {
        if (*j->p == '\\') {
            if (j->end - j->p < 2)
                return fail(j, "unterminated string");
            j->p++;
        } else if ((unsigned char)*j->p < 0x20) {
            return fail(j, "control character in string");
        }
        j->p++;
    }
    if (j->p >= j->end)
        return fail(j, "unterminated string");
    *s = start;
    *len = (size_t)(j->p - start);
    j->p++;
    return true;
}

static bool integer(json *j, int64_t lo, int64_t hi, int64_t *out)
{
    ws(j);
    bool neg = j->p < j->end && *j->p == '-';
    if (neg)
        j->p++;
    if (j->p >= j->end || *j->p < '0' || *j->p > '9')
        return fail(j, "expected an integer");
    int64_t v = 0;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        if (v > (INT64_MAX - 9) / 10)
            return fail(j, "integer out of range");
        v = v * 10 + (*j->p++ - '0');
    }
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
        return fail(j, "expected an integer");
    v = neg ? -v : v;
    if (v < lo || v > hi)
        return fail(j, "integer out of range");
    *out = v;
    return true;
}

static bool key_is(const char *s, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(s, want, len) == 0;
}

/* A directory id: Kafka's 22-character Uuid text (issue 20 item 6). */
static bool uuid_value(json *j, kq_uuid *out)
{
    const char *s;
    size_t n;
    if (!string(j, &s, &n))
        return false;
    if (kq_uuid_from_string(s, n, out) != 0)
        return fail(j, "malformed directoryId");
    return true;
}

/* Skips any scalar (string, number, true/false/null). */
static bool skip_scalar(json *j)
{
    ws(j);
    if (peek(j, '"')) {
        const char *s;
        size_t n;
        return string(j, &s, &n);
    }
    const char *start = j->p;
    while (j->p < j->end && *j->p != ',' && *j->p != '}' && *j->p != ']' && *j->p != ' ' &&
           *j->p != '\n' && *j->p != '\r' && *j->p != '\t')
        j->p++;
    size_t n = (size_t)(j->p - start);
    if (n == 0)
        return fail(j, "expected a value");
    if (key_is(start, n, "true") || key_is(start, n, "false") || key_is(start, n, "null"))
        return true;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789-+.eE", start[i]))
            return fail(j, "unexpected value");
    return true;
}

static bool voters_array(json *j, int32_t *voters, int cap, int *count, kq_uuid *dirs)
{
    if (!expect(j, '['))
        return fail(j, "currentVoters is not an array");
    *count = 0;
    if (peek(j, ']')) {
        j->p++;
        return true;
    }
    for (;;) {
        if (!expect(j, '{'))
            return false;
        bool have = false;
        int64_t id = -1;
        kq_uuid dir = {0};
        if (!peek(j, '}')) {
            for (;;) {
                const char *k;
                size_t kl;
                if (!string(j, &k, &kl) || !expect(j, ':'))
                    return false;
                if (key_is(k, kl, "voterId")) {
                    if (!integer(j, 0, INT32_MAX, &id))
                        return false;
                    have = true;
                } else if (key_is(k, kl, "directoryId")) {
                    if (!uuid_value(j, &dir))
                        return false;
                } else if (!skip_scalar(j)) {
                    return false;
                }
                if (peek(j, ',')) {
                    j->p++;
                    continue;
                }
                break;
            }
        }
        if (!expect(j, '}'))
            return false;
        if (!have)
            return fail(j, "voter without voterId");
        if (*count >= cap)
            return fail(j, "too many voters");
        if (voters)
            voters[*count] = (int32_t)id;
        if (*count < RAFT_VOTERS_MAX)
            dirs[*count] = dir;
        (*count)++;
        if (peek(j, ',')) {
            j->p++;
            continue;
        }
        return expect(j, ']');
    }
}

static bool parse(json *j, raft_quorum_state *qs, int32_t *voters, int cap, int *count)
{
    bool have_epoch = false, have_leader = false, have_voted = false, have_version = false;
    int64_t v;
    *count = 0;
    if (!expect(j, '{'))
        return false;
    while (!peek(j, '}')) {
        const char *k;
        size_t kl;
        if (!string(j, &k, &kl) || !expect(j, ':'))
            return false;
        if (key_is(k, kl, "leaderEpoch")) {
            if (!integer(j, 0, INT32_MAX, &v))
                return false;
            qs->epoch = (int32_t)v;
            have_epoch = true;
        } else if (key_is(k, kl, "leaderId")) {
            if (!integer(j, -1, INT32_MAX, &v))
                return false;
            qs->leader_id = (int32_t)v;
            have_leader = true;
        } else if (key_is(k, kl, "votedId")) {
            if (!integer(j, -1, INT32_MAX, &v))
                return false;
            qs->voted_id = (int32_t)v;
            have_voted = true;
        } else if (key_is(k, kl, "data_version")) {
            if (!integer(j, 0, 1, &v))
                return fail(j, "unsupported data_version");
            have_version = true;
        } else if (key_is(k, kl, "currentVoters")) {
            if (!voters_array(j, voters, cap, count, qs->voter_directory_ids))
                return false;
        } else if (key_is(k, kl, "directoryId")) {
            if (!uuid_value(j, &qs->directory_id))
                return false;
        } else if (key_is(k, kl, "newDirectory")) {
            ws(j);
            const char *start = j->p;
            if (!skip_scalar(j))
                return false;
            qs->new_directory = key_is(start, (size_t)(j->p - start), "true");
        } else if (!skip_scalar(j)) {
            return false;
        }
        if (peek(j, ',')) {
            j->p++;
            if (peek(j, '}'))
                return fail(j, "trailing comma");
            continue;
        }
        if (!peek(j, '}'))
            return fail(j, "expected ',' or '}'");
    }
    j->p++;
    ws(j);
    if (j->p != j->end)
        return fail(j, "trailing data after the object");
    if (!have_epoch || !have_leader || !have_voted || !have_version)
        return fail(j, "missing leaderEpoch, leaderId, votedId or data_version");
    return true;
}

static int qstate_dir(const char *log_dir, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s/%s", log_dir, KQ_LOG_PARTITION_DIR);
    return (n < 0 || (size_t)n >= outlen - 32) ? -ENAMETOOLONG : 0;
}

/* Reads the whole file at fd into buf (cap QSTATE_FILE_MAX + 1) through the
 * fs; *len_out its length. 0 or -errno, -EINVAL if it is too large, with
 * errbuf filled. */
static int read_whole(const kq_fs *fs, int fd, const char *path, char *buf, size_t *len_out,
                      char *errbuf, size_t errlen)
{
    size_t len = 0;
    for (;;) {
        ssize_t n = fs->pread(fs->ctx, fd, buf + len, QSTATE_FILE_MAX + 1 - len, len);
        if (n < 0) {
            storage_errf(errbuf, errlen, "cannot read %s: %s", path, strerror((int)-n));
            return (int)n;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > QSTATE_FILE_MAX) {
            storage_errf(errbuf, errlen, "malformed %s: larger than %d bytes", path,
                         QSTATE_FILE_MAX);
            return -EINVAL;
        }
    }
    *len_out = len;
    return 0;
}

/* Reads path into a malloc'd buffer: 1 and *buf_out, 0 if the file is
 * missing, or -errno with errbuf filled. */
static int read_file(const kq_fs *fs, const char *path, char **buf_out, size_t *len_out,
                     char *errbuf, size_t errlen)
{
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd < 0) {
        if (fd == -ENOENT)
            return 0;
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    char *buf = malloc(QSTATE_FILE_MAX + 1);
    int rc = buf ? read_whole(fs, fd, path, buf, len_out, errbuf, errlen) : -ENOMEM;
    if (!buf)
        storage_errf(errbuf, errlen, "out of memory");
    fs->close(fs->ctx, fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *buf_out = buf;
    return 1;
}

int kq_quorum_state_load_fs(const kq_fs *fs, const char *log_dir, raft_quorum_state *out,
                            int32_t *voters, int *voter_count, char *errbuf, size_t errlen)
{
    if (!fs)
        fs = kq_fs_posix();
    char dir[STORAGE_PATH_MAX], path[STORAGE_PATH_MAX + 32];
    int cap = voters ? *voter_count : INT_MAX;
    *voter_count = 0;
    *out = (raft_quorum_state){.epoch = 0, .voted_id = -1, .leader_id = -1};
    if (qstate_dir(log_dir, dir, sizeof dir) < 0) {
        storage_errf(errbuf, errlen, "log directory path too long: %s", log_dir);
        return -ENAMETOOLONG;
    }
    snprintf(path, sizeof path, "%s/%s", dir, QSTATE_NAME);
    char *buf = NULL;
    size_t len = 0;
    int rc = read_file(fs, path, &buf, &len, errbuf, errlen);
    if (rc <= 0)
        return rc; /* a missing file is the initial state */
    json j = {.p = buf, .end = buf + len};
    raft_quorum_state qs = *out;
    int count = 0;
    rc = 0;
    if (!parse(&j, &qs, voters, cap, &count)) {
        storage_errf(errbuf, errlen, "malformed %s at byte %zu: %s", path,
                     (size_t)(j.p - buf), j.err ? j.err : "parse error");
        rc = -EINVAL;
    } else {
        *out = qs;
        *voter_count = count;
    }
    free(buf);
    return rc;
}

int kq_quorum_state_load(const char *log_dir, raft_quorum_state *out, int32_t *voters,
                         int *voter_count, char *errbuf, size_t errlen)
{
    return kq_quorum_state_load_fs(kq_fs_posix(), log_dir, out, voters, voter_count, errbuf,
                                   errlen);
}

int kq_quorum_state_store_fs(const kq_fs *fs, const char *log_dir, const raft_quorum_state *qs,
                             const int32_t *voters, int voter_count, char *errbuf,
                             size_t errlen)
{
    if (!fs)
        fs = kq_fs_posix();
    char dir[STORAGE_PATH_MAX];
    if (qstate_dir(log_dir, dir, sizeof dir) < 0) {
        storage_errf(errbuf, errlen, "log directory path too long: %s", log_dir);
        return -ENAMETOOLONG;
    }
    if (voter_count < 0 || voter_count > RAFT_VOTERS_MAX * 64) {
        storage_errf(errbuf, errlen, "bad voter count %d", voter_count);
        return -EINVAL;
    }
    int rc = storage_mkdirs(fs, dir);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot create %s: %s", dir, strerror(-rc));
        return rc;
    }
    char buf[256 + RAFT_VOTERS_MAX * 64 * 64];
    size_t len = (size_t)snprintf(buf, sizeof buf,
                                  "{\"clusterId\":\"\",\"leaderId\":%" PRId32
                                  ",\"leaderEpoch\":%" PRId32 ",\"votedId\":%" PRId32
                                  ",\"appliedOffset\":0,\"currentVoters\":[",
                                  qs->leader_id, qs->epoch, qs->voted_id);
    char text[KQ_UUID_TEXT_BYTES + 1];
    for (int i = 0; i < voter_count; i++) {
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s{\"voterId\":%" PRId32,
                                i ? "," : "", voters[i]);
        if (i < RAFT_VOTERS_MAX && !kq_uuid_is_zero(&qs->voter_directory_ids[i])) {
            kq_uuid_to_string(&qs->voter_directory_ids[i], text, sizeof text);
            len += (size_t)snprintf(buf + len, sizeof buf - len, ",\"directoryId\":\"%s\"",
                                    text);
        }
        len += (size_t)snprintf(buf + len, sizeof buf - len, "}");
    }
    len += (size_t)snprintf(buf + len, sizeof buf - len, "]");
    if (!kq_uuid_is_zero(&qs->directory_id)) {
        kq_uuid_to_string(&qs->directory_id, text, sizeof text);
        len += (size_t)snprintf(buf + len, sizeof buf - len, ",\"directoryId\":\"%s\"", text);
    }
    if (qs->new_directory)
        len += (size_t)snprintf(buf + len, sizeof buf - len, ",\"newDirectory\":true");
    len += (size_t)snprintf(buf + len, sizeof buf - len, ",\"data_version\":0}");
    return storage_atomic_write(fs, dir, QSTATE_NAME, buf, len, errbuf, errlen);
}

int kq_quorum_state_store(const char *log_dir, const raft_quorum_state *qs,
                          const int32_t *voters, int voter_count, char *errbuf, size_t errlen)
{
    return kq_quorum_state_store_fs(kq_fs_posix(), log_dir, qs, voters, voter_count, errbuf,
                                    errlen);
}
