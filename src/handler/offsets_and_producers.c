/* InitProducerId (idempotent producers; ids unique across the quorum).
 * ListOffsets is in list_offsets.c. */
#include <string.h>

#include "handler_internal.h"
#include "kq/assert.h"
#include "kq/record.h"
#include "kq/wire_init_producer_id.h"

void handle_init_producer_id(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_init_producer_id_request body;
    if (wire_init_producer_id_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed InitProducerId request");
        return;
    }
    wire_init_producer_id_response resp = {.producer_id = -1, .producer_epoch = -1};
    if (!handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "InitProducerId")) {
        resp.error_code = KAFKA_CLUSTER_AUTHORIZATION_FAILED; /* Kafka: IDEMPOTENT_WRITE */
    } else if (body.transactional_id.len >= 0) {
        /* No transaction coordinator here: transactions are not supported. */
        resp.error_code = KAFKA_INVALID_REQUEST;
    } else if (body.producer_id >= 0 && body.producer_epoch >= 0 &&
               body.producer_epoch < INT16_MAX - 1) {
        /* KIP-360: an idempotent producer bumping its epoch keeps its id. */
        resp.producer_id = body.producer_id;
        resp.producer_epoch = (int16_t)(body.producer_epoch + 1);
    } else {
        /* The executor reserves a new id durably: handler_producer_id_result. */
        h->decision->kind = HANDLER_PRODUCER_ID;
        h->init_pid_open = true;
        h->init_pid_slot = req->slot;
        h->init_pid_header = req->header;
        h->init_pid_header.client_id = (kq_slice){NULL, -1}; /* the frame goes away */
        return;
    }
    handler_begin_response(h, &req->header);
    wire_init_producer_id_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void handler_producer_id_result(handler *h, int16_t error, int64_t producer_id)
{
    KQ_ASSERT(h->init_pid_open);
    h->init_pid_open = false;
    wire_init_producer_id_response resp = {.error_code = error, .producer_id = -1,
                                           .producer_epoch = -1};
    if (error == KAFKA_NONE) {
        resp.producer_id = producer_id;
        resp.producer_epoch = 0;
    }
    handler_begin_response(h, &h->init_pid_header);
    wire_init_producer_id_response_encode(&h->out, h->init_pid_header.api_version, &resp);
    handler_finish_response(h, h->init_pid_slot);
}
