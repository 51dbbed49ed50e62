/* ConsumerGroupHeartbeat (KIP-848): stub until the coordinator lands. */
#include "group_handlers.h"
#include "kq/wire_consumer_group_heartbeat.h"

void handle_consumer_group_heartbeat(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_consumer_group_heartbeat_request body;
    if (wire_consumer_group_heartbeat_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "ConsumerGroupHeartbeat");
        return;
    }
    wire_consumer_group_heartbeat_response resp = {.error_code = KAFKA_COORDINATOR_NOT_AVAILABLE,
                                                   .error_message = {NULL, -1},
                                                   .member_id = {NULL, -1}};
    handler_begin_response(h, &req->header);
    wire_consumer_group_heartbeat_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
