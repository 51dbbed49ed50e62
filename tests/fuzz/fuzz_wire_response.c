/* Fuzz target: response bodies by API and version, as a peer or a client of
 * ours would decode them. Input: byte 0 picks one of the advertised APIs
 * (byte 0 mod N) and whether a response header precedes the body (byte 0 /
 * N odd); byte 1 picks a version in the API's advertised range; the rest is
 * the (header and) body. Every decoded body must re-encode stably
 * (wire_roundtrip.h). */
#include "fuzz.h"
#include "kq/wire.h"
#include "wire_roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int n = fuzz_wire_api_count();
    bool with_header = (data[0] / n) % 2 == 1;
    int16_t key, version;
    fuzz_wire_pick(data[0], data[1], &key, &version);
    kq_reader r;
    kq_reader_init(&r, data + 2, size - 2);
    if (with_header) {
        int32_t correlation_id;
        if (wire_response_header_decode(&r, key, version, &correlation_id) != 0)
            return 0;
    }
    (void)fuzz_wire_roundtrip(key, version, true, data + 2 + r.pos, size - 2 - r.pos);
    return 0;
}
