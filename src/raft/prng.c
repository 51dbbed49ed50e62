/* Seeded PRNG (splitmix64): the core's only source of randomness, so a seed
 * replays the same elections. */
#include "raft_internal.h"

uint64_t raft_prng_next(raft *r)
{
    uint64_t z = (r->prng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t raft_prng_below(raft *r, uint32_t bound)
{
    if (bound == 0)
        return 0;
    return (uint32_t)(raft_prng_next(r) % bound);
}
