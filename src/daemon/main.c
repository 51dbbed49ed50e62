/* raft-server: one node of a Kafka-protocol Raft quorum. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "kq/auth.h"
#include "kq/config.h"
#include "kq/log_line.h"
#include "node.h"
#include "voter_check.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: raft-server [--help] [--version] <server.properties>\n"
            "\n"
            "Runs one node of a Raft quorum that speaks the Kafka wire protocol and\n"
            "replicates the topic __cluster_metadata (partition 0).\n"
            "\n"
            "Keys read from the properties file: broker.id (node.id), listeners,\n"
            "quorum.voters (controller.quorum.voters) or quorum.bootstrap.servers +\n"
            "quorum.bootstrap.voters, log.dirs, verbose, quorum.election.timeout.ms,\n"
            "quorum.fetch.timeout.ms, quorum.election.backoff.max.ms,\n"
            "quorum.request.timeout.ms, quorum.retry.backoff.ms, log.segment.bytes,\n"
            "socket.request.max.bytes, cluster.id, listener.security.protocol.map\n"
            "(PLAINTEXT, SSL), Kafka's ssl.* keys and their listener.name.<name>.ssl.*\n"
            "forms, controller.quorum.voter.principals (README, \"Security\").\n"
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

int main(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            printf("raft-server %s\n", KQ_VERSION);
            return 0;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "raft-server: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (path) {
            fprintf(stderr, "raft-server: more than one properties file given\n");
            usage(stderr);
            return 2;
        }
        path = argv[i];
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    static kq_config config;
    char err[1024];
    if (kq_config_load(path, &config, err, sizeof(err)) != 0) {
        fprintf(stderr, "raft-server: %s\n", err);
        return 2;
    }
    if (!voter_check(&config, err, sizeof(err))) {
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

    uv_loop_t *loop = uv_default_loop();
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
