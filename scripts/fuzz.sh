#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz for a while: builds it with clang
# and -DKQ_FUZZ=ON in build-fuzz (ASan + UBSan + coverage; installs clang
# with apt-get when missing and run as root), fuzzes from the committed seeds
# in tests/fuzz/corpus/TARGET/ plus the inputs found so far in
# .cache/fuzz/TARGET/ (new inputs go there, never into the committed
# corpus), and prints execs and coverage at the end. A crash leaves its input
# in .cache/fuzz/artifacts/TARGET/ and makes the script exit non-zero.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   scripts/fuzz.sh --list
#
# TARGET is a tests/fuzz/fuzz_<TARGET>.c (wire_request, wire_response,
# record_batch, log_open, quorum_state, config, sasl, handler_frame,
# http_request). Environment:
# KQ_FUZZ_BUILD_DIR (default build-fuzz), KQ_BUILD_JOBS (default 2).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

targets() {
    for f in tests/fuzz/fuzz_*.c; do
        n="$(basename "$f" .c)"
        echo "${n#fuzz_}"
    done
}

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ "${1:-}" == "--list" ]] && { targets; exit 0; }
[[ $# -ge 2 ]] || usage
target="$1"
seconds="$2"
shift 2
[[ -f "tests/fuzz/fuzz_$target.c" ]] || { echo "fuzz.sh: no target $target (try --list)" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+$ ]] || usage

if ! command -v clang > /dev/null; then
    if [[ "$(id -u)" -ne 0 ]]; then
        echo "fuzz.sh: clang missing; as root: apt-get install -y clang" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang >&2
fi

dir="${KQ_FUZZ_BUILD_DIR:-build-fuzz}"
if [[ ! -f "$dir/CMakeCache.txt" ]]; then
    CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKQ_FUZZ=ON >&2
fi
cmake --build "$dir" -j "${KQ_BUILD_JOBS:-2}" --target "fuzz_$target" >&2

cache=".cache/fuzz/$target"
artifacts=".cache/fuzz/artifacts/$target"
mkdir -p "$cache" "$artifacts"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

set +e
"$dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$@" "$cache" "tests/fuzz/corpus/$target" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
last="$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -n 1)"
cov="$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")"
ft="$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")"
corp="$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")"
echo "fuzz $target: ${seconds}s, ${execs:-?} execs, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} inputs (exit $rc)"
if ((rc != 0)); then
    echo "fuzz $target: finding(s) in $artifacts/:" >&2
    ls -1 "$artifacts" >&2
fi
exit "$rc"
