#!/usr/bin/env bash
# Fetches Apache Kafka's Java command-line tools (VerifiableProducer,
# ProducerPerformance, MetadataQuorumCommand, ConsoleConsumer) and their
# runtime dependencies with Maven into .cache/kafka-tools/lib. Does nothing
# when they are already there. Prints the lib directory on success.
# KQ_KAFKA_TOOLS_VERSION picks another release (default 4.0.0, what the tests
# use); a non-default one lives in .cache/kafka-tools-<version>/lib.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kafka_version="${KQ_KAFKA_TOOLS_VERSION:-4.0.0}"
cache="$root/.cache/kafka-tools"
[[ "$kafka_version" == 4.0.0 ]] || cache="$root/.cache/kafka-tools-$kafka_version"
exec "$root/scripts/fetch-maven-classpath.sh" fetch-kafka-tools "$cache" "$kafka_version" \
    org.apache.kafka:kafka-tools org.apache.kafka:kafka-clients org.apache.kafka:kafka-server-common
