/* kq-load: the send-rate limiter. A token bucket refilled continuously at
 * rate_per_s, so that sends are spread evenly over time (token n becomes
 * due at start + n / rate); a negative rate means unlimited. */
#ifndef KL_PACER_H
#define KL_PACER_H

#include <stdint.h>

struct kl_pacer {
    double rate_per_s;  /* < 0: unlimited */
    uint64_t start_ns;
    uint64_t granted;   /* tokens taken since start */
};

void kl_pacer_start(struct kl_pacer *p, double rate_per_s, uint64_t now_ns);
/* How many records may be sent at now_ns (UINT64_MAX when unlimited). */
uint64_t kl_pacer_due(const struct kl_pacer *p, uint64_t now_ns);
void kl_pacer_take(struct kl_pacer *p, uint64_t count);
/* When the next token becomes due (now_ns when unlimited or already due). */
uint64_t kl_pacer_next_due_ns(const struct kl_pacer *p, uint64_t now_ns);

#endif
