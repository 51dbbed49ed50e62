/* InitProducerId (idempotent producers; ids unique across the quorum; a
 * transactional id goes to the coordinator, txn_apis.c).
 * ListOffsets is in list_offsets.c. */
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "txn_handlers.h"
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
    if (body.transactional_id.len >= 0) {
        txns_init_producer_id(h, req, &body); /* the transaction coordinator */
        return;
    }
    wire_init_producer_id_response resp = {.producer_id = -1, .producer_epoch = -1};
    if (!handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "InitProducerId")) {
        resp.error_code = KAFKA_CLUSTER_AUTHORIZATION_FAILED; /* Kafka: IDEMPOTENT_WRITE */
    } else if (body.producer_id >= 0 && body.producer_epoch >= 0 &&
               body.producer_epoch < INT16_MAX - 1) {
        /* KIP-360: an idempotent producer bumping its epoch keeps its id. */
        resp.producer_id = body.producer_id;
        resp.producer_epoch = (int16_t)(body.producer_epoch + 1);
    } else {
        /* The executor reserves a new id durably and hands the request
         * back: init_producer_id_executed. */
        kq_request *pid = malloc(sizeof(*pid));
        if (!pid) {
            h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
            return;
        }
        *pid = (kq_request){.slot = req->slot, .api_key = req->header.api_key,
                            .api_version = v, .correlation_id = req->header.correlation_id,
                            .origin = KQ_REQUEST_FROM_INIT_PRODUCER_ID,
                            .action = KQ_REQUEST_PRODUCER_ID};
        handler_hand_over(h, pid, HANDLER_PRODUCER_ID);
        return;
    }
    handler_begin_response(h, &req->header);
    wire_init_producer_id_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void init_producer_id_executed(handler *h, kq_request *req)
{
    KQ_ASSERT(req->origin == KQ_REQUEST_FROM_INIT_PRODUCER_ID);
    wire_init_producer_id_response resp = {.error_code = req->result.error, .producer_id = -1,
                                           .producer_epoch = -1};
    if (req->result.error == KAFKA_NONE) {
        resp.producer_id = req->result.producer_id;
        resp.producer_epoch = 0;
    }
    wire_request_header hdr = {.api_key = req->api_key, .api_version = req->api_version,
                               .correlation_id = req->correlation_id};
    handler_begin_response(h, &hdr);
    wire_init_producer_id_response_encode(&h->out, req->api_version, &resp);
    handler_finish_response(h, req->slot);
    free(req);
}
