#!/usr/bin/env bash
# The differential test of our wire descriptions against Kafka's own message
# classes (issue 21 item 4; tools/wirediff/WireDiff.java says what it checks).
# Fetches kafka-clients 4.4.0 and its dependencies (scripts/fetch-kafka-tools.sh
# with KQ_KAFKA_TOOLS_VERSION=4.4.0, into the ignored .cache), compiles the
# harness into BUILD_DIR/wirediff-classes, proves that the check fails on
# kq-wirediff's mutant descriptions, then runs it on the real ones.
#   scripts/wire-diff.sh [BUILD_DIR] [harness options: --seeds N --api KEY ...]
# BUILD_DIR (default build) must hold kq-wirediff (scripts/build.sh builds it).
# KQ_WIRE_DIFF_SEEDS: seeds per message and direction (default 200).
# Without java, javac or the jars the test fails when CI=true, and is skipped
# (exit 77, CTest's skip code) otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
shift || true
case "$build" in
    /*) ;;
    *) build="$root/$build" ;;
esac
bin="$build/kq-wirediff"
seeds="${KQ_WIRE_DIFF_SEEDS:-200}"

unavailable() {
    if [[ "${CI:-}" == true ]]; then
        echo "wire-diff: FAIL: $* (required when CI=true)" >&2
        exit 1
    fi
    echo "############################################################" >&2
    echo "wire-diff: SKIPPED: $*" >&2
    echo "wire-diff: the differential test against Kafka's classes did NOT run" >&2
    echo "############################################################" >&2
    exit 77
}

[[ -x "$bin" ]] || { echo "wire-diff: FAIL: $bin not built (scripts/build.sh)" >&2; exit 1; }
for tool in java javac; do
    command -v "$tool" > /dev/null 2>&1 || unavailable "'$tool' not found (apt-get install -y default-jdk-headless maven)"
done
if ! lib="$(KQ_KAFKA_TOOLS_VERSION=4.4.0 "$root/scripts/fetch-kafka-tools.sh" 2> "$build/wire-diff-fetch.log")"; then
    tail -n 5 "$build/wire-diff-fetch.log" >&2
    unavailable "kafka-clients 4.4.0 could not be fetched (log: $build/wire-diff-fetch.log)"
fi
[[ -f "$lib/kafka-clients-4.4.0.jar" ]] || unavailable "no kafka-clients-4.4.0.jar in $lib"

classes="$build/wirediff-classes"
src="$root/tools/wirediff/WireDiff.java"
if [[ ! -f "$classes/WireDiff.class" || "$src" -nt "$classes/WireDiff.class" ]]; then
    rm -rf "$classes"
    mkdir -p "$classes"
    javac -nowarn -encoding UTF-8 -d "$classes" -cp "$lib/*" "$src" 2>&1 | grep -v '^Note:' >&2 || true
    [[ -f "$classes/WireDiff.class" ]] || { echo "wire-diff: FAIL: javac failed" >&2; exit 1; }
fi

# Small heap and the client JIT only: the run is short and the machine shared.
java_run=(java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$classes:$lib/*" WireDiff --bin "$bin")
echo "== mutant descriptions (each message lacks a field in its newest version): must be caught"
if ! "${java_run[@]}" --seeds 3 --show 1 --mutant newest-drops-field; then
    echo "wire-diff: FAIL: the mutant descriptions were not caught: the check cannot fail" >&2
    exit 1
fi
echo "== our descriptions against Kafka 4.4.0's message classes ($seeds seeds)"
"${java_run[@]}" --seeds "$seeds" "$@"
