#!/usr/bin/env bash
# One of ours as an observer of a real Kafka 4.4 KRaft controller quorum
# (issue 22, "Beyond"): a Kafka controller (process.roles=controller,
# formatted --standalone by Kafka's StorageTool, kraft.version 1) leads
# __cluster_metadata; our node, formatted by our kafka-storage.sh with the
# same cluster id and --no-initial-controllers, finds it through
# controller.quorum.bootstrap.servers, replicates the metadata log without
# understanding it, and flushes it. Checked: our segment is byte-identical
# to Kafka's up to the high watermark Kafka reports, Kafka's
# kafka-metadata-quorum.sh names our node an Observer (asked of Kafka's
# controller), our node relays DescribeQuorum to Kafka's leader, and the
# controller logged no ERROR or exception our node caused.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
command -v java > /dev/null || skip "no java"
export KQ_KAFKA_BROKER_VERSION=4.4.0
lib="$("$E2E_ROOT/scripts/fetch-kafka-broker.sh" 2> "$E2E_TMP/fetch.err")" ||
    skip "Kafka 4.4.0 jars not available: $(tail -n 1 "$E2E_TMP/fetch.err")"
base="$(pick_ports 31520 2)" || fail "no free ports"
kport=$base oport=$((base + 1))

cat > "$E2E_TMP/kafka.properties" <<EOP
process.roles=controller
node.id=1
listeners=CONTROLLER://127.0.0.1:$kport
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=127.0.0.1:$kport
log.dirs=$E2E_TMP/kafka
EOP
cat > "$E2E_TMP/ours.properties" <<EOP
node.id=2
listeners=CONTROLLER://127.0.0.1:$oport
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=127.0.0.1:$kport
log.dirs=$E2E_TMP/ours
EOP
jvm=(java -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$lib/*")
cid="$("${jvm[@]}" kafka.tools.StorageTool random-uuid 2> /dev/null | tail -n 1)"
[[ "$cid" =~ ^[A-Za-z0-9_-]{22}$ ]] || fail "no cluster id from Kafka's StorageTool: $cid"
"${jvm[@]}" kafka.tools.StorageTool format --config "$E2E_TMP/kafka.properties" \
    --cluster-id "$cid" --standalone > "$E2E_TMP/kformat.log" 2>&1 ||
    fail "Kafka's StorageTool format failed: $(tail -n 3 "$E2E_TMP/kformat.log")"
"$E2E_ROOT/build/kq-storage" format --config "$E2E_TMP/ours.properties" --cluster-id "$cid" \
    --no-initial-controllers > "$E2E_TMP/oformat.log" 2>&1 ||
    fail "our format failed: $(tail -n 3 "$E2E_TMP/oformat.log")"

"${jvm[@]}" kafka.Kafka "$E2E_TMP/kafka.properties" > "$E2E_TMP/kafka.log" 2>&1 &
kpid=$!
for ((i = 0; i < 300; i++)); do
    port_in_use "$kport" && break
    kill -0 "$kpid" 2> /dev/null || fail "Kafka's controller exited: $(tail -n 5 "$E2E_TMP/kafka.log")"
    sleep 0.1
done
start_server ours "$E2E_TMP/ours.properties" "$oport"

quorum() { # quorum <port> <describe args...>
    local p=$1
    shift
    timeout 60 "$E2E_ROOT/bin/kafka-metadata-quorum.sh" --bootstrap-controller "127.0.0.1:$p" \
        describe "$@" 2> /dev/null
}
kseg="$E2E_TMP/kafka/__cluster_metadata-0/00000000000000000000.log"
oseg="$E2E_TMP/ours/__cluster_metadata-0/00000000000000000000.log"
# Waits until Kafka's leader reports us as an observer at its log end and
# our flushed segment holds Kafka's bytes up to the high watermark.
ok=0
for ((i = 0; i < 60; i++)); do
    rep="$(quorum "$kport" --replication)"
    hw="$(quorum "$kport" --status | sed -n 's/^HighWatermark:[[:space:]]*//p')"
    if grep -Eq "^2[[:space:]].*Observer" <<< "$rep" && [[ -n "$hw" && -s "$oseg" ]]; then
        # The byte position of the high watermark in Kafka's segment.
        pos="$("$E2E_ROOT/bin/kafka-dump-log.sh" --files "$kseg" 2> /dev/null |
            awk -v hw="$hw" '/baseOffset:/ { for (f = 1; f <= NF; f++) { if ($f == "baseOffset:") b = $(f+1); if ($f == "position:") p = $(f+1) }
                              if (b + 0 >= hw + 0) { print p; found = 1; exit } }
                              END { if (!found) print -1 }')"
        [[ "$pos" == -1 ]] && pos="$(stat -c %s "$kseg")"
        if (( pos > 0 )) && cmp -n "$pos" "$kseg" "$oseg" > /dev/null 2>&1; then
            ok=1
            break
        fi
    fi
    sleep 1
done
((ok == 1)) || fail "our observer did not catch up: replication: $rep; our log: $(tail -n 5 "$E2E_TMP/ours.log")"
log "high watermark $hw: our segment equals Kafka's first $pos bytes; Kafka lists us as an observer"
ours_status="$(quorum "$oport" --status)"
grep -q "^LeaderId:[[:space:]]*1$" <<< "$ours_status" ||
    fail "DescribeQuorum asked of ours does not name Kafka's leader: $ours_status"
grep -q "CurrentObservers:.*\"id\": 2" <<< "$ours_status" ||
    fail "DescribeQuorum asked of ours does not list it as an observer: $ours_status"
server_alive ours || fail "our observer exited"
kill -0 "$kpid" 2> /dev/null || fail "Kafka's controller exited"
# Kafka's controller logged no ERROR or exception (the logging-setup lines
# of the bare classpath and the config dump are not about us).
errs="$(grep -E "ERROR|Exception" "$E2E_TMP/kafka.log" | grep -v -E "snakeyaml|No logging configuration|errors\.deadletterqueue" || true)"
[[ -z "$errs" ]] || fail "Kafka's controller logged errors: $(head -n 5 <<< "$errs")"
pass "our node observes a Kafka 4.4 KRaft controller: byte-identical __cluster_metadata up to the high watermark ($hw, $pos bytes), listed by Kafka as an observer, relays DescribeQuorum to Kafka's leader; no error in Kafka's log"
