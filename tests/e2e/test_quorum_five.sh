#!/usr/bin/env bash
# Five voters, 20000 records at 1000/s, two leader kills and a follower kill
# (see quorum_kill_cycle.sh).
VOTERS=5 RECORDS=${KQ_FIVE_RECORDS:-20000} RATE=1000 PORT_BASE=33100
source "$(dirname "${BASH_SOURCE[0]}")/quorum_kill_cycle.sh"
