/* A bit flip in a flushed batch below the recovery point of one replica
 * (issue 8): in the length field, in PartitionLeaderEpoch (outside the CRC),
 * in the CRC or in the records. A single voter must refuse to start; in a
 * quorum the replica cuts at the last good batch and refetches (repair); the
 * mutant recovery-truncates-corruption cuts silently (recovered-durable).
 * Half the flips in a quorum (once its log start advanced) hit a digit of its
 * log-start-offset-checkpoint instead (issue 19): it must start, repairing
 * the checkpoint from its snapshots, and lose nothing (every check holds
 * for it: it is not marked corrupted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log.h"
#include "kq/record.h"
#include "w_check_internal.h"
#include "w_scenarios.h"

typedef struct flip_target {
    char path[256];
    uint64_t pos, size; /* the last whole batch ending at or below the point */
    bool found;
} flip_target;

typedef struct flip_scan {
    w_world *w;
    int idx;
    int64_t rp;
    flip_target *t;
    flip_target ckpt; /* log-start-offset-checkpoint: pos, size of its offset */
} flip_scan;

#define CKPT_NAME "/log-start-offset-checkpoint"
#define CKPT_PREFIX "0\n1\n__cluster_metadata 0 "

/* Where the offset of the (durable) checkpoint lies. */
static void scan_checkpoint(flip_scan *s, const char *path)
{
    uint8_t *buf = NULL;
    size_t n = 0, pl = strlen(CKPT_PREFIX);
    if (sim_fs_read_durable_file(s->w->nodes[s->idx].fs, path, &buf, &n) != 0)
        return;
    if (n > pl + 1 && memcmp(buf, CKPT_PREFIX, pl) == 0) {
        snprintf(s->ckpt.path, sizeof(s->ckpt.path), "%s", path);
        s->ckpt.pos = pl;
        s->ckpt.size = n - pl - 1;
        s->ckpt.found = true;
    }
    free(buf);
}

static int scan_segment(void *arg, const sim_fs_file_info *info)
{
    flip_scan *s = arg;
    size_t len = strlen(info->path);
    size_t cl = strlen(CKPT_NAME);
    if (len > cl && strcmp(info->path + len - cl, CKPT_NAME) == 0) {
        scan_checkpoint(s, info->path);
        return 0;
    }
    if (len < 4 || strcmp(info->path + len - 4, ".log") != 0)
        return 0;
    uint8_t *buf = NULL;
    size_t n = 0;
    if (sim_fs_read_durable_file(s->w->nodes[s->idx].fs, info->path, &buf, &n) != 0)
        return 0;
    for (size_t pos = 0; pos < n;) {
        record_batch_header h;
        if (record_batch_check(buf + pos, n - pos, &h) != RECORD_OK)
            break;
        size_t size = record_batch_size(&h);
        if (record_batch_last_offset(&h) < s->rp) {
            snprintf(s->t->path, sizeof(s->t->path), "%s", info->path);
            s->t->pos = pos;
            s->t->size = size;
            s->t->found = true;
        }
        pos += size;
    }
    free(buf);
    return 0;
}

/* The byte to flip: 0 length, 1 PartitionLeaderEpoch, 2 CRC, 3 a record. */
static uint64_t flip_pos(w_world *w, const flip_target *t, int *field)
{
    *field = (int)sim_prng_below(&w->rng, 4);
    switch (*field) {
    case 0: return t->pos + 8 + sim_prng_below(&w->rng, 4);
    case 1: return t->pos + 12 + sim_prng_below(&w->rng, 4);
    case 2: return t->pos + 17 + sim_prng_below(&w->rng, 4);
    default: return t->pos + RECORD_BATCH_HEADER_BYTES +
                    sim_prng_below(&w->rng, t->size - RECORD_BATCH_HEADER_BYTES);
    }
}

/* Returns false when the cluster is legitimately down afterwards (a single
 * voter refused to start, as it must). */
bool w_bitflip(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    if (!n->running)
        return true;
    int64_t rp = kq_log_recovery_point(exec_log(n->x));
    w_node_crash(w, idx, W_CRASH_PROCESS_KILL);
    flip_target t = {.found = false};
    flip_scan s = {w, idx, rp, &t, {.found = false}};
    sim_fs_list(n->fs, scan_segment, &s);
    if (s.ckpt.found && w->p.voters > 1 && sim_prng_below(&w->rng, 2) == 0) {
        /* A low bit of one digit: another digit, or a byte that does not parse. */
        uint64_t pos = s.ckpt.pos + sim_prng_below(&w->rng, s.ckpt.size);
        unsigned bit = (unsigned)sim_prng_below(&w->rng, 4);
        w_trace(w, "=== node %d: bit %u flipped in the log start of %s (byte %llu)", idx + 1,
                bit, s.ckpt.path, (unsigned long long)pos);
        sim_fs_flip_durable_bit(n->fs, s.ckpt.path, pos, bit);
        w_node_start(w, idx); /* a refusal fails the restart after healing (liveness) */
        return true;
    }
    if (t.found) {
        int field;
        uint64_t pos = flip_pos(w, &t, &field);
        static const char *const names[] = {"length", "PartitionLeaderEpoch", "CRC", "record"};
        w_trace(w, "=== node %d: bit flip in the %s of the batch at %s:%llu (below the recovery "
                "point %lld)", idx + 1, names[field], t.path, (unsigned long long)t.pos,
                (long long)rp);
        sim_fs_flip_durable_bit(n->fs, t.path, pos, (unsigned)sim_prng_below(&w->rng, 8));
        n->disk_faulted = true;
        n->corrupted = true;
    }
    bool started = w_node_start(w, idx);
    if (!started && t.found && n->voter && w->p.voters == 1)
        return false; /* refused: right for the only copy */
    return true;
}
