/* Seeded PRNG for the simulator (splitmix64 seeding xoshiro256**). Every
 * random choice of a run derives from one of these, so a seed replays a run. */
#ifndef SIM_PRNG_H
#define SIM_PRNG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_prng {
    uint64_t s[4];
} sim_prng;

void sim_prng_seed(sim_prng *p, uint64_t seed);
uint64_t sim_prng_next(sim_prng *p);
/* Uniform in [0, n); 0 when n == 0. */
uint64_t sim_prng_below(sim_prng *p, uint64_t n);
/* Uniform in [lo, hi] (lo <= hi). */
int64_t sim_prng_range(sim_prng *p, int64_t lo, int64_t hi);
/* True with probability per_million / 1e6. */
bool sim_prng_chance(sim_prng *p, uint32_t per_million);

#endif
