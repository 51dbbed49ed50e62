/* Produce: the record shape Kafka's Raft reader accepts (issue 22 item 4).
 * A Kafka Raft node (TestRaftServer, a KRaft controller) reads every data
 * record with RecordsDecodingStrategy.readRecord and decodeDataRecord: a
 * timestamp delta other than 0, a key, headers, or a null or empty value
 * is an exception there, which stops that replica. When the replicated
 * partition is one Kafka's nodes may share with ours
 * (produce.raft.record.check), such records are refused with INVALID_RECORD
 * before they reach the log, so no client can stop a Kafka voter. */
#include "handler_internal.h"
#include "kq/record.h"

/* Kafka's refusals, in the words of its reader, as error_message (v8+). */
#define SHAPE_TIMESTAMP "a record's timestamp differs from its batch's first (a timestamp delta " \
                        "other than 0), which Kafka's Raft reader refuses"
#define SHAPE_KEY "a record has a key, which Kafka's Raft reader refuses"
#define SHAPE_HEADERS "a record has headers, which Kafka's Raft reader refuses"
#define SHAPE_VALUE "a record has no value or an empty one, which Kafka's Raft reader refuses"
#define SHAPE_UNREADABLE "a batch's records cannot be read"

/* NULL when every record of the batch has the shape, else why not. */
static const char *batch_shape(const uint8_t *batch, size_t len)
{
    record_iter it;
    const char *why = NULL;
    if (record_iter_open(&it, batch, len) != RECORD_OK) {
        record_iter_close(&it);
        return SHAPE_UNREADABLE;
    }
    record rec;
    while (!why && record_iter_next(&it, &rec)) {
        if (rec.timestamp != it.header.base_timestamp)
            why = SHAPE_TIMESTAMP;
        else if (rec.key.len >= 0)
            why = SHAPE_KEY;
        else if (rec.header_count != 0)
            why = SHAPE_HEADERS;
        else if (rec.value.len <= 0)
            why = SHAPE_VALUE;
    }
    if (!why && it.status != RECORD_OK)
        why = SHAPE_UNREADABLE;
    record_iter_close(&it);
    return why;
}

int16_t produce_check_raft_shape(const handler *h, const uint8_t *records, size_t len,
                                 const char **message)
{
    *message = NULL;
    if (!h->svc.raft_record_check)
        return KAFKA_NONE;
    size_t at = 0;
    while (at < len) {
        record_batch_header bh;
        if (record_batch_parse_header(records + at, len - at, &bh) != RECORD_OK) {
            *message = SHAPE_UNREADABLE; /* record_set_validate passed: cannot happen */
            break;
        }
        size_t size = record_batch_size(&bh);
        *message = batch_shape(records + at, size);
        if (*message)
            break;
        at += size;
    }
    return *message ? KAFKA_INVALID_RECORD : KAFKA_NONE;
}
