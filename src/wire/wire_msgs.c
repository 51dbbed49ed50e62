/* The descriptions of every API in include/kq/wire_apis.h made into
 * descriptor tables, with each API's four public functions
 * (wire_<api>_request_decode, ..._encode, wire_<api>_response_decode,
 * ..._encode), and the registry over them. Nothing here is per API. */
#include <stddef.h>

#include "kq/wire.h"
#include "kq/wire_apis.h"
#include "wire_apis_all.h"
#include "wire_desc_internal.h"
#include "wire_desc_gen.h" /* last: it turns the field lists into descriptors */

#define DESCRIBE_SHARED(N) WIRE_##N##_STRUCTS(WIRE_DESC, WIRE_DESC_INLINE)
WIRE_SHARED_STRUCTS(DESCRIBE_SHARED)

#define DESCRIBE_API(N, KEY, NAME, P, ADV_MIN, HANDLER)  \
    WIRE_##N##_STRUCTS(WIRE_DESC, WIRE_DESC_INLINE)      \
    WIRE_MSG(P##_request, N, false)                      \
    WIRE_MSG(P##_response, N, true)
WIRE_APIS(DESCRIBE_API)

#define MSG_REFS(N, KEY, NAME, P, ADV_MIN, HANDLER) &P##_request_msg, &P##_response_msg,
static const wire_msg_desc *const all_msgs[] = {WIRE_APIS(MSG_REFS)};

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

bool wire_msg_encodes(const wire_msg_desc *m, int16_t version)
{
    if (version >= m->v_min && version <= m->v_max)
        return true;
#define WIDER(N, RESPONSE, MIN, MAX)                                                  \
    if (m->api_key == WIRE_API_##N && m->response == (RESPONSE) && version >= (MIN) && \
        version <= (MAX))                                                             \
        return true;
    WIRE_ENCODE_WIDER(WIDER)
#undef WIDER
    return false;
}

/* Before main, so that no thread ever sees an image half filled. */
__attribute__((constructor)) static void wire_fill_all_defaults(void)
{
    for (size_t i = 0; i < sizeof all_msgs / sizeof all_msgs[0]; i++)
        wire_struct_fill_defaults(all_msgs[i]->body);
}
