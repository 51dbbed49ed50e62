/* The streamed Fetch part of the executor (exec_stream.c). */
#ifndef KQ_EXEC_STREAM_H
#define KQ_EXEC_STREAM_H

#include "exec_state.h"

/* handler_services.reply_stream. */
void exec_reply_stream(kq_exec *x, void *slot, uint8_t *frame, size_t len,
                       const handler_stream_piece *pieces, uint32_t count);
#endif
