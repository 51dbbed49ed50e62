/* kq-wirediff: the table-driven codec (include/kq/wire_desc.h) behind a
 * line protocol, one request per line on stdin, answers on stdout:
 *   list                              "<api> <version> req|resp" per described
 *                                     message and version, then "end"
 *   random <api> <ver> req|resp <seed> hex of our encoding of wire_msg_random
 *   decode <api> <ver> req|resp <hex> the JSON of our decode (wire_msg_json),
 *                                     then the hex of our re-encode; a failed
 *                                     decode (or bytes left over) answers one
 *                                     line "error <why>" instead
 *   describe                          the descriptor tables (describe.c), "end"
 * Anything else answers "error <why>". `kq-wirediff --mutant newest-drops-field`
 * serves descriptions that lack a field in each message's newest version:
 * the differential test must fail on every message (scripts/wire-diff.sh). The Java harness
 * (tools/wirediff/WireDiff.java) drives it; scripts/wire-diff.sh runs both. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/buf.h"
#include "wirediff.h"

#define ARGS_MAX 6
/* Bounds one request's arena and our encoding (the harness's values are small). */
#define WIREDIFF_ARENA_BYTES_MAX (64u << 20)
#define WIREDIFF_OUT_BYTES_MAX (64u << 20)

typedef struct request {
    const wire_msg_desc *m;
    int16_t version;
    const char *last; /* seed or hex */
} request;

static void put_hex(const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        putchar(digits[p[i] >> 4]);
        putchar(digits[p[i] & 15]);
    }
    putchar('\n');
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Returns the byte count, or -1 for bad hex; *out is malloc'd. */
static long parse_hex(const char *s, uint8_t **out)
{
    size_t n = strlen(s);
    if (n % 2)
        return -1;
    uint8_t *p = malloc(n / 2 + 1);
    if (!p)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(p);
            return -1;
        }
        p[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = p;
    return (long)(n / 2);
}

static void cmd_list(void)
{
    int n = 0;
    const wire_msg_desc *const *all = wirediff_msgs(&n);
    for (int i = 0; i < n; i++)
        for (int v = all[i]->v_min; v <= all[i]->v_max; v++)
            printf("%d %d %s\n", all[i]->api_key, v, all[i]->response ? "resp" : "req");
    printf("end\n");
}

/* "<api> <ver> req|resp <last>": NULL and an error line when malformed. */
static const char *parse_request(char **argv, int argc, request *q)
{
    /* An empty body (ApiVersions v0-2, ListGroups v0-2 requests) is "" in hex. */
    bool empty_hex = argc == 4 && strcmp(argv[0], "decode") == 0;
    if (argc != 5 && !empty_hex)
        return "expected: <api> <version> req|resp <seed|hex>";
    char *end;
    long api = strtol(argv[1], &end, 10);
    if (*end || api < 0 || api > INT16_MAX)
        return "bad api key";
    long version = strtol(argv[2], &end, 10);
    if (*end || version < 0 || version > INT16_MAX)
        return "bad version";
    bool response = strcmp(argv[3], "resp") == 0;
    if (!response && strcmp(argv[3], "req") != 0)
        return "expected req or resp";
    q->m = wirediff_find((int16_t)api, response);
    if (!q->m)
        return "not described";
    q->version = (int16_t)version;
    if (q->version < q->m->v_min || q->version > q->m->v_max)
        return "version not described";
    q->last = empty_hex ? "" : argv[4];
    return NULL;
}

static void cmd_random(const request *q, kq_arena *arena)
{
    char *end;
    uint64_t seed = strtoull(q->last, &end, 10);
    if (*end) {
        printf("error bad seed\n");
        return;
    }
    void *msg = kq_arena_alloc(arena, q->m->body->size);
    kq_writer w;
    kq_writer_init(&w, WIREDIFF_OUT_BYTES_MAX);
    if (msg)
        wire_msg_random(q->m, q->version, seed, arena, msg);
    if (msg)
        wire_msg_encode(q->m, &w, q->version, msg);
    if (!msg || w.error)
        printf("error encode\n");
    else
        put_hex(w.data, w.len);
    kq_writer_free(&w);
}

static void cmd_decode(const request *q, kq_arena *arena)
{
    uint8_t *bytes = NULL;
    long n = parse_hex(q->last, &bytes);
    if (n < 0) {
        printf("error bad hex\n");
        return;
    }
    void *msg = kq_arena_alloc(arena, q->m->body->size);
    kq_reader r;
    kq_reader_init(&r, bytes, (size_t)n);
    kq_writer w;
    kq_writer_init(&w, WIREDIFF_OUT_BYTES_MAX);
    if (!msg || wire_msg_decode(q->m, &r, q->version, arena, msg) != 0) {
        printf("error decode failed at byte %zu of %ld\n", r.pos, n);
    } else if (kq_reader_remaining(&r) > 0) {
        printf("error decode left %zu of %ld bytes\n", kq_reader_remaining(&r), n);
    } else {
        wire_msg_json(q->m, q->version, msg, &w);
        printf("%.*s\n", w.error ? 0 : (int)w.len, w.data ? (const char *)w.data : "");
        kq_writer_reset(&w);
        wire_msg_encode(q->m, &w, q->version, msg);
        if (w.error)
            printf("error encode\n");
        else
            put_hex(w.data, w.len);
    }
    kq_writer_free(&w);
    free(bytes);
}

static int split(char *line, char **argv)
{
    int argc = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (argc == ARGS_MAX)
            return -1;
        argv[argc++] = tok;
    }
    return argc;
}

static void serve_line(char *line, kq_arena *arena)
{
    char *argv[ARGS_MAX];
    int argc = split(line, argv);
    if (argc <= 0) {
        printf("error %s\n", argc < 0 ? "too many words" : "empty line");
        return;
    }
    if (strcmp(argv[0], "list") == 0) {
        cmd_list();
    } else if (strcmp(argv[0], "describe") == 0) {
        wirediff_describe(stdout);
        printf("end\n");
    } else if (strcmp(argv[0], "random") == 0 || strcmp(argv[0], "decode") == 0) {
        request q;
        const char *why = parse_request(argv, argc, &q);
        if (why)
            printf("error %s\n", why);
        else if (argv[0][0] == 'r')
            cmd_random(&q, arena);
        else
            cmd_decode(&q, arena);
    } else {
        printf("error unknown command '%s'\n", argv[0]);
    }
}

int main(int argc, char **argv)
{
    const char *mutant = argc == 3 && strcmp(argv[1], "--mutant") == 0 ? argv[2] : NULL;
    if ((argc != 1 && !mutant) || wirediff_use_mutant(mutant) != 0) {
        fprintf(stderr, "usage: kq-wirediff [--mutant newest-drops-field] < requests\n");
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    kq_arena arena;
    kq_arena_init(&arena, WIREDIFF_ARENA_BYTES_MAX);
    while (getline(&line, &cap, stdin) >= 0) {
        serve_line(line, &arena);
        kq_arena_reset(&arena);
        fflush(stdout);
    }
    kq_arena_free(&arena);
    free(line);
    return 0;
}
