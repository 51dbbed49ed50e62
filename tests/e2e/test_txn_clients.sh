#!/usr/bin/env bash
# Kafka transactions end to end with three client libraries and Kafka's
# tool (issue 23), on a 3-node quorum (one node with KQ_SKIP_MULTINODE=1):
#  - Java (kafka-clients 4.4, tests/e2e/java/TxnClient.java): a transactional
#    producer commits transactions of K records and aborts every third,
#    each held open 60 ms, while the leader is SIGKILLed twice (and
#    restarted); it handles errors
#    as Kafka documents (abortable: abort and retry, fatal: a new producer).
#    A zombie: a second producer with the same transactional.id fences the
#    first, whose commit must fail (ProducerFenced / InvalidProducerEpoch).
#  - confluent-kafka (librdkafka): the same producer loop (no kills) and the
#    same fencing.
#  - franz-go (tests/e2e/go/txnclient): a GroupTransactSession
#    consume-transform-produce within the one topic (the first transaction
#    aborted on purpose), and the same fencing.
#  - Sarama (tests/e2e/go/saramatxn) and kafkajs (tests/e2e/node, which
#    knows only old versions: InitProducerId v0-1, EndTxn v0-1, ...): the
#    same producer loop as confluent-kafka (no kills) and the same fencing;
#    kafkajs also commits a group's offset in one transaction and aborts
#    another's (AddOffsetsToTxn v0-1, TxnOffsetCommit v0-2): the group keeps
#    the committed one.
#  - kafka-transactions.sh (4.4.0): list and describe show the ids and their
#    states, Ongoing (with the partition) while one transaction is held open.
# Then every client's read_committed consumer (and Java's read_uncommitted)
# reads the whole partition up to a marker: every committed value exactly
# once, no aborted or zombie value, transactions of unknown outcome all or
# nothing; read_uncommitted sees committed and aborted values. A client x
# feature table ends the run; any FAIL fails the test.
# KQ_TXN_KAFKA=1 runs the same against Apache Kafka 4.4.0 brokers
# (groups_lib.sh), to prove the test itself.
set -uo pipefail
export KQ_GROUPS_KAFKA="${KQ_TXN_KAFKA:-0}"
[[ "$KQ_GROUPS_KAFKA" == 1 ]] && export KQ_KAFKA_BROKER_VERSION=4.4.0
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/groups_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/txn_lib.sh"
[[ "$G_KAFKA" == 1 ]] && TOPIC=txn
G_KAFKA_EXTRA_PROPS="transaction.state.log.num.partitions=1
transaction.abort.timed.out.transaction.cleanup.interval.ms=2000"

E2E="$E2E_ROOT/tests/e2e"
NODES=3
[[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]] && NODES=1
D="$E2E_TMP/txn"
mkdir -p "$D"

# --- the clients (installed/built into .cache on first use) ---------------
command -v kcat > /dev/null || fail "kcat missing (scripts/install-deps.sh --test)"
command -v javac > /dev/null || fail "javac missing (apt-get install default-jdk-headless)"
CK_PY="$(g_confluent_python)" || fail "cannot install confluent-kafka from PyPI into $G_CACHE/venv-confluent"
FRANZ="$(txn_franz_client "$E2E_ROOT")" || fail "cannot build tests/e2e/go/txnclient (franz-go)"
SARAMA="$(txn_go_client "$E2E_ROOT" saramatxn)" || fail "cannot build tests/e2e/go/saramatxn (Sarama)"
command -v node > /dev/null || fail "node missing (apt-get install nodejs npm)"
KJS_PATH="$(txn_kafkajs_path "$E2E_ROOT")" ||
    fail "cannot install kafkajs (tests/e2e/node/package-lock.json) with npm ci into $E2E_ROOT/.cache/node-txn: is the npm registry reachable?"
# kjs <timeout s> <mode> <args>: tests/e2e/node/txn_kafkajs.js.
kjs() {
    local t=$1
    shift
    NODE_PATH="$KJS_PATH" timeout "$t" node "$E2E/node/txn_kafkajs.js" "$@"
}
JCP="$(txn_java_classpath "$E2E_ROOT")" || fail "cannot compile tests/e2e/java/TxnClient.java against kafka-clients 4.4.0"
# jtxn [timeout s] <mode> <args>: TxnClient.java (default timeout 180 s).
jtxn() {
    local t=180
    [[ "$1" =~ ^[0-9]+$ ]] && { t=$1; shift; }
    timeout "$t" java -Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.err \
        -cp "$JCP" TxnClient "$@"
}
ktxn() {
    KAFKA_HEAP_OPTS=-Xmx256M KQ_TOOLS_LOG_LEVEL=error timeout 60 \
        "$E2E_ROOT/bin/kafka-transactions.sh" --bootstrap-server "$G_BOOTSTRAP" "$@"
}
errtail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' '; }
count() { grep -c "^$1"$'\t' "$2" 2>/dev/null; }

clients=(java confluent franz sarama kafkajs)
features=(init produce commit abort fencing read_committed failover)
declare -A M=()   # M[client/feature] = ok | FAIL
failures=()
ok() { [[ "${M[$1/$2]:-}" == FAIL ]] || M[$1/$2]=ok; }
bad() {
    M[$1/$2]=FAIL
    failures+=("$1/$2: $3")
    log "FAILED $1/$2: $3"
}

groups_start "$NODES" "$(pick_ports 37400 "$NODES")" || fail "no free ports"
log "$NODES node(s) $([[ "$G_KAFKA" == 1 ]] && echo "of Apache Kafka $KQ_KAFKA_BROKER_VERSION" || echo "of ours"): $G_BOOTSTRAP, topic $TOPIC"

# Waits (Kafka only) until every replica of TOPIC-0 is in sync again.
wait_isr() {
    local t out
    [[ "$G_KAFKA" == 1 ]] || return 0
    for ((t = 0; t < 240; t++)); do
        out="$(timeout 10 kcat -L -b "$G_BOOTSTRAP" -t "$TOPIC" 2>/dev/null)"
        [[ "$(sed -n 's/.*isrs: \([0-9,]*\).*/\1/p' <<< "$out" | tr ',' '\n' | grep -c .)" == "$NODES" ]] && return 0
        sleep 0.5
    done
    return 1
}

# --- Java: transactions through two leader kills ---------------------------
STOP="$D/java.stop"
# Each transaction stays open 60 ms after its records are written: a kill
# most likely hits an open one.
jtxn produce "$G_BOOTSTRAP" "$TOPIC" txj-id txjv 12 5 "$STOP" 150 60 > "$D/java.out" 2> "$D/java.err" &
jpid=$!
# committed_at_least <n>: waits until the Java producer committed n txns.
committed_at_least() {
    local n=$1 deadline=$((SECONDS + 60))
    while ((SECONDS < deadline)); do
        (($(grep -c $'^committed\t.*-r0$' "$D/java.out") >= n)) && return 0
        kill -0 "$jpid" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}
if ! committed_at_least 3; then
    # Nothing else can work either: stop here, with the client's errors.
    kill_tree "$jpid"
    fail "java: no 3 committed transactions within 60 s ($(grep -c ^init "$D/java.out") initTransactions done): $(grep -m3 ^error "$D/java.out" | tr '\n' ' ') $(errtail "$D/java.err")"
fi
kills=0
if ((NODES == 3)) && [[ "${M[java/init]:-}" != FAIL ]]; then
    for k in 1 2; do
        leader="$(wait_leader 60 "${G_PORTS[@]}")" || { bad java failover "no leader before kill $k"; break; }
        # On Kafka the transaction coordinator (the leader of
        # __transaction_state-0) may be another broker: kill that one, as
        # ours' leader is both.
        if [[ "$G_KAFKA" == 1 ]]; then
            leader="$(TOPIC=__transaction_state leader_at "${G_PORTS[0]}")"
            [[ "$leader" != -1 ]] || { bad java failover "no transaction coordinator before kill $k"; break; }
        fi
        before=$(grep -c $'^committed\t.*-r0$' "$D/java.out")
        kill9_server "n$leader"
        newl="$(wait_leader 60 $(live_ports))" || { bad java failover "no new leader within 60s after kill $k"; break; }
        log "kill $k: node $leader (leader$([[ "$G_KAFKA" == 1 ]] && echo " of __transaction_state-0")) killed, new leader of $TOPIC-0: $newl"
        committed_at_least $((before + 2)) ||
            { bad java failover "the producer committed no 2 transactions after kill $k: $(errtail "$D/java.err")"; break; }
        g_restart "n$leader"
        wait_leader 90 "${G_PORTS[@]}" > /dev/null || { bad java failover "no leader agreed after restart $k"; break; }
        wait_isr || { bad java failover "n$leader not back in sync after restart $k"; break; }
        kills=$k
    done
fi
touch "$STOP"
wait "$jpid"; jrc=$?
((jrc == 0)) || bad java commit "the producer exited $jrc: $(errtail "$D/java.err")"
log "java producer: $(grep -c ^committed "$D/java.out") committed, $(grep -c ^aborted "$D/java.out") aborted(-err), $(grep -c ^unknown "$D/java.out") unknown values; $(grep -c ^error "$D/java.out") handled errors ($(grep ^error "$D/java.out" | cut -f2 | sort | uniq -c | tr -s ' \n' ' ')), $(grep -c ^recreated "$D/java.out") producers re-created; $kills leader kill(s)"
grep ^error "$D/java.out" | head -n 5 >&2
[[ "$(count init "$D/java.out")" -ge 1 ]] && ok java init || bad java init "initTransactions failed: $(errtail "$D/java.err")"
((NODES == 1 || kills == 2)) && [[ "${M[java/failover]:-}" != FAIL ]] && M[java/failover]=ok

# --- Java: the zombie -------------------------------------------------------
jtxn 90 zombie "$G_BOOTSTRAP" "$TOPIC" txjz-id txjz > "$D/jzombie.out" 2> "$D/jzombie.err" ||
    bad java fencing "zombie run failed: $(errtail "$D/jzombie.err")"
grep -q ^fenced "$D/jzombie.out" || bad java fencing "the first producer was not fenced: $(grep ^notfenced "$D/jzombie.out") $(errtail "$D/jzombie.err")"
log "java zombie: $(grep -E '^(fenced|notfenced)' "$D/jzombie.out")"

# --- confluent-kafka ----------------------------------------------------------
timeout 150 "$CK_PY" "$E2E/txn_client.py" produce "$G_BOOTSTRAP" "$TOPIC" txck-id txck 10 5 \
    > "$D/ck.out" 2> "$D/ck.err" || bad confluent commit "the producer failed: $(errtail "$D/ck.err")"
[[ "$(count init "$D/ck.out")" -ge 1 ]] && ok confluent init || bad confluent init "init_transactions failed: $(errtail "$D/ck.err")"
grep ^error "$D/ck.out" | head -n 5 >&2
timeout 90 "$CK_PY" "$E2E/txn_client.py" fence "$G_BOOTSTRAP" "$TOPIC" txcz-id txcz \
    > "$D/czombie.out" 2> "$D/czombie.err" || bad confluent fencing "fence run failed: $(errtail "$D/czombie.err")"
grep -q ^fenced "$D/czombie.out" || bad confluent fencing "not fenced: $(grep ^notfenced "$D/czombie.out") $(errtail "$D/czombie.err")"
log "confluent zombie: $(grep -E '^(fenced|notfenced)' "$D/czombie.out")"

# --- Sarama and kafkajs: the producer loop and the zombie -------------------
# sarama|kafkajs <timeout s> <mode> <args>
sarama() {
    local t=$1
    shift
    timeout "$t" "$SARAMA" "$@"
}
kafkajs() { kjs "$@"; }
for c in sarama kafkajs; do
    case $c in sarama) p=txsr ;; kafkajs) p=txkj ;; esac
    $c 60 produce "$G_BOOTSTRAP" "$TOPIC" "$p-id" "$p" 10 4 > "$D/$c.out" 2> "$D/$c.err" ||
        bad $c commit "the producer failed: $(errtail "$D/$c.err") $(grep -m3 ^error "$D/$c.out" | tr '\n' ' ')"
    [[ "$(count init "$D/$c.out")" -ge 1 ]] && ok $c init || bad $c init "init failed: $(errtail "$D/$c.err")"
    grep ^error "$D/$c.out" | head -n 5 >&2
    $c 60 fence "$G_BOOTSTRAP" "$TOPIC" "${p}z-id" "${p}z" > "$D/${c}z.out" 2> "$D/${c}z.err" ||
        bad $c fencing "fence run failed: $(errtail "$D/${c}z.err")"
    grep -q ^fenced "$D/${c}z.out" || bad $c fencing "not fenced: $(grep ^notfenced "$D/${c}z.out") $(errtail "$D/${c}z.err")"
    log "$c: $(grep -c ^committed "$D/$c.out") committed, $(grep -c ^aborted "$D/$c.out") aborted(-err) values; zombie: $(grep -E '^(fenced|notfenced)' "$D/${c}z.out")"
done
kafkajs 60 offsets "$G_BOOTSTRAP" "$TOPIC" txkjo-id txkjo txkjo-group > "$D/kjo.out" 2> "$D/kjo.err" ||
    bad kafkajs commit "sendOffsets run failed: $(errtail "$D/kjo.err")"
kjo_off="$(sed -n 's/^offset\t//p' "$D/kjo.out")"
[[ "$kjo_off" == 7 ]] && log "kafkajs: group txkjo-group committed $kjo_off (the aborted transaction's 9 dropped)" ||
    bad kafkajs commit "group txkjo-group's offset is ${kjo_off:-none}, not 7 (committed; 9 aborted)"

# --- franz-go: consume-transform-produce ------------------------------------
FN=20
timeout 60 "$FRANZ" produce "$G_BOOTSTRAP" "$TOPIC" txfi- "$FN" > "$D/fin.out" 2> "$D/fin.err" ||
    bad franz produce "input produce failed: $(errtail "$D/fin.err")"
timeout 120 "$FRANZ" etl "$G_BOOTSTRAP" "$TOPIC" txfz-group txfe-id txfi- txfo- "$FN" 100 \
    > "$D/etl.out" 2> "$D/etl.err" || bad franz commit "the etl failed: $(errtail "$D/etl.err")"
grep -q $'^out\t' "$D/etl.out" && ok franz init || bad franz init "the session processed nothing: $(errtail "$D/etl.err")"
grep ^error "$D/etl.out" | head -n 5 >&2
timeout 90 "$FRANZ" fence "$G_BOOTSTRAP" "$TOPIC" txfz-id txfz > "$D/fzombie.out" 2> "$D/fzombie.err" ||
    bad franz fencing "fence run failed: $(errtail "$D/fzombie.err")"
grep -q ^fenced "$D/fzombie.out" || bad franz fencing "not fenced: $(grep ^notfenced "$D/fzombie.out") $(errtail "$D/fzombie.err")"
log "franz zombie: $(grep -E '^(fenced|notfenced)' "$D/fzombie.out")"

# --- read everything back ------------------------------------------------------
MARKER="txmark-$RANDOM$RANDOM"
echo "$MARKER" | timeout 60 kcat -P -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -X acks=all 2> "$D/marker.err" ||
    fail "cannot produce the marker: $(errtail "$D/marker.err")"
jtxn 90 consume "$G_BOOTSTRAP" "$TOPIC" read_committed tx "$MARKER" 60 > "$D/j.rc" 2> "$D/j.rc.err" ||
    bad java read_committed "consumer failed: $(errtail "$D/j.rc.err")"
jtxn 90 consume "$G_BOOTSTRAP" "$TOPIC" read_uncommitted tx "$MARKER" 60 > "$D/j.ru" 2> "$D/j.ru.err" ||
    bad java produce "read_uncommitted consumer failed: $(errtail "$D/j.ru.err")"
timeout 90 "$CK_PY" "$E2E/txn_client.py" consume "$G_BOOTSTRAP" "$TOPIC" read_committed tx "$MARKER" 60 \
    > "$D/ck.rc" 2> "$D/ck.rc.err" || bad confluent read_committed "consumer failed: $(errtail "$D/ck.rc.err")"
timeout 90 "$FRANZ" consume "$G_BOOTSTRAP" "$TOPIC" read_committed tx "$MARKER" 60 \
    > "$D/fz.rc" 2> "$D/fz.rc.err" || bad franz read_committed "consumer failed: $(errtail "$D/fz.rc.err")"
sarama 60 consume "$G_BOOTSTRAP" "$TOPIC" read_committed tx "$MARKER" 50 \
    > "$D/sr.rc" 2> "$D/sr.rc.err" || bad sarama read_committed "consumer failed: $(errtail "$D/sr.rc.err")"
kafkajs 60 consume "$G_BOOTSTRAP" "$TOPIC" read_committed tx "$MARKER" 50 \
    > "$D/kj.rc" 2> "$D/kj.rc.err" || bad kafkajs read_committed "consumer failed: $(errtail "$D/kj.rc.err")"

# check <client> <feature> <txn_check.py args...>
check() {
    local c=$1 f=$2 sum
    shift 2
    if sum="$($PY "$E2E/txn_check.py" "$@")"; then
        ok "$c" "$f"
        log "$c/$f: $sum"
    else
        bad "$c" "$f" "$sum"
    fi
}
# only <prefix> <file>: the read lines of one producer's values.
only() { grep -a $'^rec\t[0-9]*\t'"$1-" "$2" > "$2.$1"; }
for r in j.rc j.ru ck.rc fz.rc sr.rc kj.rc; do
    for p in txjv txjz txck txcz txfz txfo txsr txsrz txkj txkjz txkjo; do only "$p" "$D/$r"; done
done
# The Java read_committed consumer is the reference for every producer.
check java produce produced "$D/java.out" "$D/j.rc.txjv" "$D/j.ru.txjv"
check java commit produced <(grep ^committed "$D/java.out") "$D/j.rc.txjv"
check java abort produced "$D/java.out" "$D/j.rc.txjv"
check java fencing produced "$D/jzombie.out" "$D/j.rc.txjz"
check confluent produce produced "$D/ck.out" "$D/j.rc.txck" "$D/j.ru.txck"
check confluent commit produced <(grep ^committed "$D/ck.out") "$D/j.rc.txck"
check confluent abort produced "$D/ck.out" "$D/j.rc.txck"
check confluent fencing produced "$D/czombie.out" "$D/j.rc.txcz"
for c in sarama kafkajs; do
    case $c in sarama) p=txsr ;; kafkajs) p=txkj ;; esac
    check $c produce produced "$D/$c.out" "$D/j.rc.$p" "$D/j.ru.$p"
    check $c commit produced <(grep ^committed "$D/$c.out") "$D/j.rc.$p"
    check $c abort produced "$D/$c.out" "$D/j.rc.$p"
    check $c fencing produced "$D/${c}z.out" "$D/j.rc.${p}z"
    [[ "$(count committed "$D/$c.out")" -gt 0 ]] || bad $c commit "no transaction committed"
    [[ "$(count aborted "$D/$c.out")" -gt 0 ]] || bad $c abort "no transaction aborted on purpose"
done
check kafkajs commit produced "$D/kjo.out" "$D/j.rc.txkjo" "$D/j.ru.txkjo"
[[ "$(count ack "$D/fin.out")" == "$FN" ]] || bad franz produce "$(count ack "$D/fin.out") of $FN inputs acknowledged"
# Every output (the aborted first transaction's too) was written.
[[ "${M[franz/produce]:-}" == FAIL ]] || { $PY - "$D/etl.out" "$D/j.ru.txfo" <<'PY' && ok franz produce || bad franz produce "outputs missing read_uncommitted"
import sys
outs = {l.split("\t")[3].strip() for l in open(sys.argv[1]) if l.startswith("out\t")}
seen = {l.split("\t")[2].strip() for l in open(sys.argv[2])}
sys.exit(0 if outs and outs <= seen else 1)
PY
}
check franz commit etl "$D/fin.out" "$D/etl.out" "$D/j.rc.txfo" txfo-
grep -q $'^out\taborted' "$D/etl.out" && ok franz abort || bad franz abort "no transaction was aborted"
check franz fencing produced "$D/fzombie.out" "$D/j.rc.txfz"
# Each client's own read_committed consumer, over every producer's values.
for c in java confluent franz sarama kafkajs; do
    case $c in java) r=j.rc ;; confluent) r=ck.rc ;; franz) r=fz.rc ;; sarama) r=sr.rc ;; kafkajs) r=kj.rc ;; esac
    [[ "${M[$c/read_committed]:-}" == FAIL ]] && continue
    check $c read_committed produced "$D/java.out" "$D/$r.txjv"
    check $c read_committed produced "$D/jzombie.out" "$D/$r.txjz"
    check $c read_committed produced "$D/ck.out" "$D/$r.txck"
    check $c read_committed produced "$D/czombie.out" "$D/$r.txcz"
    check $c read_committed produced "$D/fzombie.out" "$D/$r.txfz"
    check $c read_committed etl "$D/fin.out" "$D/etl.out" "$D/$r.txfo" txfo-
    check $c read_committed produced "$D/sarama.out" "$D/$r.txsr"
    check $c read_committed produced "$D/saramaz.out" "$D/$r.txsrz"
    check $c read_committed produced "$D/kafkajs.out" "$D/$r.txkj"
    check $c read_committed produced "$D/kafkajsz.out" "$D/$r.txkjz"
    check $c read_committed produced "$D/kjo.out" "$D/$r.txkjo"
done
# The group's committed offset, read independently of the etl.
etl_off="$(sed -n 's/^committed\t//p' "$D/etl.out" | tail -n 1)"
desc_off="$(g_describe_offset txfz-group)"
[[ -n "$etl_off" && "$desc_off" == "$etl_off" ]] && log "franz: group txfz-group committed $desc_off (kafka-consumer-groups.sh)" ||
    bad franz commit "the etl read committed offset ${etl_off:-none}, kafka-consumer-groups.sh says ${desc_off:-nothing} ($(errtail "$E2E_TMP/describe.err"))"

# --- kafka-transactions.sh -------------------------------------------------------
tool_state() { awk -v id="$1" -v col="$2" '$0 ~ "^" id "[ \t]" || $2 == id { print $col; exit }' "$3"; }
tools=()
jtxn hold "$G_BOOTSTRAP" "$TOPIC" txhold-id txhold-0 "$D/hold.stop" 60 > "$D/hold.out" 2> "$D/hold.err" &
hpid=$!
for ((t = 0; t < 300; t++)); do grep -q ^held "$D/hold.out" && break; kill -0 "$hpid" 2>/dev/null || break; sleep 0.1; done
if grep -q ^held "$D/hold.out"; then
    ktxn list > "$D/list1" 2> "$D/list1.err" || tools+=("list failed: $(errtail "$D/list1.err")")
    ktxn describe --transactional-id txhold-id > "$D/desc1" 2> "$D/desc1.err" ||
        tools+=("describe failed: $(errtail "$D/desc1.err")")
    log "list while held: $(tr '\n' '|' < "$D/list1")"
    log "describe txhold-id: $(tr '\n' '|' < "$D/desc1")"
    [[ "$(tool_state txhold-id 4 "$D/list1")" == Ongoing ]] || tools+=("list: txhold-id not Ongoing")
    grep -q "Ongoing" "$D/desc1" && grep -q "$TOPIC-0" "$D/desc1" ||
        tools+=("describe txhold-id: not Ongoing with $TOPIC-0")
else
    tools+=("the holding producer did not start: $(errtail "$D/hold.err")")
fi
touch "$D/hold.stop"
wait "$hpid" || tools+=("the holding producer failed: $(errtail "$D/hold.err")")
for ((t = 0; t < 20; t++)); do
    ktxn list > "$D/list2" 2> "$D/list2.err"
    [[ "$(tool_state txhold-id 4 "$D/list2")" == CompleteAbort ]] && break
    sleep 0.5
done
log "list after: $(tr '\n' '|' < "$D/list2")"
for id in txj-id txck-id txsr-id txkj-id; do
    [[ "$(tool_state $id 4 "$D/list2")" == CompleteCommit ]] || tools+=("list: $id not CompleteCommit")
done
[[ "$(tool_state txhold-id 4 "$D/list2")" == CompleteAbort ]] || tools+=("list: txhold-id not CompleteAbort after the abort")
ktxn describe --transactional-id txj-id > "$D/desc2" 2> "$D/desc2.err" || tools+=("describe txj-id failed: $(errtail "$D/desc2.err")")
grep -q CompleteCommit "$D/desc2" || tools+=("describe txj-id: not CompleteCommit: $(tr '\n' '|' < "$D/desc2")")
((${#tools[@]} == 0)) || failures+=("kafka-transactions.sh: ${tools[*]}")

# --- the table --------------------------------------------------------------------
{
    printf '%-12s' client; printf ' %-14s' "${features[@]}"; echo
    for c in "${clients[@]}"; do
        printf '%-12s' "$c"
        for f in "${features[@]}"; do printf ' %-14s' "${M[$c/$f]:--}"; done
        echo
    done
    printf '%-12s list+describe %s\n' tool "$( ((${#tools[@]} == 0)) && echo ok || echo FAIL)"
} >&2
((${#failures[@]} == 0)) || fail "${#failures[@]} failures: ${failures[*]}"
pass "transactions with java, confluent-kafka, franz-go, Sarama and kafkajs on $NODES node(s) ($kills leader kills): commit, abort, fencing, read_committed; kafka-transactions.sh list/describe"
