/* kraft.version 1 worlds (KIP-853, issue 20): every node's disk formatted
 * as Kafka's StorageTool (kq-storage format --initial-controllers) leaves
 * it: the log directory and its partition directory, the bootstrap
 * checkpoint 00000000000000000000-0000000000.checkpoint (KRaftVersion 1,
 * Voters: the first w->p.voters nodes with their directory ids and their
 * endpoints node<id>.sim:<9090+id> on listener CONTROLLER), then
 * meta.properties with the node's own directory id, drawn from the world's
 * PRNG. The executor then gets no static voters: it reads them from the
 * checkpoint (src/exec/exec_voters.c). The other nodes are formatted with
 * the same checkpoint and are not in it: observers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/log.h"
#include "kq/meta_properties.h"
#include "kq/snapshot_file.h"
#include "sim.h"

#define W_FORMAT_DATE "Sun Dec 06 00:00:00 UTC 2026"

static kq_uuid draw_dir(w_world *w)
{
    kq_uuid u;
    for (int b = 0; b < 16; b += 8) {
        uint64_t v = sim_prng_next(&w->rng) | 1; /* never all zero */
        memcpy(u.bytes + b, &v, 8);
    }
    return u;
}

static bool make_dirs(const kq_fs *fs)
{
    const char *dirs[2] = {SIM_LOG_DIR, SIM_LOG_DIR "/" KQ_LOG_PARTITION_DIR};
    const char *parents[2] = {"/", SIM_LOG_DIR};
    for (int i = 0; i < 2; i++) {
        int rc = fs->mkdir(fs->ctx, dirs[i]);
        if ((rc != 0 && rc != -EEXIST) || fs->fsync_dir(fs->ctx, parents[i]) != 0)
            return false;
    }
    return true;
}

/* Writes node idx's disk as the format tool does (its directory id in
 * n->dir), the checkpoint naming voters. */
static void format_disk(w_world *w, int idx, const kq_voter_set *voters)
{
    w_node *n = &w->nodes[idx];
    const kq_fs *fs = sim_fs_table(n->fs);
    char err[512] = "cannot create the directories";
    kq_bootstrap b = {.kraft_version = 1, .has_voters = true, .voters = *voters,
                      .timestamp_ms = 1600000000000};
    kq_writer wr;
    kq_writer_init(&wr, KQ_SNAPSHOT_BYTES_MAX);
    bool ok = make_dirs(fs) && kq_bootstrap_encode(&wr, &b) &&
              kq_snapshot_write_file(fs, SIM_LOG_DIR, (raft_snapshot_id){.end_offset = 0, .epoch = 0},
                                     wr.data, wr.len, err, sizeof err) == 0;
    kq_writer_free(&wr);
    kq_meta_properties m = {.node_id = n->id, .has_directory_id = true, .directory_id = n->dir};
    snprintf(m.cluster_id, sizeof m.cluster_id, "%s", w->cfg.cluster_id);
    if (!ok || kq_meta_properties_store(fs, SIM_LOG_DIR, &m, W_FORMAT_DATE, err, sizeof err) != 0)
        w_fail(w, "harness: cannot format node %d's disk: %s", n->id, err);
}

void w_format_world(w_world *w)
{
    w->kraft1 = true;
    memset(&w->boot_voters, 0, sizeof w->boot_voters);
    for (int i = 0; i < w->n; i++)
        w->nodes[i].dir = draw_dir(w);
    for (int i = 0; i < w->p.voters; i++) {
        kq_voter *v = &w->boot_voters.voters[w->boot_voters.count++];
        *v = (kq_voter){.id = w->nodes[i].id, .directory_id = w->nodes[i].dir,
                        .port = (uint16_t)(9090 + w->nodes[i].id), .kraft_version_min = 0,
                        .kraft_version_max = 1};
        snprintf(v->listener, sizeof v->listener, "CONTROLLER");
        snprintf(v->host, sizeof v->host, "node%d.sim", w->nodes[i].id);
    }
    w->cfg.voter_count = 0; /* from the checkpoint */
    for (int i = 0; i < w->n && !w->failed; i++)
        format_disk(w, i, &w->boot_voters);
}

/* Kafka's operator formats a replacement disk with --no-initial-controllers
 * and lets it find the quorum through controller.quorum.bootstrap.servers;
 * this server has no bootstrap servers, so the new disk's checkpoint names
 * the set in force now (the node is in it only with its old directory, if
 * at all: an observer), from which it fetches as any observer does. */
void w_format_node(w_world *w, int idx, const kq_voter_set *voters)
{
    w->nodes[idx].dir = draw_dir(w);
    format_disk(w, idx, voters ? voters : &w->boot_voters);
}
