/* Named fault schedules (w_scenarios.c). */
#ifndef SIM_W_SCENARIOS_H
#define SIM_W_SCENARIOS_H

#include "sim.h"

typedef struct w_scenario {
    const char *name;
    void (*run)(w_world *w);
} w_scenario;

extern const w_scenario w_scenarios[];
extern const int w_scenario_count;
const w_scenario *w_scenario_find(const char *name);
/* w_bitflip.c: flips a bit below node idx's recovery point and restarts it;
 * false if the cluster is rightly down after (the only voter refused). */
bool w_bitflip(w_world *w, int idx);

#endif
