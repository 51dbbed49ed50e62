/* The registry of described messages: every API's request and response
 * descriptions (WIRE_MSG in src/wire/<api>.c), for the differential test and
 * the API table. */
#include <stddef.h>

#include "kq/wire_desc.h"

/* Prefixes of the APIs described so far (wire_<api>_request_msg and
 * wire_<api>_response_msg). */
#define WIRE_DESCRIBED(X) X(wire_vote)

#define WIRE_MSG_EXTERN(P) extern const wire_msg_desc P##_request_msg, P##_response_msg;
WIRE_DESCRIBED(WIRE_MSG_EXTERN)

#define WIRE_MSG_REF(P) &P##_request_msg, &P##_response_msg,
static const wire_msg_desc *const all_msgs[] = {WIRE_DESCRIBED(WIRE_MSG_REF)};

const wire_msg_desc *const *wire_msg_all(int *count)
{
    *count = (int)(sizeof all_msgs / sizeof all_msgs[0]);
    return all_msgs;
}

const wire_msg_desc *wire_msg_find(int16_t api_key, bool response)
{
    for (size_t i = 0; i < sizeof all_msgs / sizeof all_msgs[0]; i++)
        if (all_msgs[i]->api_key == api_key && all_msgs[i]->response == response)
            return all_msgs[i];
    return NULL;
}
