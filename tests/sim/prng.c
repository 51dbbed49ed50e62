#include "prng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void sim_prng_seed(sim_prng *p, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        p->s[i] = splitmix64(&x);
}

uint64_t sim_prng_next(sim_prng *p)
{
    uint64_t *s = p->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sim_prng_below(sim_prng *p, uint64_t n)
{
    if (n == 0)
        return 0;
    /* Rejection sampling keeps it unbiased. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t v;
    do {
        v = sim_prng_next(p);
    } while (v >= limit);
    return v % n;
}

int64_t sim_prng_range(sim_prng *p, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int64_t)sim_prng_below(p, (uint64_t)(hi - lo) + 1);
}

bool sim_prng_chance(sim_prng *p, uint32_t per_million)
{
    return sim_prng_below(p, 1000000) < per_million;
}
