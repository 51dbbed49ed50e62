/* raft-server: one node of a Kafka-protocol Raft quorum. */
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "kq/auth.h"
#include "kq/config.h"
#include "kq/limits.h"
#include "kq/log_line.h"
#include "node.h"
#include "node_metrics.h"
#include "directory_arg.h"
#include "format_check.h"
#include "voter_check.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: raft-server [--help] [--version] <server.properties>\n"
            "       raft-server --config <server.properties> [--replica-directory-id ID]\n"
            "                   [--throughput RECORDS_PER_S] [--record-size BYTES]\n"
            "\n"
            "Runs one node of a Raft quorum that speaks the Kafka wire protocol and\n"
            "replicates the topic __cluster_metadata (partition 0; quorum.topic.name\n"
            "and quorum.topic.id pick another, as __raft_performance_test to run in\n"
            "one quorum with Kafka's kafka.tools.TestRaftServer).\n"
            "\n"
            "The properties file takes Kafka's keys (broker.id or node.id, listeners,\n"
            "controller.quorum.voters or quorum.voters, log.dirs, the quorum.* timeouts,\n"
            "listener.security.protocol.map with PLAINTEXT, SSL, SASL_PLAINTEXT and\n"
            "SASL_SSL, the ssl.* and sasl.* keys, ...) and a few of our own: every key,\n"
            "its default and its range are in docs/configuration.md.\n"
            "\n"
            "--throughput and --record-size (default 256) run the built-in workload of\n"
            "Kafka's TestRaftServer: the leader appends that many records per second\n"
            "itself and logs throughput and append-to-commit latency every 5 s.\n"
            "\n"
            "--replica-directory-id (TestRaftServer's flag) is this node's log directory\n"
            "id (KIP-853), a Uuid as kafka-storage.sh random-uuid prints it. It must be\n"
            "the directory's own (meta.properties' directory.id, or the one an\n"
            "unformatted directory kept); a directory without one takes it and keeps\n"
            "it. Without the flag such a directory draws a random id.\n"
            "\n"
            "Exit status: 0 after a clean shutdown (SIGTERM/SIGINT), 1 on a runtime\n"
            "failure (corrupt log, fsync error, port in use), 2 on a bad command line\n"
            "or configuration file.\n");
}

static void on_signal(uv_signal_t *s, int signum)
{
    (void)signum;
    node_request_shutdown(s->data);
}

typedef struct cli {
    const char *path;
    kq_uuid directory_id; /* --replica-directory-id; zero: not given */
    long throughput; /* records/s; 0: no workload */
    long record_bytes;
} cli;

/* A positive number within max, or -1. */
static long cli_number(const char *opt, const char *v, long max)
{
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : -1;
    if (!v || *v == '\0' || *end != '\0' || n < 1 || n > max) {
        fprintf(stderr, "raft-server: %s needs a number from 1 to %ld\n", opt, max);
        return -1;
    }
    return n;
}

/* 0: run; 1: done (help, version); 2: bad command line. */
static int cli_parse(int argc, char **argv, cli *c)
{
    *c = (cli){.record_bytes = 256}; /* TestRaftServer's default record size */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            printf("raft-server %s\n", KQ_VERSION);
            return 1;
        }
        if (strcmp(a, "--throughput") == 0 || strcmp(a, "--record-size") == 0) {
            bool t = a[2] == 't';
            long n = cli_number(a, i + 1 < argc ? argv[i + 1] : NULL,
                                t ? 10000000L : (long)EXEC_WORKLOAD_RECORD_BYTES_MAX);
            if (n < 0)
                return 2;
            *(t ? &c->throughput : &c->record_bytes) = n;
            i++;
            continue;
        }
        if (strcmp(a, "--replica-directory-id") == 0) {
            char err[256];
            if (i + 1 >= argc) {
                fprintf(stderr, "raft-server: --replica-directory-id needs a Uuid\n");
                return 2;
            }
            if (!directory_arg_parse(argv[++i], &c->directory_id, err, sizeof err)) {
                fprintf(stderr, "raft-server: %s\n", err);
                return 2;
            }
            continue;
        }
        if (strcmp(a, "--config") == 0 && i + 1 < argc)
            a = argv[++i]; /* TestRaftServer's spelling */
        else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "raft-server: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
        if (c->path) {
            fprintf(stderr, "raft-server: more than one properties file given\n");
            usage(stderr);
            return 2;
        }
        c->path = a;
    }
    if (!c->path) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* Response and read buffers of up to a follower's fetch answer come from
 * the heap and stay mapped when freed, instead of glibc mapping each one
 * fresh (mmap above its threshold) and unmapping it on free: with 64 KB
 * records that was 250,000 page faults in 6 s on the leader. What the heap
 * keeps is bounded by the trim threshold. */
static void tune_malloc(void)
{
    if (!mallopt(M_MMAP_THRESHOLD, (int)KQ_MALLOC_MMAP_THRESHOLD_BYTES) ||
        !mallopt(M_TRIM_THRESHOLD, (int)KQ_MALLOC_TRIM_THRESHOLD_BYTES))
        log_line("raft-server: mallopt refused; using glibc's default thresholds");
}

/* libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise,
 * read at its first use) runs the flush, the snapshot writes, peer address
 * lookups and the ListOffsets searches: room for all at once, so that no
 * number of searches delays an fsync (issue 19). An operator's larger
 * setting is kept. */
static void size_pool(void)
{
    const char *set = getenv("UV_THREADPOOL_SIZE");
    if (set && atoi(set) >= KQ_UV_THREADPOOL_THREADS_MIN)
        return;
    char n[16];
    snprintf(n, sizeof(n), "%d", KQ_UV_THREADPOOL_THREADS_MIN);
    setenv("UV_THREADPOOL_SIZE", n, 1);
}

int main(int argc, char **argv)
{
    cli args;
    int rc = cli_parse(argc, argv, &args);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    const char *path = args.path;
    static kq_config config;
    char err[1024];
    if (kq_config_load(path, &config, err, sizeof(err)) != 0) {
        fprintf(stderr, "raft-server: %s\n", err);
        return 2;
    }
    config.workload_records_per_s = (uint32_t)args.throughput;
    config.workload_record_bytes = (uint32_t)args.record_bytes;
    config.cli_directory_id = args.directory_id;
    if (!format_check(&config, err, sizeof(err)) || !voter_check(&config, err, sizeof(err)) ||
        !directory_arg_check(&config, err, sizeof(err))) {
        fprintf(stderr, "raft-server: %s\n", err);
        return 2;
    }
    kq_cred_store *creds = NULL;
    if (config.sasl_credentials_file[0] &&
        kq_cred_store_load(config.sasl_credentials_file, &creds, err, sizeof(err)) != 0) {
        fprintf(stderr, "raft-server: %s:%d: sasl.credentials.file: %s\n", path,
                config.sasl_credentials_line, err);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    tune_malloc();

    size_pool();
    uv_loop_t *loop = uv_default_loop();
    node_metrics_configure_loop(loop);
    node *n = node_start(loop, &config, creds, err, sizeof(err));
    if (!n) {
        log_line("raft-server: %s", err);
        return 1;
    }
    uv_signal_t sigterm, sigint;
    uv_signal_init(loop, &sigterm);
    uv_signal_init(loop, &sigint);
    sigterm.data = n;
    sigint.data = n;
    uv_signal_start(&sigterm, on_signal, SIGTERM);
    uv_signal_start(&sigint, on_signal, SIGINT);
    uv_run(loop, UV_RUN_DEFAULT);
    node_close(n);
    kq_cred_store_free(creds);
    fflush(stdout);
    log_line("raft-server: stopped");
    return 0;
}
