#!/usr/bin/env bash
# Formatting in Kafka's format (issue 20 item 1, KIP-853):
#  (a) kq-storage random-uuid and format --standalone write meta.properties
#      and the bootstrap snapshot; Kafka 4.4's kafka-dump-log.sh decodes its
#      KRaftVersion and Voters records; a second format is refused; our
#      server serves the directory with its voters from the log (KIP-853),
#      refuses a cluster.id that contradicts meta.properties (exit 2), and
#      serves it with the same voter given in quorum.voters too;
#  (b) Kafka 4.4.0's own StorageTool formats a directory (--standalone) and
#      our server starts on it with Kafka's own properties file (no
#      cluster.id: meta.properties gives it) and with the same voter in
#      quorum.voters, and refuses other voters (exit 2);
#  (c) three directories Kafka's StorageTool formats with
#      --initial-controllers run as one quorum of ours, from Kafka's files.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
TOOL="${KQ_STORAGE_BIN:-$E2E_ROOT/build/kq-storage}"
[[ -x "$TOOL" ]] || fail "$TOOL not built (run scripts/build.sh)"
command -v java > /dev/null || skip "no java"
export KQ_KAFKA_BROKER_VERSION=4.4.0
lib="$("$E2E_ROOT/scripts/fetch-kafka-broker.sh" 2> "$E2E_TMP/fetch.err")" ||
    skip "Kafka 4.4.0 jars not available: $(tail -n 1 "$E2E_TMP/fetch.err")"
base="$(pick_ports 31400 5)" || fail "no free ports"

# ours_props <file> <dir> <port> <cluster id> [voters]
ours_props() {
    cat > "$1" <<EOP
node.id=1
listeners=CONTROLLER://localhost:$3
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT
log.dirs=$2
cluster.id=$4
EOP
    [[ -z "${5:-}" ]] || echo "quorum.voters=$5" >> "$1"
}

# refused <props> <expected text>: the server exits 2 with that message.
refused() {
    timeout 20 "$SERVER_BIN" "$1" > "$E2E_TMP/refused.out" 2> "$E2E_TMP/refused.err"
    local rc=$?
    [[ $rc -eq 2 ]] || fail "$1: exit $rc, expected 2 ($(head -n 2 "$E2E_TMP/refused.err"))"
    grep -qF "$2" "$E2E_TMP/refused.err" ||
        fail "$1: message lacks '$2': $(head -n 2 "$E2E_TMP/refused.err")"
}

serves() {
    start_server "$1" "$2" "$3"
    [[ "$(wait_leader 30 "$3")" == 1 ]] || fail "$1: no leader on port $3"
    echo "formatted-$1" | timeout 20 kcat -P -b "localhost:$3" -t "$TOPIC" -p 0 -X acks=all ||
        fail "$1: produce failed"
    consume_all "$3" "$E2E_TMP/$1.consumed"
    grep -q "formatted-$1" "$E2E_TMP/$1.consumed" || fail "$1: record not read back"
    kill9_server "$1"
}

# ---- (a) ours
cid="$("$TOOL" random-uuid)" || fail "random-uuid failed"
[[ "$cid" =~ ^[A-Za-z0-9_-]{22}$ ]] || fail "random-uuid printed '$cid'"
dir="$E2E_TMP/ours"
ours_props "$E2E_TMP/ours.properties" "$dir" "$base" "$cid"
"$TOOL" format --config "$E2E_TMP/ours.properties" --cluster-id "$cid" --standalone \
    > "$E2E_TMP/format.out" 2>&1 || fail "format: $(cat "$E2E_TMP/format.out")"
meta="$dir/meta.properties"
grep -qx "cluster.id=$cid" "$meta" && grep -qx "node.id=1" "$meta" && grep -qx "version=1" "$meta" ||
    fail "meta.properties: $(cat "$meta")"
dirid="$(sed -n 's/^directory\.id=//p' "$meta")"
[[ "$dirid" =~ ^[A-Za-z0-9_-]{22}$ ]] || fail "directory.id '$dirid'"
"$TOOL" format --config "$E2E_TMP/ours.properties" --cluster-id "$cid" --standalone \
    > "$E2E_TMP/format2.out" 2>&1 && fail "a second format was not refused"
grep -q "is already formatted" "$E2E_TMP/format2.out" || fail "second format: $(cat "$E2E_TMP/format2.out")"
ckpt="$dir/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"
"$E2E_ROOT/bin/kafka-dump-log.sh" --cluster-metadata-decoder --files "$ckpt" \
    > "$E2E_TMP/dump.out" 2> "$E2E_TMP/dump.err" || fail "kafka-dump-log: $(tail -n 3 "$E2E_TMP/dump.err")"
grep -q 'KRaftVersion {"version":0,"kRaftVersion":1}' "$E2E_TMP/dump.out" ||
    fail "no KRaftVersion record decoded: $(cat "$E2E_TMP/dump.out")"
grep -F 'KRaftVoters' "$E2E_TMP/dump.out" | grep -F "\"voterId\":1,\"voterDirectoryId\":\"$dirid\"" |
    grep -qF "{\"name\":\"CONTROLLER\",\"host\":\"localhost\",\"port\":$base}" ||
    fail "no Voters record with this node decoded: $(cat "$E2E_TMP/dump.out")"
grep -q 'SnapshotFooter' "$E2E_TMP/dump.out" || fail "no footer decoded"
# --initial-controllers: this node takes its directory id from the list.
d1="$("$TOOL" random-uuid)" && d2="$("$TOOL" random-uuid)" || fail "random-uuid failed"
ours_props "$E2E_TMP/init.properties" "$E2E_TMP/init" "$base" "$cid"
"$TOOL" format --config "$E2E_TMP/init.properties" --cluster-id "$cid" \
    --initial-controllers "1@localhost:$base:$d1,2@[::1]:$((base + 1)):$d2" \
    > "$E2E_TMP/init.out" 2>&1 || fail "format --initial-controllers: $(cat "$E2E_TMP/init.out")"
grep -qx "directory.id=$d1" "$E2E_TMP/init/meta.properties" || fail "directory.id is not the listed one"
"$E2E_ROOT/bin/kafka-dump-log.sh" --cluster-metadata-decoder --files \
    "$E2E_TMP/init/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint" \
    > "$E2E_TMP/dump2.out" 2> "$E2E_TMP/dump2.err" || fail "kafka-dump-log (2 voters) failed"
grep -F "\"voterId\":2,\"voterDirectoryId\":\"$d2\"" "$E2E_TMP/dump2.out" |
    grep -qF "\"host\":\"::1\",\"port\":$((base + 1))" || fail "voter 2 not decoded: $(cat "$E2E_TMP/dump2.out")"
ours_props "$E2E_TMP/static.properties" "$E2E_TMP/static" "$base" "$cid" "1@localhost:$base"
"$TOOL" format --config "$E2E_TMP/static.properties" --cluster-id "$cid" --standalone \
    > "$E2E_TMP/static.out" 2>&1
[[ $? -eq 2 && ! -e "$E2E_TMP/static" ]] || fail "--standalone with static voters not refused"
serves ours-dynamic "$E2E_TMP/ours.properties" "$base"
ours_props "$E2E_TMP/other.properties" "$dir" "$base" "other-cluster" "1@localhost:$base"
refused "$E2E_TMP/other.properties" "has cluster.id $cid but"
sed 's/^node.id=1$/node.id=2/' "$E2E_TMP/other.properties" > "$E2E_TMP/node2.properties"
echo "quorum.voters=2@localhost:$base" >> "$E2E_TMP/node2.properties"
sed -i '/^quorum.voters=1@/d; s/^cluster.id=.*/cluster.id='"$cid"'/' "$E2E_TMP/node2.properties"
refused "$E2E_TMP/node2.properties" "meta.properties has node.id 1 but"
# Bad --initial-controllers: no directory id, a reserved one, a voter twice.
for bad in "1@localhost:$base" "1@localhost:$base:AAAAAAAAAAAAAAAAAAAAAQ" \
    "1@localhost:$base:$d1,1@localhost:$((base + 1)):$d2"; do
    "$TOOL" format --config "$E2E_TMP/init.properties" --cluster-id "$cid" \
        --initial-controllers "$bad" > "$E2E_TMP/bad.out" 2>&1
    [[ $? -eq 2 ]] || fail "--initial-controllers '$bad' not refused: $(cat "$E2E_TMP/bad.out")"
done
ours_props "$E2E_TMP/ours-static.properties" "$dir" "$base" "$cid" "1@localhost:$base"
serves ours "$E2E_TMP/ours-static.properties" "$base"

# ---- (b) Kafka's StorageTool
port=$((base + 1))
kdir="$E2E_TMP/kafka"
cat > "$E2E_TMP/kafka.properties" <<EOP
process.roles=controller
node.id=1
controller.listener.names=CONTROLLER
listeners=CONTROLLER://localhost:$port
controller.quorum.bootstrap.servers=localhost:$port
log.dirs=$kdir
EOP
java -cp "$lib/*" kafka.tools.StorageTool format --config "$E2E_TMP/kafka.properties" \
    --cluster-id "$cid" --standalone > "$E2E_TMP/kformat.out" 2>&1 ||
    fail "Kafka's format: $(tail -n 3 "$E2E_TMP/kformat.out")"
[[ -s "$kdir/meta.properties" && -s "$kdir/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint" ]] ||
    fail "Kafka's format wrote no meta.properties or bootstrap snapshot"
serves kafka-own "$E2E_TMP/kafka.properties" "$port"
ours_props "$E2E_TMP/k-two.properties" "$kdir" "$port" "$cid" "1@localhost:$port,2@localhost:$base"
refused "$E2E_TMP/k-two.properties" "names the voters {1} but"
ours_props "$E2E_TMP/k-static.properties" "$kdir" "$port" "$cid" "1@localhost:$port"
serves kafka "$E2E_TMP/k-static.properties" "$port"

# ---- (c) a three-node quorum on directories Kafka's StorageTool formatted
# with --initial-controllers, run by our server from Kafka's own files.
initial=""
for i in 1 2 3; do
    kd[$i]="$(java -cp "$lib/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
    initial+="${initial:+,}$i@localhost:$((base + 1 + i)):${kd[$i]}"
done
boot="localhost:$((base + 2)),localhost:$((base + 3)),localhost:$((base + 4))"
for i in 1 2 3; do
    cat > "$E2E_TMP/q$i.properties" <<EOP
process.roles=controller
node.id=$i
controller.listener.names=CONTROLLER
listeners=CONTROLLER://localhost:$((base + 1 + i))
controller.quorum.bootstrap.servers=$boot
log.dirs=$E2E_TMP/q$i
EOP
    java -cp "$lib/*" kafka.tools.StorageTool format --config "$E2E_TMP/q$i.properties" \
        --cluster-id "$cid" --initial-controllers "$initial" > "$E2E_TMP/qformat$i.out" 2>&1 ||
        fail "Kafka's format of q$i: $(tail -n 3 "$E2E_TMP/qformat$i.out")"
done
for i in 1 2 3; do start_server "q$i" "$E2E_TMP/q$i.properties" $((base + 1 + i)); done
ql="$(wait_leader 60 $((base + 2)) $((base + 3)) $((base + 4)))" || fail "the Kafka-formatted quorum elected no leader"
echo "kafka-formatted-quorum" | timeout 20 kcat -P -b "$boot" -t "$TOPIC" -p 0 -X acks=all ||
    fail "produce to the Kafka-formatted quorum failed"
consume_all $((base + 1 + ql)) "$E2E_TMP/q.consumed"
grep -q "kafka-formatted-quorum" "$E2E_TMP/q.consumed" || fail "record not read back from the quorum"
pass "ours formats what Kafka's dump tool reads; ours and Kafka's formatted directories start with their voters from the log (Kafka's own properties file too) and with the same static voters; three directories Kafka's StorageTool formatted with --initial-controllers run as one quorum (leader $ql); contradictions refused (exit 2)"
