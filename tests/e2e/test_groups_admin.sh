#!/usr/bin/env bash
# kafka-consumer-groups.sh (Kafka 4.4.0's tool) on three nodes (one with
# KQ_SKIP_MULTINODE=1), with offsets.retention.minutes=1 and
# offsets.retention.check.interval.ms=1000 (issue 24). Checks, each one
# recorded in a table (any FAIL fails the test):
#  - reset:   --reset-offsets --to-offset 5 --execute on a new group X (a
#             standalone commit), later --to-earliest and --to-offset 7 on an
#             empty group: --describe shows what was set;
#  - members: two Java 4.4 groups (tests/e2e/java/GroupClient.java), A with
#             group.protocol=consumer and B classic, two members each,
#             committing after every poll: --describe --members --verbose
#             shows both members with their ids and the partition held by one;
#  - lag0:    once they have read everything, --describe --offsets shows
#             CURRENT-OFFSET = LOG-END-OFFSET, LAG 0, for both;
#  - delete:  --delete of the live group A fails with NON_EMPTY_GROUP (the
#             tool's GroupNotEmptyException); once the members left it
#             succeeds, and --list and --describe no longer know A;
#  - delete-offsets: --delete-offsets --topic of the live group B fails with
#             GROUP_SUBSCRIBED_TO_TOPIC; once empty it succeeds and B shows no
#             committed offset;
#  - librdkafka: confluent-kafka 2.16 (librdkafka 2.16) with
#             group.protocol=consumer consumes a batch in group L, commits,
#             and a second run resumes exactly at the commit;
#  - expiry:  X's offset is still there 20-50 s after its commit and is gone
#             (the group with it) within 150 s: retention 1 minute.
# KQ_GROUPS_KAFKA=1 runs the same against three Apache Kafka 4.4.0 brokers;
# KQ_GROUPS_PROTOCOLS=classic makes A a classic group too (diagnosis).
set -uo pipefail
export KQ_KAFKA_TOOLS_VERSION=4.4.0
[[ "${KQ_GROUPS_KAFKA:-0}" == 1 ]] && export KQ_KAFKA_BROKER_VERSION=4.4.0
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/groups_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/java_lib.sh"

E2E="$E2E_ROOT/tests/e2e"
EV="$E2E/group_events.py"
NODES=3
[[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]] && NODES=1
D="$E2E_TMP/adm"
mkdir -p "$D"
RETENTION="offsets.retention.minutes=1
offsets.retention.check.interval.ms=1000"
G_KAFKA_EXTRA_PROPS="$RETENTION"
e2e_node_props() { echo "$RETENTION"; }
A_PROTOCOL=consumer
[[ " ${KQ_GROUPS_PROTOCOLS:-consumer} " == *" consumer "* ]] || A_PROTOCOL=classic

command -v kcat > /dev/null || fail "kcat missing (scripts/install-deps.sh --test)"
JCP="$(java_client_classpath "$E2E_ROOT" GroupClient)" || fail "cannot compile tests/e2e/java/GroupClient.java against kafka-clients 4.4.0"
CK_PY="$(g_confluent_python)" || fail "cannot install confluent-kafka from PyPI into $G_CACHE/venv-confluent"

checks=(reset members lag0 delete delete-offsets librdkafka expiry)
declare -A M=()
failures=()
ok() { [[ "${M[$1]:-}" == FAIL ]] || M[$1]=ok; }
bad() {
    M[$1]=FAIL
    failures+=("$1: $2")
    log "FAILED $1: $2"
}
errtail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-400; }

groups_start "$NODES" "$(pick_ports 37600 "$NODES")" || fail "no free ports"
log "$NODES node(s) $([[ "$G_KAFKA" == 1 ]] && echo "of Apache Kafka $KQ_KAFKA_BROKER_VERSION" || echo "of ours"): $G_BOOTSTRAP, topic $TOPIC"

# col <file> <group> <column>: that column of GROUP's row for TOPIC-0 in
# --describe output (the columns found by the header).
col() {
    awk -v g="$2" -v c="$3" -v t="$TOPIC" '
        /CURRENT-OFFSET/ { delete h; for (i = 1; i <= NF; i++) h[$i] = i; next }
        h["GROUP"] && $h["GROUP"] == g && $h["TOPIC"] == t && $h["PARTITION"] == 0 { print $h[c]; exit }' "$1"
}
# gcmd <out> <args...>: the tool's stdout in <out>, stderr in <out>.err.
gcmd() {
    local o=$1
    shift
    g_groups_cmd "$@" > "$o" 2> "$o.err"
}

# --- X: a standalone commit, left to expire --------------------------------
for ((i = 0; i < 200; i++)); do echo "adm-$i"; done > "$D/values"
timeout 60 kcat -P -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -X acks=all < "$D/values" 2> "$D/kcat.err" ||
    fail "kcat cannot produce: $(errtail "$D/kcat.err")"
gcmd "$D/resetx" --reset-offsets --group adm-x --topic "$TOPIC" --to-offset 5 --execute
x_at=$SECONDS
gcmd "$D/descx" --describe --offsets --group adm-x
[[ "$(col "$D/descx" adm-x CURRENT-OFFSET)" == 5 ]] && ok reset ||
    bad reset "--to-offset 5 on new group adm-x: --describe shows '$(col "$D/descx" adm-x CURRENT-OFFSET)': $(errtail "$D/resetx") $(errtail "$D/resetx.err") $(errtail "$D/descx.err")"

# --- A (consumer protocol) and B (classic), live ------------------------------
java -Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.err \
    -cp "$JCP" GroupClient members boot="$G_BOOTSTRAP" topic="$TOPIC" \
    groups=adm-a:$A_PROTOCOL:2,adm-b:classic:2 commit=sync stop="$D/stop" max_s=300 \
    > "$D/events" 2> "$D/client.err" &
cpid=$!
# The offset of the last record (kcat lists data records only).
last="$(timeout 60 kcat -C -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -o beginning -e -f '%o\n' 2>/dev/null | tail -n 1)"
[[ -n "$last" ]] || fail "kcat cannot read $TOPIC back"
live=0
for ((t = 0; t < 200; t++)); do
    if $PY "$EV" stable "$D/events" adm-a adm-b && $PY "$EV" caught-up "$D/events" "$last" adm-a adm-b; then
        live=1
        break
    fi
    kill -0 "$cpid" 2>/dev/null || break
    # A fatal error (the protocol not served): no use waiting.
    grep -q $'^error\t.*UnsupportedVersion' "$D/events" && break
    sleep 0.3
done
# X's offset is still there (retention is 1 minute; checked once more at the end).
x_present() {
    local age=$((SECONDS - x_at))
    ((age >= 20)) || sleep $((20 - age))
    gcmd "$D/descx2" --describe --offsets --group adm-x
    age=$((SECONDS - x_at))
    if ((age > 50)); then
        log "note: adm-x's presence not checked: already $age s after its commit"
    elif [[ "$(col "$D/descx2" adm-x CURRENT-OFFSET)" != 5 ]]; then
        bad expiry "adm-x's offset 5 is not there $age s after its commit: $(errtail "$D/descx2") $(errtail "$D/descx2.err")"
    fi
}
x_present
if ((live == 0)); then
    for g in members lag0 delete delete-offsets; do
        bad $g "groups adm-a ($A_PROTOCOL) and adm-b (classic) did not consume to offset $last within 60 s: $(grep -m2 -P '^error\t' "$D/events" | cut -f3- | tr '\n' ' ' | cut -c1-300)"
    done
else
    sleep 1
    gcmd "$D/members" --describe --members --verbose --group adm-a --group adm-b ||
        bad members "the tool failed: $(errtail "$D/members.err")"
    for g in adm-a adm-b; do
        ids="$($PY "$EV" describe-members "$D/members" "$g")"
        n="$(wc -w <<< "$ids")"
        held="$(awk -v g="$g" -v t="$TOPIC:0" '$1 == g && index($0, t) { n++ } END { print n + 0 }' "$D/members")"
        if [[ "$n" == 2 && "$held" == 1 ]]; then
            ok members
            log "members of $g: $ids"
        else
            bad members "$g: $n member id(s) ($ids), $held holding $TOPIC:0: $(tr -s ' ' < "$D/members" | tr '\n' '|')"
        fi
    done
    gcmd "$D/offsets" --describe --offsets --group adm-a --group adm-b ||
        bad lag0 "the tool failed: $(errtail "$D/offsets.err")"
    for g in adm-a adm-b; do
        cur="$(col "$D/offsets" "$g" CURRENT-OFFSET)" leo="$(col "$D/offsets" "$g" LOG-END-OFFSET)" lag="$(col "$D/offsets" "$g" LAG)"
        if [[ -n "$cur" && "$cur" == "$leo" && "$lag" == 0 ]]; then
            ok lag0
            log "$g caught up: CURRENT-OFFSET $cur LOG-END-OFFSET $leo LAG $lag"
        else
            bad lag0 "$g caught up (read offset $last): CURRENT-OFFSET '$cur' LOG-END-OFFSET '$leo' LAG '$lag'"
        fi
    done
    gcmd "$D/del1" --delete --group adm-a
    if grep -qiE 'GroupNotEmpty|not empty' "$D/del1" "$D/del1.err"; then
        ok delete
    else
        bad delete "--delete of live adm-a: no NON_EMPTY_GROUP: $(errtail "$D/del1") $(errtail "$D/del1.err")"
    fi
    gcmd "$D/delo1" --delete-offsets --group adm-b --topic "$TOPIC"
    if grep -qiE 'GroupSubscribedToTopic|subscribed to' "$D/delo1" "$D/delo1.err"; then
        ok delete-offsets
    else
        bad delete-offsets "--delete-offsets of live adm-b: no GROUP_SUBSCRIBED_TO_TOPIC: $(errtail "$D/delo1") $(errtail "$D/delo1.err")"
    fi
fi
touch "$D/stop"
for ((t = 0; t < 300; t++)); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
kill_tree "$cpid"
wait "$cpid" 2>/dev/null

# --- the groups empty ---------------------------------------------------------
gcmd "$D/del2" --delete --group adm-a
if grep -qi 'successful' "$D/del2"; then
    gcmd "$D/list" --list
    gcmd "$D/desca" --describe --offsets --group adm-a
    if grep -qx adm-a "$D/list"; then
        bad delete "adm-a still listed after its deletion: $(tr '\n' ' ' < "$D/list")"
    elif ! grep -qiE 'does not exist|GroupIdNotFound' "$D/desca" "$D/desca.err"; then
        bad delete "--describe of deleted adm-a: $(errtail "$D/desca") $(errtail "$D/desca.err")"
    else
        ok delete
    fi
else
    bad delete "--delete of empty adm-a: $(errtail "$D/del2") $(errtail "$D/del2.err")"
fi
gcmd "$D/delo2" --delete-offsets --group adm-b --topic "$TOPIC"
gcmd "$D/descb" --describe --offsets --group adm-b
if ! grep -qiE 'successful|deleted' "$D/delo2" || grep -qi error "$D/delo2" "$D/delo2.err"; then
    bad delete-offsets "--delete-offsets of empty adm-b: $(errtail "$D/delo2") $(errtail "$D/delo2.err")"
elif [[ "$(col "$D/descb" adm-b CURRENT-OFFSET)" =~ ^[0-9]+$ ]]; then
    bad delete-offsets "adm-b still shows offset $(col "$D/descb" adm-b CURRENT-OFFSET) after --delete-offsets"
else
    ok delete-offsets
fi
gcmd "$D/reset1" --reset-offsets --group adm-b --topic "$TOPIC" --to-earliest --execute
gcmd "$D/descb1" --describe --offsets --group adm-b
earliest="$(timeout 30 kcat -Q -b "$G_BOOTSTRAP" -t "$TOPIC:0:-2" 2>/dev/null | sed -n 's/.*offset \([0-9]*\).*/\1/p')"
[[ "$(col "$D/descb1" adm-b CURRENT-OFFSET)" == "${earliest:-0}" ]] ||
    bad reset "--to-earliest on adm-b: '$(col "$D/descb1" adm-b CURRENT-OFFSET)' (log start ${earliest:-?}): $(errtail "$D/reset1") $(errtail "$D/reset1.err")"
gcmd "$D/reset2" --reset-offsets --group adm-b --topic "$TOPIC" --to-offset 7 --execute
gcmd "$D/descb2" --describe --offsets --group adm-b
[[ "$(col "$D/descb2" adm-b CURRENT-OFFSET)" == 7 ]] && ok reset ||
    bad reset "--to-offset 7 on adm-b: '$(col "$D/descb2" adm-b CURRENT-OFFSET)': $(errtail "$D/reset2") $(errtail "$D/reset2.err")"

# --- librdkafka with group.protocol=consumer ------------------------------------
lk() { # <prefix> <run>
    timeout 90 "$CK_PY" "$E2E/group_client.py" confluent produce "$G_BOOTSTRAP" "$TOPIC" "$1" 100 \
        > "$D/lp$2" 2> "$D/lp$2.err" || return 1
    timeout 120 "$CK_PY" "$E2E/group_client.py" confluent-consumer consume "$G_BOOTSTRAP" "$TOPIC" \
        adm-l "$1" 100 60 > "$D/lr$2" 2> "$D/lr$2.err"
}
# The committed offset read back may be the end of the run of control
# batches after the last record read (lag 0, issue 24): checked against the
# log's data offsets.
if ! lk lk1 1; then
    bad librdkafka "run 1 failed: $(errtail "$D/lp1.err") $(errtail "$D/lr1.err")"
elif ! timeout 60 kcat -C -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -o beginning -e -f '%o\t%s\n' \
        > "$D/log1.txt" 2> "$D/log1.err"; then
    bad librdkafka "kcat cannot read the log: $(errtail "$D/log1.err")"
elif ! s1="$($PY "$E2E/group_check.py" "$D/lr1" "$D/lp1" lk1 --data-offsets "$D/log1.txt")"; then
    bad librdkafka "run 1: $s1; $(errtail "$D/lr1.err")"
else
    c1="$(sed -n 's/^committed\t//p' "$D/lr1" | tail -n 1)"
    if ! lk lk2 2; then
        bad librdkafka "run 2 failed: $(errtail "$D/lp2.err") $(errtail "$D/lr2.err")"
    elif ! timeout 60 kcat -C -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -o beginning -e -f '%o\t%s\n' \
            > "$D/log.txt" 2> "$D/log.err"; then
        bad librdkafka "kcat cannot read the log: $(errtail "$D/log.err")"
    elif ! s2="$($PY "$E2E/group_check.py" "$D/lr2" "$D/lp2" lk2 --start "$c1" --data-offsets "$D/log.txt")"; then
        bad librdkafka "run 2 (resume at $c1): $s2"
    else
        ok librdkafka
        log "librdkafka $("$CK_PY" -c 'import confluent_kafka as c; print(c.libversion()[0])') group.protocol=consumer: run 1: $s1; run 2: $s2"
    fi
fi

# --- X expires ---------------------------------------------------------------------
if [[ "${M[expiry]:-}" != FAIL ]]; then
    gone=0
    while ((SECONDS - x_at < 150)); do
        gcmd "$D/descx3" --describe --offsets --group adm-x
        if grep -qiE 'does not exist|GroupIdNotFound' "$D/descx3" "$D/descx3.err"; then
            gone=1
            break
        fi
        sleep 3
    done
    ((gone)) && { ok expiry; log "adm-x expired: gone $((SECONDS - x_at)) s after its commit"; } ||
        bad expiry "adm-x still there 150 s after its commit (offsets.retention.minutes=1): $(errtail "$D/descx3") $(errtail "$D/descx3.err")"
fi

{
    for c in "${checks[@]}"; do printf '%-16s %s\n' "$c" "${M[$c]:--}"; done
} >&2
for c in "${checks[@]}"; do [[ -n "${M[$c]:-}" ]] || failures+=("$c: not run"); done
((${#failures[@]} == 0)) || fail "${#failures[@]} failures: ${failures[*]}"
pass "kafka-consumer-groups.sh 4.4 on $NODES node(s): ${checks[*]}"
