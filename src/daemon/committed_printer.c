#include "committed_printer.h"
#include "kq/group_offset_codec.h"

#include <inttypes.h>
#include <stdio.h>

#include "kq/record.h"

typedef struct print_ctx {
    committed_printer *printer;
    int64_t high_watermark;
} print_ctx;

/* Leader changes and group offset commits; other control records are not
 * printed. */
static void print_control(const record_batch_header *h, const record *rec)
{
    int type = record_control_type(rec->key);
    if (type == RECORD_CONTROL_LEADER_CHANGE) {
        int32_t leader = -1;
        int32_t voters[16];
        int voter_count = 0;
        if (record_parse_leader_change(rec->value, &leader, voters, &voter_count, 16))
            printf("committed offset=%" PRId64 " epoch=%d leader-change leader=%d\n",
                   rec->offset, h->partition_leader_epoch, leader);
    } else if (type == KQ_CONTROL_OFFSET_COMMIT || type == KQ_CONTROL_OFFSET_EXPIRE) {
        static group_offset_value v; /* 4.6 KB; the printer runs on the loop only */
        if (!group_offset_read_value(rec->value, &v))
            printf("committed offset=%" PRId64 " epoch=%d %s group=%s topic=%s "
                   "partition=%d offset=%" PRId64 "\n", rec->offset, h->partition_leader_epoch,
                   type == KQ_CONTROL_OFFSET_COMMIT ? "offset-commit" : "offset-expire",
                   v.group_id, v.topic, v.entry.partition, v.entry.offset);
    }
}

static int print_batch(void *ctx, const uint8_t *batch, size_t len)
{
    print_ctx *pc = ctx;
    record_iter it;
    if (record_iter_open(&it, batch, len) != RECORD_OK)
        return 0;
    if (it.header.base_offset >= pc->high_watermark) {
        record_iter_close(&it);
        return 1;
    }
    bool control = record_batch_is_control(&it.header);
    record rec;
    while (record_iter_next(&it, &rec)) {
        if (rec.offset < pc->printer->printed_up_to || rec.offset >= pc->high_watermark)
            continue;
        if (control) {
            print_control(&it.header, &rec);
            continue;
        }
        if (rec.value.len < 0)
            printf("committed offset=%" PRId64 " epoch=%d value=null\n", rec.offset,
                   it.header.partition_leader_epoch);
        else
            printf("committed offset=%" PRId64 " epoch=%d value=%.*s\n", rec.offset,
                   it.header.partition_leader_epoch, (int)rec.value.len,
                   (const char *)rec.value.ptr);
    }
    record_iter_close(&it);
    return 0;
}

void committed_printer_init(committed_printer *p, int32_t node_id)
{
    p->node_id = node_id;
    p->printed_up_to = 0;
}

void committed_printer_advance(committed_printer *p, kq_log *log, int64_t high_watermark)
{
    if (high_watermark <= p->printed_up_to)
        return;
    print_ctx pc = {.printer = p, .high_watermark = high_watermark};
    kq_log_scan(log, p->printed_up_to, print_batch, &pc);
    p->printed_up_to = high_watermark;
    fflush(stdout);
}

void committed_printer_truncated(committed_printer *p, int64_t end_offset)
{
    if (p->printed_up_to > end_offset)
        p->printed_up_to = end_offset;
}
