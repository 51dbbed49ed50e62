/* Fuzz target: kq_log_open (recovery) over crafted files in a fresh log
 * directory. Input: byte 0 holds flags, bytes 1-2 (big-endian) the length
 * of a side text, then the side text, then the segment bytes.
 *   bit 0  seal the CRC of every whole batch of the segment bytes first
 *   bit 1  write a side part as leader-epoch-checkpoint
 *   bit 2  split the segment bytes after their first batch into a second
 *          segment named by the offset after that batch
 *   bit 3  write a side part as the first segment's .index
 *   bit 4  write a side part as recovery-point-offset-checkpoint
 *   bit 5  seal the CRC of each 512-byte recovery-point slot first (the
 *          8 hex digits after " crc32c ", over the text before it)
 *   bit 6  open as a member of a multi-node quorum (kq_log_options.repair:
 *          corruption below the recovery point is cut, not refused)
 * The side text is cut at NUL bytes into parts for the files enabled, in
 * the order checkpoint, recovery point, index (the last one enabled takes
 * the rest). The segment bytes are 00000000000000000000.log. After an open
 * that succeeds, every batch is scanned and read back, the log is closed
 * and opened again: recovery must be idempotent (the second open succeeds
 * with the same offsets and epochs and truncates nothing). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "kq/log.h"
#include "kq/record.h"

#define SEGMENT_BYTES (1u << 20)
#define EPOCHS_MAX 64
#define ERR_BYTES 512
#define FIRST_SEGMENT "00000000000000000000"

#define BATCH_CRC_OFFSET 17
#define BATCH_ATTRIBUTES_OFFSET 21

typedef struct log_facts {
    int64_t start, end, flushed;
    int segments, epoch_count;
    raft_epoch_entry epochs[EPOCHS_MAX];
    int batches;
} log_facts;

static void seal_crcs(uint8_t *data, size_t len)
{
    size_t pos = 0;
    while (len - pos >= RECORD_BATCH_HEADER_BYTES) {
        record_batch_header h;
        if (record_batch_parse_header(data + pos, len - pos, &h) != RECORD_OK)
            return;
        size_t size = record_batch_size(&h);
        uint32_t crc = kq_crc32c(0, data + pos + BATCH_ATTRIBUTES_OFFSET,
                                 size - BATCH_ATTRIBUTES_OFFSET);
        for (int i = 0; i < 4; i++)
            data[pos + BATCH_CRC_OFFSET + i] = (uint8_t)(crc >> (24 - 8 * i));
        pos += size;
    }
}

static int count_batch(void *ctx, const uint8_t *batch, size_t len)
{
    log_facts *f = ctx;
    record_batch_header h;
    FUZZ_CHECK(record_batch_check(batch, len, &h) == RECORD_OK, "scanned batches pass CRC");
    FUZZ_CHECK(record_batch_size(&h) == len, "scan hands whole batches");
    f->batches++;
    return 0;
}

static void facts_of(kq_log *log, log_facts *f)
{
    memset(f, 0, sizeof *f);
    f->start = kq_log_start_offset(log);
    f->end = kq_log_end_offset(log);
    f->flushed = kq_log_flushed_offset(log);
    f->segments = kq_log_segment_count(log);
    f->epoch_count = kq_log_epochs(log, f->epochs, EPOCHS_MAX);
    FUZZ_CHECK(f->start <= f->end, "start <= end");
    FUZZ_CHECK(f->flushed == f->end, "everything is flushed after open");
    FUZZ_CHECK(kq_log_scan(log, f->start, count_batch, f) == 0, "a recovered log scans");
}

/* What a read returns: whole CRC-valid batches, contiguous from the batch
 * holding `from` (recovery checks no more than that: RecordsCount is the
 * appender's business). */
static void check_read(const uint8_t *data, size_t len, int64_t from)
{
    size_t pos = 0;
    int64_t next = -1;
    while (pos < len) {
        record_batch_header h;
        FUZZ_CHECK(record_batch_check(data + pos, len - pos, &h) == RECORD_OK,
                   "read batches are whole and pass CRC");
        FUZZ_CHECK(next < 0 ? h.base_offset <= from && record_batch_last_offset(&h) >= from
                            : h.base_offset == next,
                   "read batches hold the offset asked and are contiguous");
        next = record_batch_last_offset(&h) + 1;
        pos += record_batch_size(&h);
    }
}

static void read_back(kq_log *log, const log_facts *f)
{
    kq_writer w;
    kq_writer_init(&w, (size_t)RECORD_BATCH_BYTES_MAX + RECORD_BATCH_LOG_OVERHEAD);
    if (f->end > f->start) {
        ssize_t n = kq_log_read(log, f->start, f->end, SEGMENT_BYTES, &w);
        FUZZ_CHECK(n > 0 && (size_t)n == w.len, "the first batch reads back");
        check_read(w.data, w.len, f->start);
        kq_writer_reset(&w);
        n = kq_log_read(log, f->end - 1, f->end, 1, &w);
        FUZZ_CHECK(n > 0 && (size_t)n == w.len, "the last offset reads back");
        check_read(w.data, w.len, f->end - 1);
    }
    kq_writer_reset(&w);
    FUZZ_CHECK(kq_log_read(log, f->end, f->end + 1, SEGMENT_BYTES, &w) == 0,
               "nothing at the end offset");
    kq_writer_free(&w);
}

static kq_log *open_log(const char *dir, bool repair, char *err, size_t errlen)
{
    kq_log_options o = {.log_dir = dir, .segment_bytes = SEGMENT_BYTES, .repair = repair};
    return kq_log_open_with(&o, err, errlen);
}

static void check_reopen(const char *dir, bool repair, const log_facts *first)
{
    char err[ERR_BYTES];
    kq_log *log = open_log(dir, repair, err, sizeof err);
    if (!log)
        fprintf(stderr, "reopen refused: %s\n", err);
    FUZZ_CHECK(log != NULL, "a recovered log opens again");
    if (err[0])
        fprintf(stderr, "reopen note: %s\n", err);
    FUZZ_CHECK(err[0] == '\0', "the second open has nothing to recover");
    log_facts again;
    facts_of(log, &again);
    FUZZ_CHECK(again.start == first->start && again.end == first->end, "same offsets");
    FUZZ_CHECK(again.batches == first->batches, "same batches");
    FUZZ_CHECK(again.epoch_count == first->epoch_count, "same epoch count");
    for (int i = 0; i < first->epoch_count; i++)
        FUZZ_CHECK(again.epochs[i].epoch == first->epochs[i].epoch &&
                       again.epochs[i].start_offset == first->epochs[i].start_offset,
                   "same epochs");
    kq_log_close(log);
}

/* Writes the segment bytes, split after the first batch when asked. */
static int write_segments(const char *pdir, const uint8_t *seg, size_t len, bool split)
{
    record_batch_header h;
    if (!split || record_batch_parse_header(seg, len, &h) != RECORD_OK ||
        record_batch_last_offset(&h) < 0 || record_batch_last_offset(&h) == INT64_MAX)
        return fuzz_write_file(pdir, FIRST_SEGMENT ".log", seg, len);
    size_t first = record_batch_size(&h);
    char name[64];
    snprintf(name, sizeof name, "%020" PRId64 ".log", record_batch_last_offset(&h) + 1);
    if (fuzz_write_file(pdir, FIRST_SEGMENT ".log", seg, first) != 0)
        return -1;
    return fuzz_write_file(pdir, name, seg + first, len - first);
}

#define RP_SLOT_BYTES 512
#define RP_CRC_FIELD " crc32c "

/* Rewrites the CRC of every slot holding RP_CRC_FIELD and room after it. */
static void seal_rp_slots(uint8_t *rp, size_t len)
{
    size_t field = strlen(RP_CRC_FIELD);
    for (size_t at = 0; at < len; at += RP_SLOT_BYTES) {
        size_t n = len - at < RP_SLOT_BYTES ? len - at : RP_SLOT_BYTES;
        uint8_t *slot = rp + at;
        for (size_t i = 0; i + field + 8 <= n; i++) {
            if (memcmp(slot + i, RP_CRC_FIELD, field) != 0)
                continue;
            char hex[9];
            snprintf(hex, sizeof hex, "%08" PRIx32, kq_crc32c(0, slot, i));
            memcpy(slot + i + field, hex, 8);
            break;
        }
    }
}

/* The side text's parts, in the order checkpoint, recovery point, index. */
typedef struct side_parts {
    uint8_t *part[3];
    size_t len[3];
} side_parts;

static void split_side(uint8_t flags, uint8_t *side, size_t len, side_parts *p)
{
    static const uint8_t bits[3] = {2, 16, 8};
    int last = -1;
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 3; i++)
        if (flags & bits[i])
            last = i;
    size_t pos = 0;
    for (int i = 0; i <= last; i++) {
        if (!(flags & bits[i]))
            continue;
        uint8_t *nul = i == last ? NULL : memchr(side + pos, 0, len - pos);
        size_t end = nul ? (size_t)(nul - side) : len;
        p->part[i] = side + pos;
        p->len[i] = end - pos;
        pos = nul ? end + 1 : end;
    }
    if ((flags & 32) && p->part[1])
        seal_rp_slots(p->part[1], p->len[1]);
}

static int write_files(const char *pdir, uint8_t flags, uint8_t *side, size_t side_len,
                       const uint8_t *seg, size_t seg_len)
{
    static const char *names[3] = {"leader-epoch-checkpoint", KQ_LOG_RECOVERY_POINT_FILE,
                                   FIRST_SEGMENT ".index"};
    side_parts p;
    split_side(flags, side, side_len, &p);
    for (int i = 0; i < 3; i++)
        if (p.part[i] && fuzz_write_file(pdir, names[i], p.part[i], p.len[i]) != 0)
            return -1;
    return write_segments(pdir, seg, seg_len, (flags & 4) != 0);
}

static void run(const char *dir, uint8_t flags, uint8_t *side, size_t side_len,
                uint8_t *seg, size_t seg_len)
{
    char pdir[FUZZ_PATH_BYTES_MAX];
    snprintf(pdir, sizeof pdir, "%s/%s", dir, KQ_LOG_PARTITION_DIR);
    fuzz_clear_dir(dir);
    FUZZ_CHECK(mkdir(pdir, 0755) == 0, "mkdir the partition directory");
    if (flags & 1)
        seal_crcs(seg, seg_len);
    FUZZ_CHECK(write_files(pdir, flags, side, side_len, seg, seg_len) == 0, "write the files");
    char err[ERR_BYTES];
    bool repair = (flags & 64) != 0;
    kq_log *log = open_log(dir, repair, err, sizeof err);
    if (!log)
        return;
    int64_t former_end;
    int32_t last_epoch;
    if (kq_log_repair(log, &former_end, &last_epoch))
        FUZZ_CHECK(repair && former_end >= kq_log_end_offset(log),
                   "a repair is asked for and cuts below the former end");
    log_facts f;
    facts_of(log, &f);
    read_back(log, &f);
    kq_log_close(log);
    check_reopen(dir, repair, &f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > FUZZ_FILE_INPUT_BYTES_MAX)
        return 0;
    const char *dir = fuzz_scratch_dir();
    FUZZ_CHECK(dir != NULL, "a scratch directory");
    size_t side_len = ((size_t)data[1] << 8) | data[2];
    if (side_len > size - 3)
        side_len = size - 3;
    uint8_t *copy = malloc(size - 3 ? size - 3 : 1);
    FUZZ_CHECK(copy != NULL, "malloc");
    memcpy(copy, data + 3, size - 3);
    uint8_t *side = copy, *seg = copy + side_len;
    size_t seg_len = size - 3 - side_len;
    run(dir, data[0], side, side_len, seg, seg_len);
    free(copy);
    fuzz_clear_dir(dir);
    return 0;
}
