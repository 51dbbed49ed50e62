/* kq-storage (Kafka's kafka-storage.sh): random-uuid and format. */
#ifndef KQ_STORAGE_TOOL_H
#define KQ_STORAGE_TOOL_H

#include <stddef.h>

#include "kq/bootstrap_snapshot.h"

/* Fills b->voters from --initial-controllers; listener names their endpoint.
 * 0, or -EINVAL with err set. */
int storage_tool_parse_voters(const char *arg, const char *listener, kq_bootstrap *b, char *err,
                              size_t errlen);

#endif
