/* See format_check.h. */
#include "format_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/meta_properties.h"
#include "kq/snapshot_file.h"
#include "voter_check.h"

/* 1 when meta.properties is there and agrees, 0 when absent, -1 refused.
 * A configuration without cluster.id takes the directory's (Kafka's
 * controllers have it from meta.properties alone). */
static int meta_check(kq_config *config, kq_meta_properties *m, char *err, size_t errlen)
{
    char why[512];
    int rc = kq_meta_properties_load(kq_fs_posix(), config->log_dir, m, why, sizeof why);
    if (rc <= 0) {
        if (rc < 0)
            snprintf(err, errlen, "refusing to start: %s", why);
        return rc < 0 ? -1 : 0;
    }
    if (m->node_id != config->node_id) {
        snprintf(err, errlen,
                 "refusing to start: %s/" KQ_META_PROPERTIES_NAME " has node.id %d but %s "
                 "configures node.id %d (this directory was formatted for another node)",
                 config->log_dir, (int)m->node_id, config->path, (int)config->node_id);
        return -1;
    }
    if (!config->cluster_id_given &&
        strlen(m->cluster_id) < sizeof config->cluster_id)
        snprintf(config->cluster_id, sizeof config->cluster_id, "%s", m->cluster_id);
    if (strcmp(m->cluster_id, config->cluster_id) != 0) {
        snprintf(err, errlen,
                 "refusing to start: %s/" KQ_META_PROPERTIES_NAME " has cluster.id %s but %s "
                 "configures cluster.id %s (this directory was formatted for another cluster)",
                 config->log_dir, m->cluster_id, config->path, config->cluster_id);
        return -1;
    }
    return 1;
}

/* This node's directory id in the bootstrap snapshot, if it is a voter
 * there, is the one of its meta.properties. */
static bool own_directory_agrees(const kq_config *c, const kq_bootstrap *b,
                                 const kq_meta_properties *m, bool have_meta, const char *path,
                                 char *err, size_t errlen)
{
    for (int i = 0; have_meta && m->has_directory_id && i < b->voters.count; i++)
        if (b->voters.voters[i].id == c->node_id &&
            memcmp(b->voters.voters[i].directory_id.bytes, m->directory_id.bytes, 16) != 0) {
            snprintf(err, errlen, "refusing to start: %s gives node %d another directory id "
                     "than %s/" KQ_META_PROPERTIES_NAME, path, (int)c->node_id, c->log_dir);
            return false;
        }
    return true;
}

/* The voters of the bootstrap snapshot against the configured ones (as
 * sets of ids) and this node's directory id against meta.properties. */
static bool voters_agree(const kq_config *c, const kq_bootstrap *b, const kq_meta_properties *m,
                         bool have_meta, const char *path, char *err, size_t errlen)
{
    bool same = b->voters.count == c->voter_count;
    for (int i = 0; same && i < c->voter_count; i++)
        same = kq_voter_set_find(&b->voters, c->voters[i].id) >= 0;
    if (!same) {
        int32_t ids[KQ_BOOTSTRAP_VOTERS_MAX], conf[KQ_CONFIG_VOTERS_MAX];
        for (int i = 0; i < b->voters.count; i++)
            ids[i] = b->voters.voters[i].id;
        for (int i = 0; i < c->voter_count; i++)
            conf[i] = c->voters[i].id;
        char a[512], k[512];
        voter_ids_render(a, sizeof a, ids, b->voters.count);
        voter_ids_render(k, sizeof k, conf, c->voter_count);
        snprintf(err, errlen, "refusing to start: %s names the voters {%s} but %s configures "
                 "the voters {%s}", path, a, c->path, k);
        return false;
    }
    return own_directory_agrees(c, b, m, have_meta, path, err, errlen);
}

/* kraft.version 1 (KIP-853): the voters live in the log. The node starts
 * with the checkpoint's voters (their endpoints) as its first peers; with
 * none there (--no-initial-controllers) it needs bootstrap servers to
 * find the leader. Static voters, if given, must be the same. */
static bool voters_from_log(kq_config *c, const kq_bootstrap *b, const kq_meta_properties *m,
                            bool have_meta, const char *path, char *err, size_t errlen)
{
    if (c->voters_static && (!b->has_voters || !voters_agree(c, b, m, have_meta, path, err,
                                                              errlen))) {
        if (!b->has_voters)
            snprintf(err, errlen, "refusing to start: %s is formatted without initial voters "
                     "(--no-initial-controllers) but %s names static voters (quorum.voters); "
                     "give controller.quorum.bootstrap.servers instead", path, c->path);
        return false;
    }
    if (!b->has_voters && c->bootstrap_server_count == 0) {
        snprintf(err, errlen, "refusing to start: %s is formatted without initial voters "
                 "(--no-initial-controllers): %s must name controller.quorum.bootstrap.servers "
                 "to find the leader", path, c->path);
        return false;
    }
    if (!own_directory_agrees(c, b, m, have_meta, path, err, errlen))
        return false;
    c->voter_count = 0;
    for (int i = 0; b->has_voters && i < b->voters.count; i++) {
        const kq_voter *v = &b->voters.voters[i];
        kq_config_endpoint *e = &c->voters[c->voter_count++];
        e->id = v->id;
        snprintf(e->host, sizeof e->host, "%s", v->host);
        e->port = v->port;
    }
    c->voters_from_log = true;
    return true;
}

/* Kafka's bootstrap snapshot, when present: recognised and checked; at
 * kraft.version 1 the voters come from it and the log from then on. */
static bool bootstrap_check(kq_config *c, const kq_meta_properties *m, bool have_meta,
                            char *err, size_t errlen)
{
    raft_snapshot_id id = {.end_offset = 0, .epoch = 0};
    char path[4200], why[512];
    kq_snapshot_path(path, sizeof path, c->log_dir, id, false);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = kq_snapshot_read_all(kq_fs_posix(), c->log_dir, id, &data, &len,
                                  KQ_SNAPSHOT_BYTES_MAX);
    if (rc == -ENOENT) {
        if (c->bootstrap_server_count == 0)
            return true;
        snprintf(err, errlen, "refusing to start: %s names controller.quorum.bootstrap.servers "
                 "without voters (KIP-853), which needs a log directory formatted at "
                 "kraft.version 1: bin/kafka-storage.sh format --config %s --cluster-id ID "
                 "(--standalone, --initial-controllers or --no-initial-controllers)", c->path,
                 c->path);
        return false;
    }
    static kq_bootstrap b;
    if (rc == 0)
        rc = kq_bootstrap_decode(data, len, &b, why, sizeof why);
    else
        snprintf(why, sizeof why, "cannot read it: %s", strerror(-rc));
    free(data);
    if (rc != 0) {
        snprintf(err, errlen, "refusing to start: %s: %s", path, why);
        return false;
    }
    if (b.kraft_version == 0)
        return true;
    return voters_from_log(c, &b, m, have_meta, path, err, errlen);
}

bool format_check(kq_config *config, char *err, size_t errlen)
{
    kq_meta_properties m;
    int rc = meta_check(config, &m, err, errlen);
    return rc >= 0 && bootstrap_check(config, &m, rc == 1, err, errlen);
}
