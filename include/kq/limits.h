/* Limits that bound what a client or peer can make the server hold, with
 * their defaults, and the relations between them checked at compile time.
 * Figures a properties key can override are the defaults of that key. */
#ifndef KQ_LIMITS_H
#define KQ_LIMITS_H

#include <stdint.h>

/* socket.request.max.bytes default (Kafka's, 100 MiB): the largest request
 * frame a connection may send; a larger size prefix closes the connection. */
#define KQ_REQUEST_FRAME_BYTES_DEFAULT (100u << 20)

/* queued.max.request.bytes default: the server-wide budget of read buffers
 * for requests being received (every connection's buffer, whole frames
 * reserved up front). Past it, a connection that would need more buffer
 * stops reading until memory is freed. Kafka's default is -1 (unbounded);
 * ours is always bounded (README, "Deviations"). */
#define KQ_QUEUED_REQUEST_BYTES_DEFAULT (256u << 20)

/* connections.max.idle.ms default (Kafka's, 10 minutes): a connection with
 * no request being handled and no byte read or written for this long is
 * closed. */
#define KQ_CONNECTION_IDLE_MS_DEFAULT (10 * 60 * 1000)

/* Step in which a connection's read buffer grows while the size of the
 * frame being read is unknown or small (a known frame is reserved whole). */
#define KQ_NET_READ_CHUNK_BYTES (64u << 10)

/* Largest consumer Fetch response (Kafka's fetch.max.bytes default). */
#define KQ_FETCH_RESPONSE_BYTES_MAX (55u << 20)

/* Per connection: bytes of responses completed but not yet taken by the
 * kernel (waiting for an earlier response, or inside a uv_write) past which
 * the server stops reading that connection until they drain below it. A
 * connection's queue is therefore at most this plus the responses of the
 * requests already being handled (at most NET_SLOTS_PER_CONN of them). */
#define KQ_CONN_WRITE_QUEUE_BYTES_MAX (64u << 20)

_Static_assert(KQ_CONN_WRITE_QUEUE_BYTES_MAX >= KQ_FETCH_RESPONSE_BYTES_MAX,
               "a client that reads its responses is never paused by one maximal Fetch answer");
_Static_assert(KQ_QUEUED_REQUEST_BYTES_DEFAULT >= KQ_REQUEST_FRAME_BYTES_DEFAULT,
               "queued.max.request.bytes must admit one frame of socket.request.max.bytes "
               "(Kafka refuses a smaller positive value)");
_Static_assert(KQ_QUEUED_REQUEST_BYTES_DEFAULT >=
                   KQ_REQUEST_FRAME_BYTES_DEFAULT + 4 + KQ_NET_READ_CHUNK_BYTES,
               "by default a maximal frame (with its size prefix) fits beside another "
               "connection's read buffer");
_Static_assert(KQ_REQUEST_FRAME_BYTES_DEFAULT <= INT32_MAX,
               "frame sizes are int32 on the wire");
_Static_assert(KQ_NET_READ_CHUNK_BYTES <= KQ_REQUEST_FRAME_BYTES_DEFAULT,
               "a read step never exceeds the largest frame");

#endif
