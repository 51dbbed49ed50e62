#!/usr/bin/env bash
# Runs Apache Kafka's DumpLogSegments (Kafka's kafka-dump-log.sh) on our log
# segments and snapshot files, with the broker jars (fetched on first use by
# scripts/fetch-kafka-broker.sh):
#   bin/kafka-dump-log.sh --files DIR/00000000000000001234-0000000007.checkpoint
#   bin/kafka-dump-log.sh --deep-iteration --print-data-log --files X.checkpoint
# KQ_KAFKA_BROKER_VERSION picks the release (default 4.0.0). Up to 4.0 the
# tool is kafka.tools.DumpLogSegments in the broker jar; later ones (4.4.0) have
# org.apache.kafka.tools.DumpLogSegments in kafka-tools, then fetched by
# scripts/fetch-kafka-tools.sh for the same version. Environment as for
# bin/kafka-run-class.sh (KAFKA_HEAP_OPTS, KAFKA_OPTS, KQ_TOOLS_LOG_LEVEL).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${KQ_KAFKA_BROKER_VERSION:-4.0.0}"
lib="$(KQ_KAFKA_BROKER_VERSION="$version" "$root/scripts/fetch-kafka-broker.sh")"
class=kafka.tools.DumpLogSegments
# A jar's central directory holds its entry names uncompressed.
if ! grep -qa 'kafka/tools/DumpLogSegments\.class' "$lib"/kafka_2.13-*.jar; then
    lib="$(KQ_KAFKA_TOOLS_VERSION="$version" "$root/scripts/fetch-kafka-tools.sh")"
    class=org.apache.kafka.tools.DumpLogSegments
fi

# shellcheck disable=SC2206
heap=(${KAFKA_HEAP_OPTS:--Xmx512M})
# shellcheck disable=SC2206
extra=(${KAFKA_OPTS:-})
exec java "${heap[@]}" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${KQ_TOOLS_LOG_LEVEL:-warn}" \
    -Dorg.slf4j.simpleLogger.logFile=System.err \
    "${extra[@]}" -cp "$lib/*" "$class" "$@"
