#!/usr/bin/env bash
# Consumer groups with four client libraries, on one node and on three:
# librdkafka (kcat -G), confluent-kafka-python (PyPI, subscribe()), franz-go
# (tests/e2e/go/groupclient) and kafka-python (Debian python3-kafka,
# group_id). For each: produce a batch of unique values, consume it in a new
# group (every value exactly once), commit, check the committed offset
# (read back by the client and, independently, by a plain OffsetFetch);
# produce a second batch and consume again in the same group: the run must
# start exactly at the committed offset and read the second batch only.
# KQ_GROUPS_KAFKA=1 runs the same against Apache Kafka brokers (see
# groups_lib.sh); KQ_GROUPS_CLIENTS limits the clients (default all four).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/groups_lib.sh"

E2E="$E2E_ROOT/tests/e2e"
K=${KQ_GROUPS_RECORDS:-300}
clients=(${KQ_GROUPS_CLIENTS:-kcat confluent franz kafka-python})

# --- the clients (installed/built into .cache on first use) ---------------
command -v kcat > /dev/null || fail "kcat missing (scripts/install-deps.sh --test)"
$PY -c 'import kafka' 2>/dev/null || fail "kafka-python missing ($PY; apt-get install python3-kafka)"
CK_PY="$(g_confluent_python)" || fail "cannot install confluent-kafka from PyPI into $G_CACHE/venv-confluent"
FRANZ="$(g_franz_client)" || fail "cannot build tests/e2e/go/groupclient (franz-go)"
log "confluent-kafka: $("$CK_PY" -c 'import confluent_kafka as c; print(c.version(), "librdkafka", c.libversion()[0])')"
log "kcat: $(dpkg-query -W -f '${Version}' kcat 2>/dev/null), librdkafka $(dpkg-query -W -f '${Version}' librdkafka1 2>/dev/null)"

# client_produce <client> <prefix> <count> <out>: "ack\toffset\tvalue" lines
# (kcat: bare values, it reports no offsets).
client_produce() {
    local c=$1 prefix=$2 n=$3 outf=$4 i
    case "$c" in
        kcat)
            for ((i = 0; i < n; i++)); do echo "$prefix-$i"; done > "$outf"
            timeout 60 kcat -P -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -X acks=all \
                < "$outf" 2> "$outf.err" || return 1
            ! grep -qi 'error\|fail' "$outf.err"
            ;;
        confluent) timeout 90 "$CK_PY" "$E2E/group_client.py" confluent produce \
            "$G_BOOTSTRAP" "$TOPIC" "$prefix" "$n" > "$outf" 2> "$outf.err" ;;
        kafka-python) timeout 90 $PY "$E2E/group_client.py" kafka-python produce \
            "$G_BOOTSTRAP" "$TOPIC" "$prefix" "$n" > "$outf" 2> "$outf.err" ;;
        franz) timeout 90 "$FRANZ" produce "$G_BOOTSTRAP" "$TOPIC" "$prefix" "$n" \
            > "$outf" 2> "$outf.err" ;;
    esac
}

# client_consume <client> <group> <prefix> <count> <out>
client_consume() {
    local c=$1 group=$2 prefix=$3 n=$4 outf=$5 rc
    case "$c" in
        kcat)
            # Balanced consumer; -e: exit once every assigned partition is
            # at its end; the offsets stored are committed on close.
            timeout 60 kcat -C -G "$group" -b "$G_BOOTSTRAP" -X auto.offset.reset=earliest \
                -X session.timeout.ms=10000 -X heartbeat.interval.ms=1000 -e \
                -f 'rec\t%o\t%s\n' "$TOPIC" > "$outf" 2> "$outf.err"
            rc=$?
            sed -n 's/.*assigned: \(.*\)/assigned\t\1/p' "$outf.err" >> "$outf"
            ((rc == 0)) || return $rc
            # kcat cannot read the committed offset back: a plain OffsetFetch.
            timeout 60 $PY "$E2E/group_client.py" kafka-python committed \
                "$G_BOOTSTRAP" "$TOPIC" "$group" >> "$outf" 2>> "$outf.err"
            ;;
        confluent) timeout 120 "$CK_PY" "$E2E/group_client.py" confluent consume \
            "$G_BOOTSTRAP" "$TOPIC" "$group" "$prefix" "$n" 60 > "$outf" 2> "$outf.err" ;;
        kafka-python) timeout 120 $PY "$E2E/group_client.py" kafka-python consume \
            "$G_BOOTSTRAP" "$TOPIC" "$group" "$prefix" "$n" 60 > "$outf" 2> "$outf.err" ;;
        franz) timeout 120 "$FRANZ" consume "$G_BOOTSTRAP" "$TOPIC" "$group" "$prefix" "$n" 60 \
            > "$outf" 2> "$outf.err" ;;
    esac
}

committed_of() { sed -n 's/^committed\t//p' "$1" | tail -n 1; }
errtail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' '; }

declare -A M=()   # M[topology/client/stage] = ok | FAIL (stage: produce consume resume)
failures=()
# bad <topology/client> <stage> <message>: records a failed stage.
bad() {
    M[$1/$2]=FAIL
    failures+=("$1/$2: $3")
    log "FAILED $1/$2: $3"
}

# one_client <topology> <client>: returns 1 at the first failed stage.
one_client() {
    local topo=$1 c=$2 d="$E2E_TMP/$1-$2" base group sum c1 c2 ctl id="$1/$2"
    mkdir -p "$d"
    base="$c-$topo"
    group="grp-$c-$topo"
    client_produce "$c" "$base-1" "$K" "$d/p1" ||
        { bad "$id" produce "produce failed: $(errtail "$d/p1.err")"; return 1; }
    [[ "$(grep -c . "$d/p1")" -eq "$K" ]] ||
        { bad "$id" produce "$(grep -c . "$d/p1") of $K records acknowledged"; return 1; }
    M[$id/produce]=ok
    log "$id: consume batch 1 in new group $group"
    client_consume "$c" "$group" "$base-1" "$K" "$d/r1" ||
        { bad "$id" consume "group consume (run 1) failed: $(errtail "$d/r1.err") $(tail -n 2 "$d/r1")"; return 1; }
    sum="$($PY "$E2E/group_check.py" "$d/r1" "$d/p1" "$base" --skip-commit)" ||
        { bad "$id" consume "run 1 (new group $group): $sum; stderr: $(errtail "$d/r1.err")"; return 1; }
    M[$id/consume]=ok
    # The data records so far (kcat skips control batches): the committed
    # offset read back may be the end of the run of control batches after
    # the last record read, its commit among them (issue 24).
    timeout 60 kcat -C -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -o beginning -e \
        -f '%o\t%s\n' > "$d/log1.txt" 2> "$d/log1.err" ||
        { bad "$id" resume "kcat cannot read the log: $(errtail "$d/log1.err")"; return 1; }
    sum="$($PY "$E2E/group_check.py" "$d/r1" "$d/p1" "$base" --data-offsets "$d/log1.txt")" ||
        { bad "$id" resume "run 1 (new group $group): $sum; stderr: $(errtail "$d/r1.err")"; return 1; }
    c1="$(committed_of "$d/r1")"
    # An independent OffsetFetch (no group membership) sees the same offset,
    # or (a client that reads back its own commit) the end of the run of
    # control batches after it: no data record in between.
    timeout 60 $PY "$E2E/group_client.py" kafka-python committed "$G_BOOTSTRAP" "$TOPIC" "$group" \
        > "$d/fetch1" 2> "$d/fetch1.err" ||
        { bad "$id" resume "OffsetFetch failed: $(errtail "$d/fetch1.err")"; return 1; }
    f1="$(committed_of "$d/fetch1")"
    [[ "$f1" == "$c1" ]] || { [[ "$f1" =~ ^[0-9]+$ ]] && ((f1 > c1)) &&
        ! awk -F'\t' -v a="$c1" -v b="$f1" '$1 >= a && $1 < b { f = 1 } END { exit !f }' "$d/log1.txt"; } ||
        { bad "$id" resume "the client committed $c1 but OffsetFetch returns $f1"; return 1; }
    c1="$f1"
    log "$id: run 1: $sum"

    client_produce "$c" "$base-2" "$K" "$d/p2" ||
        { bad "$id" resume "produce (batch 2) failed: $(errtail "$d/p2.err")"; return 1; }
    log "$id: consume batch 2 in the same group (must resume at $c1)"
    client_consume "$c" "$group" "$base-2" "$K" "$d/r2" ||
        { bad "$id" resume "group consume (run 2) failed: $(errtail "$d/r2.err") $(tail -n 2 "$d/r2")"; return 1; }
    # The data records of the log (kcat skips control batches), to tell a
    # skipped record from a control batch at the committed offset.
    timeout 60 kcat -C -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -o beginning -e \
        -f '%o\t%s\n' > "$d/log.txt" 2> "$d/log.err" ||
        { bad "$id" resume "kcat cannot read the log: $(errtail "$d/log.err")"; return 1; }
    sum="$($PY "$E2E/group_check.py" "$d/r2" "$d/p2" "$base" --start "$c1" --data-offsets "$d/log.txt")" ||
        { bad "$id" resume "run 2 (resume of $group at $c1): $sum; stderr: $(errtail "$d/r2.err")"; return 1; }
    c2="$(committed_of "$d/r2")"
    log "$id: run 2: $sum"
    ctl="$(grep -ah "^rec" "$d/r1" "$d/r2" | cut -f2 | sort -u | comm -23 - <(cut -f1 "$d/log.txt" | sort -u) | wc -l)"
    ((ctl == 0)) || log "$id: note: the client delivered $ctl control-batch records (not data) as records"
    M[$id/resume]=ok
}

topologies=(1)
[[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]] || topologies+=(3)
for topo in "${topologies[@]}"; do
    if ((topo == 1)); then
        groups_start 1 "$(pick_ports 37200 1)" || fail "no free port"
    else
        for name in "${!SERVER_PID[@]}"; do kill9_server "$name"; done
        SERVER_PID=()
        rm -rf "$E2E_TMP"/data*
        groups_start 3 "$(pick_ports 37210 3)" || fail "no free ports"
    fi
    log "topology ${topo} node(s): $G_BOOTSTRAP"
    for c in "${clients[@]}"; do
        one_client "${topo}node" "$c" || true
    done
done

# The client x feature table (stderr), then the verdict.
{
    printf '%-22s %-8s %-8s %-8s\n' "topology/client" produce consume resume
    for topo in "${topologies[@]}"; do
        for c in "${clients[@]}"; do
            id="${topo}node/$c"
            printf '%-22s %-8s %-8s %-8s\n' "$id" "${M[$id/produce]:--}" "${M[$id/consume]:--}" "${M[$id/resume]:--}"
        done
    done
} >&2
runs=$((${#topologies[@]} * ${#clients[@]}))
((${#failures[@]} == 0)) || g_fail "${#failures[@]} of $runs client runs failed: ${failures[*]}"
pass "$runs client runs (${clients[*]} on ${topologies[*]} node(s)): produce, group consume, commit, resume at the committed offset"
