/* kq-wirediff (tools/wirediff): the C side of the differential test against
 * Kafka's own message classes (scripts/wire-diff.sh) and of the check of our
 * descriptions against Kafka's JSON definitions (scripts/wire-json-check.py).
 * It speaks a line protocol on stdin/stdout; see main.c. */
#ifndef KQ_TOOLS_WIREDIFF_H
#define KQ_TOOLS_WIREDIFF_H

#include <stdio.h>

#include "kq/wire_desc.h"

/* Serve the codec's own descriptions (name NULL) or the named mutant
 * (msgs.c); -1 for an unknown name. Call once before the others. */
int wirediff_use_mutant(const char *name);
/* The messages served, and one of them by API key and direction. */
const wire_msg_desc *const *wirediff_msgs(int *count);
const wire_msg_desc *wirediff_find(int16_t api_key, bool response);

/* One JSON line per described message: its versions and every struct's
 * fields with their attributes, nested structs inline. */
void wirediff_describe(FILE *out);
/* The name of a field kind ("I32", "STRING", ...). */
const char *wirediff_kind_name(int kind);

#endif
