#!/usr/bin/env bash
# Runs Apache Kafka's org.apache.kafka.tools.FeatureCommand (see bin/kafka-run-class.sh).
exec "$(dirname "${BASH_SOURCE[0]}")/kafka-run-class.sh" org.apache.kafka.tools.FeatureCommand "$@"
