/* Fuzz target: request bodies by API and version, and whole request frames.
 * Input: byte 0 picks one of the advertised APIs (byte 0 mod (N + 1)); for
 * the first N, byte 1 picks a version in its advertised range and the rest is
 * the body. The last choice reads the rest as a frame body as the server
 * does: a request header (whose key and version must be accepted), then the
 * body. Every decoded body must re-encode stably (wire_roundtrip.h). */
#include "fuzz.h"
#include "kq/wire.h"
#include "wire_roundtrip.h"

static void frame(const uint8_t *data, size_t size)
{
    kq_reader r;
    wire_request_header h;
    kq_reader_init(&r, data, size);
    if (wire_request_header_decode(&r, &h) != 0)
        return;
    FUZZ_CHECK(r.pos <= size, "the header stays inside the frame");
    if (!wire_api_accepted(h.api_key, h.api_version))
        return;
    (void)fuzz_wire_roundtrip(h.api_key, h.api_version, false, data + r.pos, size - r.pos);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int n = fuzz_wire_api_count();
    if (data[0] % (n + 1) == n) {
        frame(data + 1, size - 1);
        return 0;
    }
    int16_t key, version;
    fuzz_wire_pick(data[0], data[1], &key, &version);
    (void)fuzz_wire_roundtrip(key, version, false, data + 2, size - 2);
    return 0;
}
