#!/usr/bin/env bash
# Runs Apache Kafka's org.apache.kafka.tools.TransactionsCommand (bin/kafka-transactions.sh) from the
# 4.4.0 tools unless KQ_KAFKA_TOOLS_VERSION says otherwise (see bin/kafka-run-class.sh).
export KQ_KAFKA_TOOLS_VERSION="${KQ_KAFKA_TOOLS_VERSION:-4.4.0}"
exec "$(dirname "${BASH_SOURCE[0]}")/kafka-run-class.sh" org.apache.kafka.tools.TransactionsCommand "$@"
