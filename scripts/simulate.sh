#!/bin/sh
# Builds raft-sim (if needed) and runs the deterministic whole-server simulator.
# Usage: scripts/simulate.sh --seeds N [--first-seed S] [--nodes V --observers O]
#                            [--scenario NAME] [--mutant NAME] [--expect-failure]
#                            [--only-invariant LIST] [--skip-invariant LIST]
#                            [--expect-invariant NAME] [--seed S] [--list-mutants] [-v]
# (see tests/sim/README.md)
# BUILD_DIR overrides the build directory (default: build-sim-release).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-sim-release}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target raft-sim >/dev/null
exec "$build/raft-sim" "$@"
