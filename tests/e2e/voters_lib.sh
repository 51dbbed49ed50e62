# Helpers for the dynamic-voter tests and scripts/bench-reconfig.sh (KIP-853),
# sourced after lib.sh: Kafka 4.4's tools, and the voter set as
# kafka-metadata-quorum.sh describes it. Set MQ_BOOTSTRAP (host:port,...)
# and MQ_ERR (a file for the tool's stderr) before calling mq_tool.

# Kafka 4.4.0's Java tools for bin/kafka-*.sh, or SKIP.
require_kafka_tools_44() {
    command -v java > /dev/null || skip "no java"
    export KQ_KAFKA_TOOLS_VERSION=4.4.0
    "$E2E_ROOT/scripts/fetch-kafka-tools.sh" > /dev/null 2> "$E2E_TMP/fetch.err" ||
        skip "Kafka 4.4.0 tools not available: $(tail -n 1 "$E2E_TMP/fetch.err")"
}

mq_tool() {
    timeout 120 "$E2E_ROOT/bin/kafka-metadata-quorum.sh" --bootstrap-controller "$MQ_BOOTSTRAP" \
        "$@" 2>> "$MQ_ERR"
}

# The voter ids of describe --status, sorted, comma-separated.
mq_voters() {
    mq_tool describe --status | sed -n 's/^CurrentVoters:[[:space:]]*//p' |
        grep -o '"id": [0-9]*' | awk '{print $2}' | sort -n | paste -sd,
}

# mq_wait_voters <ids>: until describe --status names exactly these voters.
mq_wait_voters() {
    local want=$1 deadline=$((SECONDS + 60)) got=""
    while ((SECONDS < deadline)); do
        got="$(mq_voters)"
        [[ "$got" == "$want" ]] && return 0
        sleep 0.5
    done
    fail "voters are '$got', want '$want' ($(tail -n 2 "$MQ_ERR"))"
}
