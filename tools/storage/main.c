/* kq-storage: Kafka's kafka-storage.sh for our log directory (KIP-853,
 * issue 20 item 1).
 *   kq-storage random-uuid
 *   kq-storage format --config F --cluster-id ID
 *       [--standalone | --initial-controllers id@host:port:dir-id,... |
 *        --no-initial-controllers] [--ignore-formatted]
 * format writes <log dir>/meta.properties (version 1, cluster.id, node.id,
 * directory.id) and, as Kafka 4.4's StorageTool, its bootstrap snapshot
 * (kq/bootstrap_snapshot.h): with --standalone or --initial-controllers at
 * kraft.version 1 with the voters, with --no-initial-controllers at 1
 * without voters (the node joins later), else at 0 (static voters). Exit 0,
 * 1 on a refusal (already formatted, I/O), 2 on bad arguments. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kq/config.h"
#include "kq/log.h"
#include "kq/meta_properties.h"
#include "kq/snapshot_file.h"
#include "storage_tool.h"

typedef struct args {
    const char *config, *cluster_id, *initial;
    bool standalone, no_initial, ignore_formatted;
} args;

static int usage(void)
{
    fprintf(stderr, "usage: kq-storage random-uuid\n"
                    "       kq-storage format --config F --cluster-id ID [--standalone |\n"
                    "           --initial-controllers id@host:port:dir-id,... |\n"
                    "           --no-initial-controllers] [--ignore-formatted]\n");
    return 2;
}

static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        bool val = i + 1 < argc;
        if ((!strcmp(o, "--config") || !strcmp(o, "-c")) && val)
            a->config = argv[++i];
        else if ((!strcmp(o, "--cluster-id") || !strcmp(o, "-t")) && val)
            a->cluster_id = argv[++i];
        else if ((!strcmp(o, "--initial-controllers") || !strcmp(o, "-I")) && val)
            a->initial = argv[++i];
        else if (!strcmp(o, "--standalone") || !strcmp(o, "-s"))
            a->standalone = true;
        else if (!strcmp(o, "--no-initial-controllers") || !strcmp(o, "-N"))
            a->no_initial = true;
        else if (!strcmp(o, "--ignore-formatted") || !strcmp(o, "-g"))
            a->ignore_formatted = true;
        else
            return usage();
    }
    if (!a->config || !a->cluster_id)
        return usage();
    if ((a->standalone ? 1 : 0) + (a->initial ? 1 : 0) + (a->no_initial ? 1 : 0) > 1) {
        fprintf(stderr, "kq-storage: --standalone, --initial-controllers and "
                        "--no-initial-controllers exclude each other\n");
        return 2;
    }
    size_t n = strlen(a->cluster_id);
    if (n == 0 || n > KQ_CLUSTER_ID_BYTES_MAX) {
        fprintf(stderr, "kq-storage: --cluster-id: 1 to %d bytes\n", KQ_CLUSTER_ID_BYTES_MAX);
        return 2;
    }
    return 0;
}

/* The node's controller listener: the first one named in
 * controller.listener.names, else the first listener. */
static const kq_config_listener *controller_listener(const kq_config *c)
{
    for (int i = 0; i < c->listener_count; i++)
        if (c->listeners[i].controller)
            return &c->listeners[i];
    return &c->listeners[0];
}

static int random_uuid(void)
{
    kq_uuid u;
    char s[KQ_UUID_TEXT_BYTES + 1];
    if (kq_uuid_random(&u) != 0)
        return 1;
    kq_uuid_to_string(&u, s, sizeof s);
    printf("%s\n", s);
    return 0;
}

/* The voter set and this node's directory id. */
static int plan(const args *a, const kq_config *c, kq_bootstrap *b, kq_uuid *dir_id)
{
    char err[512];
    const kq_config_listener *l = controller_listener(c);
    memset(b, 0, sizeof *b);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    b->timestamp_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (kq_uuid_random(dir_id) != 0)
        return 1;
    if (!a->no_initial && !a->standalone && !a->initial)
        return 0; /* static voters: a header-only checkpoint, kraft.version 0 */
    b->kraft_version = 1;
    b->has_voters = !a->no_initial; /* --no-initial-controllers: KRaftVersion 1 alone */
    if (a->no_initial)
        return 0;
    if (a->standalone) {
        kq_voter *v = &b->voters.voters[b->voters.count++];
        v->id = c->node_id;
        v->directory_id = *dir_id;
        v->kraft_version_min = 0; /* what this build runs (Kafka 4.4's range) */
        v->kraft_version_max = 1;
        v->port = l->advertised_port ? l->advertised_port : l->port;
        snprintf(v->listener, sizeof v->listener, "%s", l->name);
        snprintf(v->host, sizeof v->host, "%s",
                 l->advertised_host[0] ? l->advertised_host : l->host[0] ? l->host : "localhost");
        return 0;
    }
    if (storage_tool_parse_voters(a->initial, l->name, b, err, sizeof err) != 0) {
        fprintf(stderr, "kq-storage: %s\n", err);
        return 2;
    }
    for (int i = 0; i < b->voters.count; i++)
        if (b->voters.voters[i].id == c->node_id)
            *dir_id = b->voters.voters[i].directory_id;
    return 0;
}

/* mkdir of the log directory and its partition directory, each made
 * durable in its parent. 0 or -errno. */
static int make_dirs(const kq_fs *fs, const char *log_dir)
{
    char part[4200];
    snprintf(part, sizeof part, "%s/" KQ_LOG_PARTITION_DIR, log_dir);
    const char *dirs[2] = {log_dir, part};
    for (int i = 0; i < 2; i++) {
        int rc = fs->mkdir(fs->ctx, dirs[i]);
        if (rc != 0 && rc != -EEXIST)
            return rc;
        char parent[4200];
        snprintf(parent, sizeof parent, "%s", dirs[i]);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent)
            *slash = '\0';
        else
            snprintf(parent, sizeof parent, "%s", slash ? "/" : ".");
        if ((rc = fs->fsync_dir(fs->ctx, parent)) != 0)
            return rc;
    }
    return 0;
}

static int write_all(const kq_config *c, const args *a, const kq_bootstrap *b, kq_uuid dir_id)
{
    char err[1024], date[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%a %b %d %H:%M:%S %Z %Y", localtime_r(&now, &tm));
    kq_meta_properties m = {.node_id = c->node_id, .has_directory_id = true,
                            .directory_id = dir_id};
    snprintf(m.cluster_id, sizeof m.cluster_id, "%s", a->cluster_id);
    int rc = make_dirs(kq_fs_posix(), c->log_dir);
    if (rc != 0) {
        fprintf(stderr, "kq-storage: cannot create %s: %s\n", c->log_dir, strerror(-rc));
        return 1;
    }
    { /* as Kafka 4.4's StorageTool: always, with what the options say */
        kq_writer w;
        kq_writer_init(&w, KQ_SNAPSHOT_BYTES_MAX);
        bool ok = kq_bootstrap_encode(&w, b);
        rc = ok ? kq_snapshot_write_file(kq_fs_posix(), c->log_dir,
                                             (raft_snapshot_id){.end_offset = 0, .epoch = 0},
                                             w.data, w.len, err, sizeof err)
                    : -EINVAL;
        kq_writer_free(&w);
        if (rc != 0) {
            fprintf(stderr, "kq-storage: cannot write the bootstrap snapshot: %s\n",
                    ok ? err : "encoding failed");
            return 1;
        }
    }
    /* meta.properties last: a crash before it leaves an unformatted directory. */
    if (kq_meta_properties_store(kq_fs_posix(), c->log_dir, &m, date, err, sizeof err) != 0) {
        fprintf(stderr, "kq-storage: %s\n", err);
        return 1;
    }
    printf("Formatting %s %s.\n", b->has_voters ? "dynamic metadata voter directory"
                                                : "metadata directory", c->log_dir);
    return 0;
}

static int format(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    static kq_config c;
    char err[1024];
    if (kq_config_load(a.config, &c, err, sizeof err) != 0) {
        fprintf(stderr, "kq-storage: %s\n", err);
        return 2;
    }
    if ((a.standalone || a.initial) && c.voters_static) {
        /* As Kafka: a static quorum is not formatted as a dynamic one. */
        fprintf(stderr, "kq-storage: %s gives the voters statically (quorum.voters or "
                        "quorum.bootstrap.*): --standalone and --initial-controllers format a "
                        "dynamic quorum; remove the static voters, or format without them\n",
                a.config);
        return 2;
    }
    static kq_bootstrap b;
    kq_uuid dir_id;
    rc = plan(&a, &c, &b, &dir_id); /* argument errors before the directory */
    if (rc != 0)
        return rc;
    kq_meta_properties old;
    rc = kq_meta_properties_load(kq_fs_posix(), c.log_dir, &old, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "kq-storage: %s\n", err);
        return 1;
    }
    if (rc == 1) {
        if (a.ignore_formatted) {
            printf("All of the log directories are already formatted.\n");
            return 0;
        }
        fprintf(stderr, "Log directory %s is already formatted. Use --ignore-formatted to "
                        "ignore this directory and format the others.\n", c.log_dir);
        return 1;
    }
    return write_all(&c, &a, &b, dir_id);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "random-uuid"))
        return random_uuid();
    if (argc >= 2 && !strcmp(argv[1], "format"))
        return format(argc, argv);
    return usage();
}
