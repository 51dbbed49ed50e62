#!/usr/bin/env bash
# Fetches the Apache Kafka broker (org.apache.kafka:kafka_2.13, which also
# holds kafka.tools.TestRaftServer and StorageTool) and its runtime
# dependencies with Maven into .cache/kafka-broker/lib. Does nothing when
# they are already there. Prints the lib directory on success.
# KQ_KAFKA_BROKER_VERSION picks the release (default 4.0.0); a non-default
# one lives in .cache/kafka-broker-<version>/lib.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kafka_version="${KQ_KAFKA_BROKER_VERSION:-4.0.0}"
cache="$root/.cache/kafka-broker"
[[ "$kafka_version" == 4.0.0 ]] || cache="$root/.cache/kafka-broker-$kafka_version"
exec "$root/scripts/fetch-maven-classpath.sh" fetch-kafka-broker "$cache" "$kafka_version" \
    org.apache.kafka:kafka_2.13
