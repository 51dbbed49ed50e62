/* Produce: the attribute rules every batch of a client's records must meet
 * (issue 19). Only the server writes control records (offset commits,
 * leader changes, snapshot markers): a control batch in any position of a
 * partition's records refuses them all with INVALID_RECORD, as Kafka's
 * LogValidator.validateBatch does for every batch of a client append. A
 * transactional batch (issue 23) must carry a producer id; whether its
 * transaction holds the partition is the coordinator's check (produce.c). */
#include "handler_internal.h"
#include "kq/mutants.h"
#include "kq/record.h"

/* Kafka's text (LogValidator), sent as error_message from Produce v8 on. */
#define PRODUCE_CONTROL_MESSAGE "Clients are not allowed to write control records"
#define PRODUCE_TXN_MESSAGE "A transactional batch needs a producer id"
#define PRODUCE_RESERVED_MESSAGE "Record batch attributes set reserved bits"
#define PRODUCE_PID_MESSAGE "An idempotent produce must hold exactly one batch"

/* Bits above the control flag: 0x40 is the delete-horizon flag (KIP-534),
 * set only by a broker's log cleaner; the rest are unused. */
#define PRODUCE_RESERVED_ATTRIBUTES ((uint16_t)0xffc0u)

int16_t produce_check_batches(const handler *h, const record_set_summary *sum,
                              const record_batch_header *first, const char **message)
{
    uint16_t attributes = sum->attributes_any;
    if (h->svc.mutants & KQ_MUTANT_CONTROL_BATCH_FIRST_ONLY)
        attributes = (uint16_t)first->attributes; /* the bug: the first batch alone */
    *message = NULL;
    if (attributes & RECORD_ATTR_CONTROL)
        *message = PRODUCE_CONTROL_MESSAGE;
    else if ((attributes & RECORD_ATTR_TRANSACTIONAL) &&
             sum->producer_id_batches != sum->batch_count)
        *message = PRODUCE_TXN_MESSAGE; /* issue 23: only a transactional producer's */
    else if (attributes & PRODUCE_RESERVED_ATTRIBUTES)
        *message = PRODUCE_RESERVED_MESSAGE;
    else if (sum->producer_id_batches > 0 && sum->batch_count != 1)
        *message = PRODUCE_PID_MESSAGE;
    return *message ? KAFKA_INVALID_RECORD : KAFKA_NONE;
}
