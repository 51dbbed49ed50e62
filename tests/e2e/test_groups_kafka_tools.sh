#!/usr/bin/env bash
# Three nodes, Kafka's own tools. VerifiableProducer (acks=all) writes in the
# background while VerifiableConsumer consumes in group G (classic protocol,
# synchronous commits after every poll) and the leader is SIGKILLed and
# restarted twice; kafka-consumer-groups.sh --describe is sampled all along.
# Checks: every acknowledged record was consumed at its offset, the
# consumer's successful commits and the CURRENT-OFFSET shown by --describe
# never go backwards, --describe shows a LAG, --list shows the group; a
# consumer restarted in G begins exactly at G's committed offset (as both
# the first consumer's last commit and --describe report it); the console
# consumer in another group reads N records from the beginning.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/groups_lib.sh"
require_multinode

E2E="$E2E_ROOT/tests/e2e"
n=${KQ_GROUPS_RECORDS:-2400}
G=vc-group
G2=console-group

groups_start 3 "$(pick_ports 37100 3)" || fail "no free ports"
ports=("${G_PORTS[@]}")
leader="$(wait_leader 60 "${ports[@]}")" || g_fail "no leader"
log "nodes $G_BOOTSTRAP, leader $leader"

acked_count() { grep -c '"producer_send_success"' "$1" 2>/dev/null || true; }
done_count() { grep -cE '"producer_send_(success|error)"' "$1" 2>/dev/null || true; }
wait_done() {
    local deadline=$((SECONDS + $3))
    while ((SECONDS < deadline)); do
        (($(done_count "$1") >= $2)) && return 0
        sleep 0.2
    done
    return 1
}
# Highest offset the consumer output $1 has read (-1: none).
max_read() {
    local m
    m="$(grep -o '"name":"record_data"[^}]*"offset":[0-9]*' "$1" 2>/dev/null |
        sed 's/.*"offset"://' | sort -n | tail -n 1)"
    echo "${m:--1}"
}
# wait_read <consumer out> <offset> <secs>
wait_read() {
    local deadline=$((SECONDS + $3))
    while ((SECONDS < deadline)); do
        (($(max_read "$1") >= $2)) && return 0
        sleep 0.3
    done
    return 1
}
# Highest acknowledged offset in producer output $1.
max_acked() {
    grep '"producer_send_success"' "$1" | grep -o '"offset":[0-9]*' | cut -d: -f2 | sort -n | tail -n 1
}

# vconsumer <out>: VerifiableConsumer in group G in the background; VC_PID is
# the JVM's pid (the wrappers exec java), so SIGTERM reaches it and it leaves
# the group on the way out.
vconsumer() {
    "$E2E_ROOT/bin/kafka-verifiable-consumer.sh" --bootstrap-server "$G_BOOTSTRAP" \
        --topic "$TOPIC" --group-id "$G" --group-protocol classic --reset-policy earliest \
        --verbose > "$1" 2> "$1.err" &
    VC_PID=$!
}
# stop_vconsumer <pid>: SIGTERM (a clean close), SIGKILL after 10 s.
stop_vconsumer() {
    local i
    kill -TERM "$1" 2>/dev/null
    for ((i = 0; i < 100; i++)); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill_tree "$1"
    wait "$1" 2>/dev/null
}

# --describe sampler: "ok<TAB>ms<TAB>CURRENT-OFFSET<TAB>LAG" or "err<TAB>ms<TAB>why".
describe_sampler() {
    local outf=$1 d="$E2E_TMP/describe" cur lag
    while :; do
        if timeout 30 env KAFKA_HEAP_OPTS=-Xmx128M KQ_TOOLS_LOG_LEVEL=error \
            "$E2E_ROOT/bin/kafka-consumer-groups.sh" --bootstrap-server "$G_BOOTSTRAP" \
            --describe --group "$G" --timeout 5000 > "$d.out" 2> "$d.err"; then
            # Columns by header: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
            read -r cur lag < <(awk -v t="$TOPIC" '
                /CURRENT-OFFSET/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
                col["TOPIC"] && $col["TOPIC"] == t && $col["PARTITION"] == 0 {
                    print $col["CURRENT-OFFSET"], $col["LAG"]; exit }' "$d.out")
            if [[ -n "${cur:-}" ]]; then
                printf 'ok\t%s\t%s\t%s\n' "$(date +%s%3N)" "$cur" "$lag" >> "$outf"
                cp "$d.out" "$E2E_TMP/describe.last-ok"
            else
                printf 'err\t%s\t%s\n' "$(date +%s%3N)" "no row: $(tr '\n' ' ' < "$d.out" | cut -c1-200)" >> "$outf"
            fi
        else
            printf 'err\t%s\t%s\n' "$(date +%s%3N)" "$(tail -n 2 "$d.err" "$d.out" | tr '\n' ' ' | cut -c1-300)" >> "$outf"
        fi
        sleep 0.5
    done
}

prod="$E2E_TMP/produced.jsonl"
cons="$E2E_TMP/consumer1.jsonl"
samples="$E2E_TMP/describe.tsv"
: > "$samples"

log "VerifiableConsumer in group $G, VerifiableProducer $n records at 100/s (acks=all)"
vconsumer "$cons"
cons_pid=$VC_PID
timeout 600 "$E2E_ROOT/bin/kafka-verifiable-producer.sh" --bootstrap-server "$G_BOOTSTRAP" \
    --topic "$TOPIC" --max-messages "$n" --throughput 100 --acks -1 --value-prefix 1 \
    --producer.config "$E2E_ROOT/config/producer.properties" > "$prod" 2> "$prod.err" &
prod_pid=$!
describe_sampler "$samples" &
sampler_pid=$!

step=$((n / 3))
for round in 1 2; do
    wait_done "$prod" $((round * step)) 120 ||
        g_fail "round $round: the producer did not get past record $((round * step))"
    # The consumer is in the group and reading before the leader goes.
    wait_read "$cons" 0 60 || g_fail "round $round: the group consumer read nothing within 60s: $(tail -n 3 "$cons" "$cons.err")"
    leader="$(wait_leader 60 "${ports[@]}")" || g_fail "round $round: no leader agreed"
    kill -0 "$prod_pid" 2>/dev/null || log "note: round $round: the producer already finished"
    kill9_server "n$leader"
    mapfile -t alive < <(live_ports)
    new="$(wait_leader 60 "${alive[@]}")" || g_fail "round $round: the survivors agree on no leader"
    log "round $round: killed leader $leader after $(acked_count "$prod") acks, consumer at $(max_read "$cons"); leader now $new"
    sleep 1
    g_restart "n$leader"
done

wait "$prod_pid"
rc=$?
[[ $rc -eq 0 ]] || g_fail "VerifiableProducer exited $rc: $(tail -n 3 "$prod.err")"
acked=$(acked_count "$prod")
((acked >= n / 3)) || g_fail "only $acked of $n records acknowledged"
last="$(max_acked "$prod")"
log "producer done: $acked of $n acked, last acked offset $last; waiting for the consumer"
wait_read "$cons" "$last" 90 ||
    g_fail "the group consumer did not reach offset $last within 90s (at $(max_read "$cons")): $(grep -v record_data "$cons" | tail -n 3) $(tail -n 3 "$cons.err")"
# Let the commit of the last batch and a few --describe samples land.
sleep 3
stop_vconsumer "$cons_pid"
grep -q '"shutdown_complete"' "$cons" || log "note: consumer 1 did not report shutdown_complete"
kill_tree "$sampler_pid"
wait "$sampler_pid" 2>/dev/null

csum="$($PY "$E2E/vc_check.py" consumed "$cons" "$prod")" || g_fail "group consumer through two leader kills: $csum"
log "consumer 1: $csum"
committed="${csum##*last_committed=}"
((committed == last + 1)) || log "note: last commit $committed, last acked offset $last"
dsum="$($PY "$E2E/vc_check.py" describe "$samples")" || g_fail "kafka-consumer-groups --describe: $dsum"
log "describe: $dsum"

# With the consumer gone, --describe shows the last commit, or the end of
# the run of control batches after it (issue 24: no data record in between,
# checked below against the log); --list shows G.
cur="$(g_describe_offset "$G")" || g_fail "--describe after the run failed: $(tail -n 3 "$E2E_TMP/describe.err")"
[[ "$cur" =~ ^[0-9]+$ ]] && ((cur >= committed)) ||
    g_fail "--describe shows CURRENT-OFFSET '$cur', the consumer's last successful commit was $committed: $(cat "$E2E_TMP/describe.last")"
g_groups_cmd --list > "$E2E_TMP/list.out" 2> "$E2E_TMP/list.err" || g_fail "--list failed: $(tail -n 3 "$E2E_TMP/list.err")"
grep -qx "$G" "$E2E_TMP/list.out" || g_fail "--list does not show $G: $(tr '\n' ' ' < "$E2E_TMP/list.out")"

# A consumer restarted in G resumes at the committed offset.
m=300
prod2="$E2E_TMP/produced2.jsonl"
timeout 120 "$E2E_ROOT/bin/kafka-verifiable-producer.sh" --bootstrap-server "$G_BOOTSTRAP" \
    --topic "$TOPIC" --max-messages "$m" --throughput 1000 --acks -1 --value-prefix 2 \
    --producer.config "$E2E_ROOT/config/producer.properties" > "$prod2" 2> "$prod2.err" ||
    g_fail "second VerifiableProducer failed: $(tail -n 3 "$prod2.err")"
(($(acked_count "$prod2") == m)) || g_fail "only $(acked_count "$prod2") of $m records acknowledged with the quorum whole"
cons2="$E2E_TMP/consumer2.jsonl"
last2="$(max_acked "$prod2")"
vconsumer "$cons2"
cons2_pid=$VC_PID
wait_read "$cons2" "$last2" 90 ||
    g_fail "the restarted consumer did not reach offset $last2 within 90s: $(grep -v record_data "$cons2" | tail -n 3) $(tail -n 3 "$cons2.err")"
sleep 1
stop_vconsumer "$cons2_pid"
# The data records of the log (kcat skips control batches such as the
# commits themselves) tell a control batch at the committed offset from a
# skipped record.
consume_all "${ports[0]}" "$E2E_TMP/all.txt"
if ((cur != committed)); then
    ! awk -F'\t' -v a="$committed" -v b="$cur" '$1 >= a && $1 < b { f = 1 } END { exit !f }' \
        "$E2E_TMP/all.txt" ||
        g_fail "--describe showed CURRENT-OFFSET $cur for the last commit $committed, with data records between"
    log "--describe showed $cur for the last commit $committed: the end of the run of control batches after it"
fi
rsum="$($PY "$E2E/vc_check.py" resume "$cons2" "$committed" "$prod2" "$E2E_TMP/all.txt")" ||
    g_fail "restart in $G: $rsum"
log "consumer 2: $rsum"

# The console consumer in a new group reads N records from the beginning.
N=500
timeout 120 env KQ_TOOLS_LOG_LEVEL=error "$E2E_ROOT/bin/kafka-console-consumer.sh" \
    --bootstrap-server "$G_BOOTSTRAP" --group "$G2" --topic "$TOPIC" --from-beginning \
    --max-messages "$N" --timeout-ms 60000 > "$E2E_TMP/console.txt" 2> "$E2E_TMP/console.err"
rc=$?
got="$(wc -l < "$E2E_TMP/console.txt")"
[[ $rc -eq 0 && "$got" -eq $N ]] ||
    g_fail "console consumer --group $G2: exit $rc, $got of $N records: $(tail -n 3 "$E2E_TMP/console.err")"
head -n "$N" "$E2E_TMP/all.txt" | cut -f2- | cmp -s - "$E2E_TMP/console.txt" ||
    g_fail "console consumer --group $G2 read other values than the first $N of the log"
c2="$(g_describe_offset "$G2")" || g_fail "--describe $G2 failed: $(tail -n 3 "$E2E_TMP/describe.err")"
[[ "$c2" =~ ^[0-9]+$ ]] || g_fail "--describe $G2 shows no committed offset: $(cat "$E2E_TMP/describe.last")"

pass "2 leader kills under a group consumer: $csum; $dsum; restart: $rsum; console --group read $N (committed $c2)"
