#!/usr/bin/env bash
# Three voters, 30000 records at 2500/s, two leader kills and a follower kill
# (see quorum_kill_cycle.sh).
VOTERS=3 RECORDS=${KQ_THREE_RECORDS:-30000} RATE=2500 PORT_BASE=33800
source "$(dirname "${BASH_SOURCE[0]}")/quorum_kill_cycle.sh"
