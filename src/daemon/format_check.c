/* See format_check.h. */
#include "format_check.h"

#include <stdio.h>
#include <string.h>

#include "kq/meta_properties.h"

bool format_check(const kq_config *config, char *err, size_t errlen)
{
    kq_meta_properties m;
    char why[512];
    int rc = kq_meta_properties_load(kq_fs_posix(), config->log_dir, &m, why, sizeof why);
    if (rc == 0)
        return true;
    if (rc < 0) {
        snprintf(err, errlen, "refusing to start: %s", why);
        return false;
    }
    if (m.node_id != config->node_id) {
        snprintf(err, errlen,
                 "refusing to start: %s/" KQ_META_PROPERTIES_NAME " has node.id %d but %s "
                 "configures node.id %d (this directory was formatted for another node)",
                 config->log_dir, (int)m.node_id, config->path, (int)config->node_id);
        return false;
    }
    if (strcmp(m.cluster_id, config->cluster_id) != 0) {
        snprintf(err, errlen,
                 "refusing to start: %s/" KQ_META_PROPERTIES_NAME " has cluster.id %s but %s "
                 "configures cluster.id %s (this directory was formatted for another cluster)",
                 config->log_dir, m.cluster_id, config->path, config->cluster_id);
        return false;
    }
    return true;
}
