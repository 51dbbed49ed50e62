/* Fault scenarios (after Kafka's RaftEventSimulationTest) and the random one.
 * Each ends by healing everything and checking convergence and liveness. */
#ifndef SIM_SCENARIOS_H
#define SIM_SCENARIOS_H

#include "sim.h"

typedef struct sim_scenario {
    const char *name;
    void (*run)(sim_world *w);
} sim_scenario;

extern const sim_scenario sim_scenarios[];
extern const int sim_scenario_count;
const sim_scenario *sim_scenario_find(const char *name);

#endif
