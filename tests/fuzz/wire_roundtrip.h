/* The wire fuzz targets' shared property: a body that decodes re-encodes
 * without error, the re-encoding decodes again consuming every byte, and
 * encoding that again gives the same bytes (decode . encode is stable). */
#ifndef KQ_FUZZ_WIRE_ROUNDTRIP_H
#define KQ_FUZZ_WIRE_ROUNDTRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes body as the request (or response) of api_key at version with the
 * wire decoders into an arena and checks the property above (aborting on a
 * violation). Returns true if the body decoded, false if it was refused or
 * the API has no codec. */
bool fuzz_wire_roundtrip(int16_t api_key, int16_t version, bool response, const uint8_t *body,
                         size_t len);

/* Picks an advertised (api_key, version) from two selector bytes. */
void fuzz_wire_pick(uint8_t api_sel, uint8_t version_sel, int16_t *api_key, int16_t *version);
/* How many APIs the table advertises. */
int fuzz_wire_api_count(void);

#endif
