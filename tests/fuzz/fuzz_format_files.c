/* Fuzz target: the files of a formatted directory (issue 20): byte 0 even,
 * the rest is meta.properties (kq_meta_properties_parse); odd, the rest is
 * a bootstrap snapshot (kq_bootstrap_decode).
 * Properties: a refusal names its reason; an accepted meta.properties
 * renders to text that parses back to the same identity; an accepted
 * bootstrap snapshot re-encodes to one that decodes to the same kraft.version,
 * voters (first endpoint each) and timestamp. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "kq/bootstrap_snapshot.h"
#include "kq/meta_properties.h"

static void meta(const uint8_t *data, size_t size)
{
    kq_meta_properties m, back;
    char err[256] = "", text[KQ_META_PROPERTIES_BYTES_MAX];
    if (kq_meta_properties_parse((const char *)data, size, &m, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "a refusal names its reason");
        return;
    }
    int n = kq_meta_properties_render(&m, "date", text, sizeof text);
    FUZZ_CHECK(n > 0, "an accepted identity renders");
    FUZZ_CHECK(kq_meta_properties_parse(text, (size_t)n, &back, err, sizeof err) == 0,
               "the rendering parses");
    FUZZ_CHECK(memcmp(&m, &back, sizeof m) == 0, "the same identity back");
}

static void bootstrap(const uint8_t *data, size_t size)
{
    static kq_bootstrap b, back;
    char err[256] = "";
    int rc = kq_bootstrap_decode(data, size, &b, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -EBADMSG && strstr(err, "byte "), "a refusal names a byte");
        return;
    }
    kq_writer w;
    kq_writer_init(&w, 1u << 24);
    FUZZ_CHECK(kq_bootstrap_encode(&w, &b), "an accepted snapshot re-encodes");
    FUZZ_CHECK(kq_bootstrap_decode(w.data, w.len, &back, err, sizeof err) == 0,
               "the re-encoding decodes");
    FUZZ_CHECK(back.kraft_version == b.kraft_version && back.has_voters == b.has_voters &&
                   back.voters.count == b.voters.count && back.timestamp_ms == b.timestamp_ms,
               "same kraft.version, voter count and timestamp");
    FUZZ_CHECK(memcmp(back.voters.voters, b.voters.voters,
                      sizeof(b.voters.voters[0]) * (size_t)b.voters.count) == 0,
               "same voters");
    kq_writer_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_FILE_INPUT_BYTES_MAX)
        return 0;
    if (data[0] & 1)
        bootstrap(data + 1, size - 1);
    else
        meta(data + 1, size - 1);
    return 0;
}
