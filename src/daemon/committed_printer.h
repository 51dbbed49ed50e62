/* verbose=true: prints each newly committed data record (offset, epoch,
 * value) on stdout, as the seed's test server did. */
#ifndef KQ_DAEMON_COMMITTED_PRINTER_H
#define KQ_DAEMON_COMMITTED_PRINTER_H

#include <stdint.h>

#include "kq/log.h"

typedef struct committed_printer {
    int32_t node_id;
    int64_t printed_up_to; /* every record below was printed */
} committed_printer;

void committed_printer_init(committed_printer *p, int32_t node_id);
/* Prints records in [printed_up_to, high_watermark). */
void committed_printer_advance(committed_printer *p, kq_log *log, int64_t high_watermark);
void committed_printer_truncated(committed_printer *p, int64_t end_offset);

#endif
