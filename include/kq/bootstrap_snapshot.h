/* Kafka's bootstrap snapshot (KIP-853), written by the format tool:
 * <log dir>/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint.
 * As Kafka's RecordsSnapshotWriter: one uncompressed control batch at
 * offset 0, epoch 0, holding SnapshotHeaderRecord (control type 3) and, at
 * kraft.version 1, KRaftVersionRecord (type 5) and, with initial
 * controllers, VotersRecord (type 6); then the SnapshotFooterRecord (type
 * 4) alone in a control batch at the next offset. Kafka 4.4 also puts a
 * data batch of FeatureLevelRecords (metadata.version, ...) between them;
 * ours does not (docs: notes of issue 20). */
#ifndef KQ_BOOTSTRAP_SNAPSHOT_H
#define KQ_BOOTSTRAP_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/limits.h"
#include "kq/voter_set.h"

#define KQ_BOOTSTRAP_VOTERS_MAX KQ_VOTER_SET_MAX

typedef struct kq_bootstrap {
    int16_t kraft_version; /* 0 or 1 */
    bool has_voters;       /* a VotersRecord (kraft.version 1 only) */
    /* Each voter with its controller listener and a kraft.version range
     * that holds 1 (the format tool writes 0..1, as Kafka 4.4). */
    kq_voter_set voters;
    int64_t timestamp_ms; /* batch timestamps and LastContainedLogTimestamp */
} kq_bootstrap;

/* Appends the whole file to out. False on a bad argument or writer error. */
bool kq_bootstrap_encode(kq_writer *out, const kq_bootstrap *b);

/* Checks and reads a whole file (ours or Kafka's, whose FeatureLevelRecords
 * batch is skipped). 0, or -EBADMSG with err naming the byte and reason. */
int kq_bootstrap_decode(const uint8_t *data, size_t len, kq_bootstrap *b, char *err,
                        size_t errlen);

#endif
