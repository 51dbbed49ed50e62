/* kq-load: token-bucket send pacing (see pacer.h). */
#include "pacer.h"

#include <math.h>

void kl_pacer_start(struct kl_pacer *p, double rate_per_s, uint64_t now_ns)
{
    p->rate_per_s = rate_per_s;
    p->start_ns = now_ns;
    p->granted = 0;
}

uint64_t kl_pacer_due(const struct kl_pacer *p, uint64_t now_ns)
{
    if (p->rate_per_s < 0)
        return UINT64_MAX;
    double elapsed_s = now_ns > p->start_ns ? (double)(now_ns - p->start_ns) / 1e9 : 0.0;
    /* Token 0 is due at start, token n at start + n / rate. */
    uint64_t tokens = (uint64_t)floor(elapsed_s * p->rate_per_s) + 1;
    return tokens > p->granted ? tokens - p->granted : 0;
}

void kl_pacer_take(struct kl_pacer *p, uint64_t count)
{
    p->granted += count;
}

uint64_t kl_pacer_next_due_ns(const struct kl_pacer *p, uint64_t now_ns)
{
    if (p->rate_per_s <= 0 || kl_pacer_due(p, now_ns) > 0)
        return now_ns;
    double at_s = (double)p->granted / p->rate_per_s;
    uint64_t at_ns = p->start_ns + (uint64_t)ceil(at_s * 1e9);
    return at_ns > now_ns ? at_ns : now_ns;
}
