#!/usr/bin/env bash
# Runs a class from Apache Kafka's Java tools (fetched on first use into
# .cache/kafka-tools by scripts/fetch-kafka-tools.sh).
#   bin/kafka-run-class.sh org.apache.kafka.tools.VerifiableProducer --help
# Environment: KAFKA_HEAP_OPTS (default -Xmx512M), KAFKA_OPTS (extra JVM
# options), KQ_TOOLS_LOG_LEVEL (the tools' slf4j level, default warn),
# KQ_TOOLS_FULL_JIT=1 (the JVM's default tiered JIT instead of C1 only,
# -XX:TieredStopAtLevel=1, which starts faster; benchmarks set it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 ]]; then
    echo "usage: $0 <java class> [args...]" >&2
    exit 1
fi
class="$1"
shift

lib="$("$root/scripts/fetch-kafka-tools.sh")"

# shellcheck disable=SC2206
heap=(${KAFKA_HEAP_OPTS:--Xmx512M})
# shellcheck disable=SC2206
extra=(${KAFKA_OPTS:-})
jit=(-XX:TieredStopAtLevel=1)
[[ "${KQ_TOOLS_FULL_JIT:-0}" == 1 ]] && jit=()
exec java "${heap[@]}" -XX:+UseSerialGC "${jit[@]}" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${KQ_TOOLS_LOG_LEVEL:-warn}" \
    -Dorg.slf4j.simpleLogger.logFile=System.err \
    "${extra[@]}" -cp "$lib/*" "$class" "$@"
