/* Start-up check that the configured voters are the voters the quorum-state
 * file recorded (issue 8): an edited quorum.voters on some nodes would give
 * two majorities and possibly two leaders in one epoch. Changing voters is
 * a deliberate reset (docs/deviations.md), not a config edit. */
#ifndef KQ_DAEMON_VOTER_CHECK_H
#define KQ_DAEMON_VOTER_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/config.h"

/* True if the stored voters (none stored: any) equal the configured ones as
 * sets. False with err naming both sets and the file. */
bool voter_check(const kq_config *config, char *err, size_t errlen);

/* "1,2,3": the ids as a comma-separated list, cut at len. */
void voter_ids_render(char *out, size_t len, const int32_t *ids, int n);

#endif
