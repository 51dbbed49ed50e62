/* kq-load: the librdkafka producer instances (one per --connections, each
 * with its own broker connections), their configuration from the options,
 * and the delivery-report callback that feeds kl_stats. */
#ifndef KL_PRODUCERS_H
#define KL_PRODUCERS_H

#include <stdint.h>
#include <stdio.h>

#include <librdkafka/rdkafka.h>

#include "options.h"
#include "payload.h"
#include "stats.h"

struct kl_producers {
    int count;
    rd_kafka_t **rk;
    rd_kafka_topic_t **rkt;
    int32_t partition;
    struct kl_stats *stats;
    uint64_t dr_clock_ns;    /* delivery time of the reports being served */
    unsigned dr_clock_uses;
    int *event_fds;          /* per producer: readable when reports are queued */
    FILE *ack_log;           /* --ack-log, or NULL */
};

/* Returns 0, or -1 (reason printed on stderr; nothing left open). */
int kl_producers_open(struct kl_producers *p, const struct kl_options *o,
                      struct kl_stats *stats);

enum kl_send_result { KL_SENT = 0, KL_QUEUE_FULL = 1, KL_SEND_ERROR = -1 };

/* Produces the payload's current value and key on producer i, stamped with
 * sent_ns. KL_SEND_ERROR is printed on stderr. */
enum kl_send_result kl_producers_send(struct kl_producers *p, int i,
                                      const struct kl_payload *pl, uint64_t sent_ns);
/* Serves delivery reports of every producer; waits up to timeout_ms on
 * producer wait_on (or none when < 0). Returns the events served. */
int kl_producers_poll(struct kl_producers *p, int wait_on, int timeout_ms);
/* Sleeps up to timeout_ns, waking as soon as any producer has delivery
 * reports queued (so a paced run timestamps them on arrival, not at the
 * next send), then serves them. Returns the events served. */
int kl_producers_wait(struct kl_producers *p, uint64_t timeout_ns);
/* Records produced and not yet reported, over all producers. */
long kl_producers_in_flight(const struct kl_producers *p);
/* Fails everything not yet delivered (reported as failed). */
void kl_producers_purge(struct kl_producers *p);
void kl_producers_close(struct kl_producers *p);

#endif
