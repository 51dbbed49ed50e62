#!/usr/bin/env bash
# Runs Apache Kafka's org.apache.kafka.tools.ProducerPerformance (see
# bin/kafka-run-class.sh). The tool has no --bootstrap-server option: when
# neither --producer-props nor the --producer.config file sets
# bootstrap.servers, bootstrap.servers=${KQ_BOOTSTRAP:-localhost:9092} is
# added to --producer-props.
set -euo pipefail

args=("$@")
have_bootstrap=0
props_at=-1
for ((i = 0; i < ${#args[@]}; i++)); do
    a="${args[i]}"
    case "$a" in
        bootstrap.servers=*) have_bootstrap=1 ;;
        -h|--help) have_bootstrap=1 ;;
        --producer-props) props_at=$i ;;
        --producer.config)
            f="${args[i + 1]:-}"
            if [[ -f "$f" ]] && grep -qE '^[[:space:]]*bootstrap\.servers[[:space:]]*[=:]' "$f"; then
                have_bootstrap=1
            fi
            ;;
    esac
done
if ((have_bootstrap == 0)); then
    bs="bootstrap.servers=${KQ_BOOTSTRAP:-localhost:9092}"
    if ((props_at >= 0)); then
        args=("${args[@]:0:props_at+1}" "$bs" "${args[@]:props_at+1}")
    else
        args+=(--producer-props "$bs")
    fi
fi

exec "$(dirname "${BASH_SOURCE[0]}")/kafka-run-class.sh" \
    org.apache.kafka.tools.ProducerPerformance "${args[@]}"
