#!/usr/bin/env bash
# The cost of TLS (issue 9): Kafka's producer-perf-test against a fresh
# three-node quorum on loopback, PLAINTEXT against SSL, one after the other
# on the same machine. Both quorums are laid out like tests/e2e/tls_lib.sh
# (a CLIENT and a CONTROLLER listener per node, controller.listener.names=
# CONTROLLER); the SSL one has TLS on both listeners, mutual TLS between the
# voters (ssl.client.auth=required on the controller listener, voters proven
# by controller.quorum.voter.principals) and a client over SSL with a PEM
# truststore. Certificates come from tests/e2e/gen_certs.sh.
#
#   scripts/bench-tls.sh [--records-small N] [--records-large N] [--runs K]
#                        [--port BASE]
#
# Defaults: 200000 records of 100 bytes, 60000 records of 1024 bytes, 3
# measured runs per size after one warm-up run of the same size, acks=all,
# linger.ms=1 (config/producer.properties); client listeners on BASE..BASE+2,
# controller listeners on BASE+10..BASE+12 (BASE 36400). Before every run
# the leader must report all voters' log end offsets at the high watermark.
# Prints a Markdown table (medians, min-max of records/s, SSL/PLAINTEXT
# ratio) and the CPU used by the three servers and by the client during the
# measured runs. Environment: KQ_SERVER_BIN (default build/raft-server).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmdline="scripts/bench-tls.sh"
(($# == 0)) || cmdline+="$(printf ' %q' "$@")"
small=200000
large=60000
runs=3
base=36400
while [[ $# -gt 0 ]]; do
    case "$1" in
        --records-small) small="$2"; shift 2 ;;
        --records-large) large="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "bench-tls: unknown argument $1" >&2; exit 1 ;;
    esac
done
for v in "$small" "$large" "$runs" "$base"; do
    [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "bench-tls: $v is not a positive number" >&2; exit 1; }
done

server_bin="${KQ_SERVER_BIN:-$root/build/raft-server}"
PY=/usr/bin/python3
QPROBE="$root/tests/e2e/quorum_probe.py"
[[ -x "$server_bin" ]] || { echo "bench-tls: $server_bin not built (cmake --build build --target raft-server)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench-tls: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
"$root/scripts/fetch-kafka-tools.sh" > /dev/null
hz="$(getconf CLK_TCK)"
cbase=$((base + 10))

tmp="$(mktemp -d /tmp/kq-bench-tls.XXXXXX)"
server_pids=()
client_pid=""

kill_tree() {
    local c
    for c in $(pgrep -P "$1" 2>/dev/null); do
        kill_tree "$c"
    done
    kill -9 "$1" 2>/dev/null || true
}

stop_servers() {
    local p i
    for p in "${server_pids[@]}"; do
        kill -TERM "$p" 2>/dev/null || true
    done
    for p in "${server_pids[@]}"; do
        for ((i = 0; i < 50; i++)); do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    server_pids=()
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [[ -n "$client_pid" ]]; then
        kill_tree "$client_pid"
        wait "$client_pid" 2>/dev/null || true
    fi
    stop_servers
    rm -rf "$tmp"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "bench-tls: $*" >&2; }
die() {
    say "$*"
    local f
    for f in "$tmp"/n?.log; do
        [[ -f "$f" ]] || continue
        echo "--- last lines of $(basename "$f")" >&2
        tail -n 10 "$f" >&2
    done
    exit 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

for ((i = 0; i < 3; i++)); do
    for p in $((base + i)) $((cbase + i)); do
        if port_in_use "$p"; then
            die "port $p is in use (choose another base with --port)"
        fi
    done
done

say "certificates (tests/e2e/gen_certs.sh)"
certs="$tmp/certs"
sh "$root/tests/e2e/gen_certs.sh" "$certs" > "$tmp/gen_certs.log" 2>&1 ||
    die "gen_certs.sh failed: $(tail -n 3 "$tmp/gen_certs.log")"

bootstrap="localhost:$base,localhost:$((base + 1)),localhost:$((base + 2))"
addrs=("localhost:$base" "localhost:$((base + 1))" "localhost:$((base + 2))")

# Client settings: config/producer.properties (acks=all, linger.ms=1) on
# both sides, plus TLS with a PEM truststore for SSL.
for proto in PLAINTEXT SSL; do
    f="$tmp/client-$proto.properties"
    grep -Ev '^[[:space:]]*(#|$)' "$root/config/producer.properties" > "$f"
    echo "bootstrap.servers=$bootstrap" >> "$f"
    if [[ "$proto" == SSL ]]; then
        cat >> "$f" <<EOF
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=$certs/ca.crt
EOF
    fi
done

# quorum_config <PLAINTEXT|SSL>: n1..n3 as tls_lib.sh's tls_quorum_config
# (node 2 with a PKCS#12 keystore, the others PEM), or the same listeners
# mapped to PLAINTEXT.
quorum_config() {
    local proto=$1 i voters=""
    for i in 1 2 3; do
        voters+="${voters:+,}$i@localhost:$((cbase + i - 1))"
    done
    for i in 1 2 3; do
        {
            echo "node.id=$i"
            echo "listeners=CLIENT://localhost:$((base + i - 1)),CONTROLLER://localhost:$((cbase + i - 1))"
            echo "listener.security.protocol.map=CLIENT:$proto,CONTROLLER:$proto"
            echo "controller.listener.names=CONTROLLER"
            echo "controller.quorum.voters=$voters"
            echo "log.dirs=$tmp/data$i"
            echo "verbose=false"
            if [[ "$proto" == SSL ]]; then
                if ((i == 2)); then
                    echo "ssl.keystore.type=PKCS12"
                    echo "ssl.keystore.location=$certs/node$i.p12"
                    echo "ssl.keystore.password=storepass"
                else
                    echo "ssl.keystore.location=$certs/node$i.pem"
                fi
                echo "ssl.truststore.location=$certs/ca.crt"
                echo "listener.name.controller.ssl.client.auth=required"
                echo 'ssl.principal.mapping.rules=RULE:^CN=([^,]*),OU=quorum,.*$/$1/,DEFAULT'
                echo "controller.quorum.voter.principals=1:User:node1,2:User:node2,3:User:node3"
            fi
        } > "$tmp/n$i.properties"
    done
}

probe() { # quorum_probe.py speaks TLS when KQ_TLS_CA is set
    if [[ "$proto" == SSL ]]; then
        KQ_TLS_CA="$certs/ca.crt" "$PY" "$QPROBE" "$@"
    else
        "$PY" "$QPROBE" "$@"
    fi
}

start_quorum() {
    local i t
    rm -rf "$tmp"/data? "$tmp"/n?.log
    quorum_config "$proto"
    for i in 1 2 3; do
        "$server_bin" "$tmp/n$i.properties" > "$tmp/n$i.log" 2>&1 &
        server_pids+=($!)
    done
    for i in 1 2 3; do
        for ((t = 0; ; t++)); do
            kill -0 "${server_pids[i - 1]}" 2>/dev/null || die "n$i exited during startup"
            port_in_use $((base + i - 1)) && port_in_use $((cbase + i - 1)) && break
            ((t < 300)) || die "n$i does not listen within 30 s"
            sleep 0.1
        done
    done
    for ((t = 0; ; t++)); do
        read -r leader _ < <(probe --leader "${addrs[@]}" 2>/dev/null || true) || leader=-1
        [[ -n "$leader" && "$leader" != -1 ]] && break
        ((t < 300)) || die "no leader within 60 s"
        sleep 0.2
    done
    # The listeners really are what they are meant to be.
    for i in 1 2 3; do
        if [[ "$proto" == SSL ]]; then
            grep -q "listener CONTROLLER on localhost:$((cbase + i - 1)) (SSL, voters proven by certificate)" "$tmp/n$i.log" ||
                die "n$i does not report a mutual-TLS controller listener"
            grep -q "listener CLIENT on localhost:$((base + i - 1)) (SSL)" "$tmp/n$i.log" ||
                die "n$i does not report an SSL client listener"
        else
            grep -q "listener CLIENT on localhost:$((base + i - 1)) (PLAINTEXT)" "$tmp/n$i.log" ||
                die "n$i does not report a PLAINTEXT client listener"
        fi
    done
    say "$proto quorum up, leader n$leader"
}

wait_synced() {
    probe --wait-synced 120 "${addrs[@]}" > /dev/null 2> "$tmp/synced.err" ||
        die "voters not in sync: $(tail -n 1 "$tmp/synced.err")"
    # Who leads now (for the leader's CPU share).
    read -r leader _ < <(probe --leader "${addrs[@]}" 2>/dev/null || true) || leader=-1
    [[ "$leader" =~ ^[123]$ ]] || die "no leader after sync"
}

# utime+stime in clock ticks of pid $1 (the fields after the ")" of comm).
cpu_ticks() {
    local s
    s="$(< "/proc/$1/stat")" || die "cannot read /proc/$1/stat"
    s="${s##*) }"
    # shellcheck disable=SC2086
    set -- $s
    echo $((${12} + ${13}))
}

# perf_run <records> <size> <label>: one producer-perf-test; sets
# perf_line (the summary line), wall_s, client_cpu (%), srv_ticks (sum of
# the three servers) and leader_ticks.
perf_run() {
    local n=$1 size=$2 label=$3 out="$tmp/perf.out" rc=0 i t0 t1 sent
    local before=() after=()
    for i in 0 1 2; do before[i]="$(cpu_ticks "${server_pids[i]}")"; done
    t0="$(date +%s%N)"
    /usr/bin/time -f '%P' -o "$tmp/time.out" \
        "$root/bin/kafka-producer-perf-test.sh" --topic __cluster_metadata \
        --num-records "$n" --throughput -1 --record-size "$size" \
        --producer.config "$tmp/client-$proto.properties" > "$out" 2> "$out.err" &
    client_pid=$!
    wait "$client_pid" || rc=$?
    client_pid=""
    t1="$(date +%s%N)"
    for i in 0 1 2; do
        kill -0 "${server_pids[i]}" 2>/dev/null || die "$label: n$((i + 1)) died"
        after[i]="$(cpu_ticks "${server_pids[i]}")"
    done
    ((rc == 0)) || die "$label: perf-test exited $rc: $(tail -n 3 "$out.err")"
    perf_line="$(grep -E '^[0-9]+ records sent, .*99\.9th' "$out" | tail -n 1)" ||
        die "$label: no summary line: $(tail -n 3 "$out")"
    sent="${perf_line%% *}"
    ((sent == n)) || die "$label: $sent of $n records sent"
    if grep -qE 'Exception|ERROR' "$out" "$out.err"; then
        die "$label: errors: $(grep -hE 'Exception|ERROR' "$out" "$out.err" | head -n 3)"
    fi
    wall_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
    client_cpu="$(tail -n 1 "$tmp/time.out" | tr -d '%')"
    srv_ticks=0
    for i in 0 1 2; do srv_ticks=$((srv_ticks + after[i] - before[i])); done
    leader_ticks=$((after[leader - 1] - before[leader - 1]))
}

# "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max
# latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."
# -> "R M A P99"
parse() {
    sed -nE 's/^[0-9]+ records sent, ([0-9.]+) records\/sec \(([0-9.]+) MB\/sec\), ([0-9.]+) ms avg latency, .* ([0-9.]+) ms 99th,.*/\1 \2 \3 \4/p' <<< "$1"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { printf '%s\n' "$@" | sort -g | head -n 1; }
maximum() { printf '%s\n' "$@" | sort -g | tail -n 1; }
fmt() { awk -v v="$1" -v d="${2:-0}" 'BEGIN { printf "%.*f", d, v }'; }

declare -A med_rps=() row=() cpu_row=()
started=$SECONDS
for proto in PLAINTEXT SSL; do
    start_quorum
    wait_synced
    if [[ "$proto" == SSL ]]; then
        tls_info="$(openssl s_client -connect "localhost:$base" -CAfile "$certs/ca.crt" \
            < /dev/null 2> /dev/null | sed -nE 's/^New, (TLS[^,]*), Cipher is (.*)/\1 \2/p' | head -n 1 || true)"
    fi
    for size in 100 1024; do
        if ((size == 100)); then n=$small; else n=$large; fi
        say "$proto ${size} B: warm-up, $n records"
        perf_run "$n" "$size" "$proto $size B warm-up"
        rps=() mbs=() avg=() p99=() srv=() lead=() cli=() uspr=()
        for ((r = 1; r <= runs; r++)); do
            wait_synced
            perf_run "$n" "$size" "$proto $size B run $r"
            read -r a b c d <<< "$(parse "$perf_line")"
            [[ -n "$d" ]] || die "cannot parse: $perf_line"
            rps+=("$a") mbs+=("$b") avg+=("$c") p99+=("$d")
            srv+=("$(awk -v t="$srv_ticks" -v hz="$hz" -v w="$wall_s" 'BEGIN { print 100 * t / hz / w }')")
            lead+=("$(awk -v t="$leader_ticks" -v hz="$hz" -v w="$wall_s" 'BEGIN { print 100 * t / hz / w }')")
            uspr+=("$(awk -v t="$srv_ticks" -v hz="$hz" -v n="$n" 'BEGIN { print 1e6 * t / hz / n }')")
            cli+=("$client_cpu")
            say "  run $r: $a rec/s, $b MB/s, avg $c ms, p99 $d ms; wall ${wall_s} s, servers $(fmt "${srv[-1]}")% (leader $(fmt "${lead[-1]}")%), client ${client_cpu}%"
        done
        key="$proto/$size"
        med_rps[$key]="$(median "${rps[@]}")"
        row[$key]="| $proto | $size B | $(fmt "${med_rps[$key]}") ($(fmt "$(minimum "${rps[@]}")")–$(fmt "$(maximum "${rps[@]}")")) | $(fmt "$(median "${mbs[@]}")" 2) | $(fmt "$(median "${avg[@]}")" 2) | $(fmt "$(median "${p99[@]}")") |"
        cpu_row[$key]="| $proto | $size B | $(fmt "$(median "${srv[@]}")") ($(fmt "$(minimum "${srv[@]}")")–$(fmt "$(maximum "${srv[@]}")")) | $(fmt "$(median "${lead[@]}")") | $(fmt "$(median "${uspr[@]}")" 1) | $(fmt "$(median "${cli[@]}")") ($(fmt "$(minimum "${cli[@]}")")–$(fmt "$(maximum "${cli[@]}")")) |"
    done
    stop_servers
done
say "done in $((SECONDS - started)) s"

cpu_model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
aes=no
grep -qw aes /proc/cpuinfo && aes=yes
echo
echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); command: \`$cmdline\`"
echo
echo "Three voters on loopback, one machine ($(nproc) cores, $cpu_model, AES-NI $aes);" \
    "$(openssl version | cut -d' ' -f1-2); $(java -version 2>&1 | head -n 1 | tr -d '"')." \
    "producer-perf-test (Kafka 4.0.0 tools) to __cluster_metadata, --throughput -1," \
    "acks=all, linger.ms=1; $small x 100 B and $large x 1024 B records; one warm-up run," \
    "then the median of $runs runs. SSL: TLS on the client and controller listeners," \
    "mutual TLS between the voters; openssl s_client to a client listener negotiates ${tls_info:-an unknown cipher}."
echo
echo "| protocol | record size | records/s (min–max) | MB/s | avg latency ms | p99 ms | SSL/PLAINTEXT records/s |"
echo "|---|---|---|---|---|---|---|"
for size in 100 1024; do
    ratio="$(awk -v s="${med_rps[SSL/$size]}" -v p="${med_rps[PLAINTEXT/$size]}" 'BEGIN { printf "%.2f", s / p }')"
    echo "${row[PLAINTEXT/$size]} — |"
    echo "${row[SSL/$size]} $ratio |"
done
echo
echo "CPU during the measured runs (medians; 100% = one core of $(nproc)): the three raft-server" \
    "processes' utime+stime from /proc/<pid>/stat over the wall time of each perf-test run" \
    "(JVM start-up included), the leader's share of it, server CPU per record, and the" \
    "perf-test JVM's own CPU (/usr/bin/time %P)."
echo
echo "| protocol | record size | servers CPU % (min–max) | leader CPU % | servers CPU µs/record | client CPU % (min–max) |"
echo "|---|---|---|---|---|---|"
for size in 100 1024; do
    echo "${cpu_row[PLAINTEXT/$size]}"
    echo "${cpu_row[SSL/$size]}"
done
