/* kq-scram-credential: prints the credentials-file line (src/auth/README.md)
 * for a user, from a password read from a file so that it never shows in
 * argv or the shell history. Exit status 0, or 2 on bad usage or input. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "kq/auth.h"

static int usage(void)
{
    fprintf(stderr, "usage: kq-scram-credential --user U --password-file F|- "
                    "[--mechanism SCRAM-SHA-256|SCRAM-SHA-512|both] [--iterations N]\n");
    return 2;
}

/* The file's content without one trailing "\n" or "\r\n"; -1 if it cannot
 * be read, is empty or longer than AUTH_PASSWORD_BYTES_MAX. */
static int read_password(const char *path, char *buf, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t n = fread(buf, 1, AUTH_PASSWORD_BYTES_MAX + 2, f);
    if (f != stdin)
        fclose(f);
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    if (n > 0 && buf[n - 1] == '\r')
        n--;
    if (n == 0 || n > AUTH_PASSWORD_BYTES_MAX) {
        fprintf(stderr, "%s: the password must be 1..%d bytes\n", path, AUTH_PASSWORD_BYTES_MAX);
        return -1;
    }
    *len = n;
    return 0;
}

typedef struct options {
    const char *user, *password_file;
    bool want[KQ_SCRAM_HASH_COUNT];
    unsigned long iterations;
} options;

/* "SCRAM-SHA-256", "SCRAM-SHA-512" or "both" into want[]. */
static int parse_mechanism(const char *arg, bool want[KQ_SCRAM_HASH_COUNT])
{
    bool both = strcmp(arg, "both") == 0;
    want[KQ_SCRAM_SHA_256] = both || strcmp(arg, "SCRAM-SHA-256") == 0;
    want[KQ_SCRAM_SHA_512] = both || strcmp(arg, "SCRAM-SHA-512") == 0;
    if (want[KQ_SCRAM_SHA_256] || want[KQ_SCRAM_SHA_512])
        return 0;
    fprintf(stderr, "--mechanism must be SCRAM-SHA-256, SCRAM-SHA-512 or both\n");
    return -1;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"user", required_argument, NULL, 'u'},       {"password-file", required_argument, NULL, 'p'},
        {"mechanism", required_argument, NULL, 'm'},  {"iterations", required_argument, NULL, 'i'},
        {NULL, 0, NULL, 0},
    };
    int c;
    char *end;
    *o = (options){NULL, NULL, {true, true}, AUTH_SCRAM_ITERATIONS_DEFAULT};
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'u':
            o->user = optarg;
            break;
        case 'p':
            o->password_file = optarg;
            break;
        case 'm':
            if (parse_mechanism(optarg, o->want) != 0)
                return -1;
            break;
        case 'i':
            o->iterations = strtoul(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end ||
                o->iterations < AUTH_SCRAM_ITERATIONS_MIN ||
                o->iterations > AUTH_SCRAM_ITERATIONS_MAX) {
                fprintf(stderr, "--iterations must be %d..%d\n", AUTH_SCRAM_ITERATIONS_MIN,
                        AUTH_SCRAM_ITERATIONS_MAX);
                return -1;
            }
            break;
        default:
            return -1;
        }
    }
    return optind == argc && o->user && o->password_file ? 0 : -1;
}

int main(int argc, char **argv)
{
    options o;
    char password[AUTH_PASSWORD_BYTES_MAX + 2];
    size_t plen = 0;
    kq_scram_credential creds[KQ_SCRAM_HASH_COUNT];
    char line[AUTH_CRED_LINE_BYTES_MAX];
    if (parse_options(argc, argv, &o) != 0)
        return usage();
    if (read_password(o.password_file, password, &plen) != 0)
        return 2;
    int rc = 0;
    for (int h = 0; h < KQ_SCRAM_HASH_COUNT && rc == 0; h++) {
        memset(&creds[h], 0, sizeof creds[h]);
        if (o.want[h])
            rc = kq_scram_credential_new((enum kq_scram_hash)h, (const uint8_t *)password, plen,
                                         (uint32_t)o.iterations, &creds[h]);
    }
    OPENSSL_cleanse(password, sizeof password);
    if (rc != 0 || kq_cred_line_format(o.user, creds, line, sizeof line) < 0) {
        fprintf(stderr, rc ? "cannot derive the credential\n"
                           : "the user name must be 1..%d bytes of printable ASCII without "
                             "blanks, not starting with '#'\n",
                AUTH_USERNAME_BYTES_MAX);
        return 2;
    }
    printf("%s\n", line);
    return 0;
}
