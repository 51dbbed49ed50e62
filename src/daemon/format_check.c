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

/* 1 when meta.properties is there and agrees, 0 when absent, -1 refused. */
static int meta_check(const kq_config *config, kq_meta_properties *m, char *err, size_t errlen)
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
    if (strcmp(m->cluster_id, config->cluster_id) != 0) {
        snprintf(err, errlen,
                 "refusing to start: %s/" KQ_META_PROPERTIES_NAME " has cluster.id %s but %s "
                 "configures cluster.id %s (this directory was formatted for another cluster)",
                 config->log_dir, m->cluster_id, config->path, config->cluster_id);
        return -1;
    }
    return 1;
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
    for (int i = 0; have_meta && m->has_directory_id && i < b->voters.count; i++)
        if (b->voters.voters[i].id == c->node_id &&
            memcmp(b->voters.voters[i].directory_id.bytes, m->directory_id.bytes, 16) != 0) {
            snprintf(err, errlen, "refusing to start: %s gives node %d another directory id "
                     "than %s/" KQ_META_PROPERTIES_NAME, path, (int)c->node_id, c->log_dir);
            return false;
        }
    return true;
}

/* Kafka's bootstrap snapshot, when present: recognised, checked, and (for
 * now) accepted only at kraft.version 0, or with the same voters given
 * statically (issue 20: voters from the log come with the next step). */
static bool bootstrap_check(const kq_config *c, const kq_meta_properties *m, bool have_meta,
                            char *err, size_t errlen)
{
    raft_snapshot_id id = {.end_offset = 0, .epoch = 0};
    char path[4200], why[512];
    kq_snapshot_path(path, sizeof path, c->log_dir, id, false);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = kq_snapshot_read_all(kq_fs_posix(), c->log_dir, id, &data, &len,
                                  KQ_SNAPSHOT_BYTES_MAX);
    if (rc == -ENOENT)
        return true;
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
    if (!b.has_voters || !c->voters_static) {
        snprintf(err, errlen, "refusing to start: %s is formatted at kraft.version 1 (the voters "
                 "live in the log, KIP-853)%s; that is not supported yet: give the same voters "
                 "in %s (quorum.voters)%s", path,
                 b.has_voters ? "" : " without initial voters (--no-initial-controllers)", c->path,
                 b.has_voters ? "" : " and format with --standalone or --initial-controllers");
        return false;
    }
    return voters_agree(c, &b, m, have_meta, path, err, errlen);
}

bool format_check(const kq_config *config, char *err, size_t errlen)
{
    kq_meta_properties m;
    int rc = meta_check(config, &m, err, errlen);
    return rc >= 0 && bootstrap_check(config, &m, rc == 1, err, errlen);
}
