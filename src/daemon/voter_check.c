/* See voter_check.h. */
#include "voter_check.h"

#include <stdio.h>
#include <string.h>

#include "kq/log.h"
#include "kq/quorum_state_file.h"

static bool contains(const int32_t *ids, int n, int32_t id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

void voter_ids_render(char *out, size_t len, const int32_t *ids, int n)
{
    size_t pos = 0;
    out[0] = 0;
    for (int i = 0; i < n && pos < len; i++)
        pos += (size_t)snprintf(out + pos, len - pos, "%s%d", i ? "," : "", ids[i]);
}

bool voter_check(const kq_config *config, char *err, size_t errlen)
{
    raft_quorum_state qs;
    int32_t stored[KQ_CONFIG_VOTERS_MAX];
    int stored_n = KQ_CONFIG_VOTERS_MAX;
    char note[512];
    if (kq_quorum_state_load(config->log_dir, &qs, stored, &stored_n, note, sizeof(note)) != 0)
        return true; /* unreadable: the node refuses later with the reason */
    if (stored_n == 0 || config->voters_from_log)
        return true; /* a new log directory, or voters in the log (KIP-853) */
    int32_t conf[KQ_CONFIG_VOTERS_MAX];
    for (int i = 0; i < config->voter_count; i++)
        conf[i] = config->voters[i].id;
    bool same = stored_n == config->voter_count;
    for (int i = 0; same && i < stored_n; i++)
        same = contains(conf, config->voter_count, stored[i]);
    if (same)
        return true;
    char a[256], b[256];
    voter_ids_render(a, sizeof(a), conf, config->voter_count);
    voter_ids_render(b, sizeof(b), stored, stored_n);
    snprintf(err, errlen,
             "%s: configured voters {%s} differ from the voters {%s} recorded in "
             "%s/%s/quorum-state; refusing to start (changing the voter set needs a "
             "deliberate reset, see docs/deviations.md)",
             config->path, a, b, config->log_dir, KQ_LOG_PARTITION_DIR);
    return false;
}
