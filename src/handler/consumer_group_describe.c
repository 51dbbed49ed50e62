/* ConsumerGroupDescribe (KIP-848): stub until the coordinator lands. */
#include "group_handlers.h"
#include "kq/wire_consumer_group_describe.h"

void handle_consumer_group_describe(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_consumer_group_describe_request body;
    if (wire_consumer_group_describe_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "ConsumerGroupDescribe");
        return;
    }
    wire_consumer_group_describe_response resp = {0};
    handler_begin_response(h, &req->header);
    wire_consumer_group_describe_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
