#!/usr/bin/env bash
# Configures (once) and builds the server into <repo>/build (or the directory
# given as $1; extra arguments go to cmake's configure step). The build is
# incremental, so running it when nothing changed is cheap.
#   scripts/build.sh                         -> build/raft-server
#   scripts/build.sh build-asan -DKQ_SANITIZE=ON
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-build}"
shift || true
case "$dir" in
    /*) ;;
    *) dir="$root/$dir" ;;
esac
jobs="${KQ_BUILD_JOBS:-2}"

if [[ ! -f "$dir/CMakeCache.txt" ]]; then
    cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >&2
elif [[ $# -gt 0 ]]; then
    cmake "$dir" "$@" >&2
fi
# KQ_BUILD_TARGET limits the build to one target (e.g. raft-server).
if [[ -n "${KQ_BUILD_TARGET:-}" ]]; then
    cmake --build "$dir" -j "$jobs" --target "$KQ_BUILD_TARGET" >&2
else
    cmake --build "$dir" -j "$jobs" >&2
fi
