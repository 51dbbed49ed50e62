#!/usr/bin/env bash
# Restart time of one raft-server node (a single voter that elects itself):
# the time from exec to serving after a clean stop (SIGTERM), for a few log
# histories. A benchmark: it prints figures and asserts none.
#
# Each restart is timed by scripts/bench/restart_probe.py, which execs the
# server and polls it every ~5 ms over raw TCP: (a) until an ApiVersions v0
# request is answered, (b) until a one-record Produce v3 with acks=-1 to
# __cluster_metadata-0 is acknowledged (the node is leader and appends).
# Before every restart the page cache is dropped (sync; echo 3 >
# /proc/sys/vm/drop_caches; needs root; the script says whether it worked),
# so the restart reads the log from the disk.
#
# Cases (kq-load writes the histories, --idempotent, --threads 2, acks=-1):
#   small   ~100 MB written, every setting at its default (1 GiB segments,
#           100 MiB retention, a snapshot every 20 MiB)
#   large   10 GB written, 16 MiB segments, default retention (100 MiB):
#           ~100 MB retained, snapshots present
#   scan    N GB written (N = 10 if the disk allows), 16 MiB segments,
#           metadata.max.retention.bytes=-1 (nothing deleted), restarted
#           with recovery-point-offset-checkpoint deleted before each start
#           (a CRC scan of every segment, as for a log without one)
#   scan+rp the same log restarted with its recovery point in place
#           (snapshots exist, so producer state is rebuilt from the latest
#           one plus the log after it, at most ~20 MiB)
#
#   scripts/bench-restart.sh [--runs 3] [--small-mb 100] [--large-gb 10]
#                            [--scan-gb N] [--record-size 1024] [--port 19391]
#                            [--cases "small large scan"] [--keep]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=3
small_mb=100
large_gb=10
scan_gb=""
rsize=1024
port=19391
cases="small large scan"
keep=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --small-mb) small_mb="$2"; shift 2 ;;
        --large-gb) large_gb="$2"; shift 2 ;;
        --scan-gb) scan_gb="$2"; shift 2 ;;
        --record-size) rsize="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        --cases) cases="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "bench-restart: unknown argument $1" >&2; exit 1 ;;
    esac
done

[[ -x "$root/build/raft-server" && -x "$root/build/kq-load" ]] ||
    { echo "bench-restart: build first (scripts/build.sh build)" >&2; exit 1; }

tmp="$(mktemp -d /tmp/kq-bench-restart.XXXXXX)"
csv="$tmp/unused.csv"
bench_name=bench-restart
# shellcheck source=scripts/bench/lib.sh
source "$root/scripts/bench/lib.sh"
PROBE="$root/scripts/bench/restart_probe.py"
probe_pid=""
cleanup() {
    if [[ -n "$probe_pid" ]]; then
        kill -TERM "$probe_pid" 2>/dev/null || true
        wait "$probe_pid" 2>/dev/null || true
    fi
    bench_cleanup
    if ((keep)); then say "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
# +dirty: the sources differ from that commit (the binary may too)
dirty="$(git -C "$root" status --porcelain --untracked-files=no -- src tools CMakeLists.txt 2>/dev/null |
    grep -q . && echo '+dirty' || true)"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
port_in_use "$port" && die "port $port is in use (--port)"

drop_state="not tried"
drop_caches() {
    sync
    if echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
        drop_state="yes"
    else
        drop_state="no (not permitted: restarts may read from the page cache)"
    fi
}

# config <dir> [key=value...]: $dir/server.properties for node 1 on $port.
config() {
    local dir=$1 kv
    shift
    mkdir -p "$dir"
    {
        printf 'broker.id=1\nlisteners=PLAINTEXT://localhost:%s\nquorum.voters=1@localhost:%s\n' "$port" "$port"
        printf 'log.dirs=%s\nverbose=false\n' "$dir/data"
        for kv in "$@"; do echo "$kv"; done
    } > "$dir/server.properties"
}

part() { echo "$1/data/__cluster_metadata-0"; }

# write_history <dir> <records>: start the node, wait for its leadership,
# write <records> records of $rsize bytes with kq-load, stop it (SIGTERM).
write_history() {
    local dir=$1 n=$2 t pid out
    "$root/build/raft-server" "$dir/server.properties" > "$dir/write.log" 2>&1 &
    pid=$!
    ours_pids=("$pid")
    wait_listen "$pid" "$port" "raft-server" 300
    for ((t = 0; ; t++)); do
        grep -q 'leader in epoch' "$dir/write.log" && break
        ((t < 300)) || die "no leadership within 30 s"
        sleep 0.1
    done
    out="$("$root/build/kq-load" --bootstrap "localhost:$port" --records "$n" --record-size "$rsize" \
        --rate -1 --threads 2 --idempotent --acks -1 --json)" || die "kq-load failed"
    "$PY" -c 'import json,sys
d = json.loads(sys.argv[1])
if d["records_failed"]: sys.exit("kq-load: %d records failed" % d["records_failed"])
print("  wrote %d records of %s B (%.2f GB payload) at %.0f records/s, %.0f MB/s" % (
    d["records_acked"], sys.argv[2], d["records_acked"] * int(sys.argv[2]) / 1e9,
    d["records_per_s"], d["mb_per_s"]))' "$out" "$rsize" || die "kq-load: bad result"
    echo "  (load average while writing: $(cut -d' ' -f1-3 /proc/loadavg))"
    sleep 1 # a last snapshot / retention pass, if one is due
    stop_pids "$pid"
    ours_pids=()
    echo "  retention passes while writing: $(grep -c 'retention: log start' "$dir/write.log" || true)," \
        "snapshots written: $(grep -c 'snapshot .* written' "$dir/write.log" || true)"
}

# show_dir <dir>: sizes and file counts of the partition directory.
show_dir() {
    local p
    p="$(part "$1")"
    retained_bytes="$(du -sb "$p" | cut -f1)"
    printf '  on disk: %s bytes (%s) in %s: %d segments (.log), %d .index, %d snapshots (.checkpoint), recovery point %s\n' \
        "$retained_bytes" "$(du -sh "$p" | cut -f1)" "$p" \
        "$(find "$p" -name '*.log' | wc -l)" "$(find "$p" -name '*.index' | wc -l)" \
        "$(find "$p" -name '*.checkpoint' | wc -l)" \
        "$([[ -f "$p/recovery-point-offset-checkpoint" ]] && echo present || echo absent)"
}

# restarts <dir> <label> <history> [pre-hook]: $runs timed restarts; one
# table row.
rows=()
restarts() {
    local dir=$1 label=$2 hist=$3 hook=${4:-} i out api=() prod=() cpu=() rd=() line
    show_dir "$dir"
    for ((i = 1; i <= runs; i++)); do
        [[ -n "$hook" ]] && "$hook" "$dir"
        drop_caches
        out="$dir/probe$i.out"
        "$PY" "$PROBE" --port "$port" --log "$dir/restart$i.log" --timeout 600 -- \
            "$root/build/raft-server" "$dir/server.properties" > "$out" 2> "$out.err" &
        probe_pid=$!
        until grep -q '^pid=' "$out" 2>/dev/null; do
            kill -0 "$probe_pid" 2>/dev/null || die "probe failed: $(cat "$out.err")"
            sleep 0.05
        done
        kill -TERM "$probe_pid"
        wait "$probe_pid" || die "probe failed: $(cat "$out.err")"
        probe_pid=""
        line="$(grep '^pid=' "$out")"
        api+=("$(sed -n 's/.* api_ms=\([0-9.]*\).*/\1/p' <<< "$line")")
        prod+=("$(sed -n 's/.* produce_ms=\([0-9.]*\).*/\1/p' <<< "$line")")
        cpu+=("$(sed -n 's/.* cpu_ms=\([-0-9.]*\).*/\1/p' <<< "$line")")
        rd+=("$(sed -n 's/.* read_mb=\([-0-9.]*\).*/\1/p' <<< "$line")")
        printf '  restart %d (page cache dropped: %s): first ApiVersions answer %s ms, first acked produce %s ms; server by then: %s ms CPU, %s MB read from storage; %s\n' \
            "$i" "$drop_state" "${api[-1]}" "${prod[-1]}" "${cpu[-1]}" "${rd[-1]}" \
            "$(grep '^stop_ms=' "$out" | sed 's/stop_ms=/stop took /; s/ rc=/ ms, exit /')"
        grep '^log' "$out" | grep -v 'listener PLAINTEXT' | sed 's/^/    /'
    done
    rows+=("| $label | $hist | $(numfmt --to=iec --suffix=B "$retained_bytes") ($retained_bytes) | $(stat3 "${api[@]}") | $(stat3 "${prod[@]}") | $(median "${cpu[@]}") ms, $(median "${rd[@]}") MB | $started, $commit$dirty |")
}

# median [min–max] of the arguments.
stat3() {
    local s
    s="$(printf '%s\n' "$@" | sort -g)"
    printf '%s [%s–%s]' "$(median "$@")" "$(head -n 1 <<< "$s")" "$(tail -n 1 <<< "$s")"
}

drop_rp() { rm -f "$(part "$1")/recovery-point-offset-checkpoint"; }

recs() { awk -v b="$1" -v s="$rsize" 'BEGIN { printf "%d", b / s }'; }

echo "bench-restart: raft-server at $commit$dirty, $started, $(nproc) CPUs, record size $rsize B, $runs restarts per case"
echo "  data in $tmp ($(df -h --output=avail "$tmp" | tail -n 1 | tr -d ' ') free)"

for c in $cases; do
    case "$c" in
    small)
        echo
        echo "== small: ~$small_mb MB written, default settings"
        d="$tmp/small"
        config "$d"
        write_history "$d" "$(recs "$((small_mb * 1000000))")"
        restarts "$d" "small (defaults: 1 GiB segments, 100 MiB retention)" "$small_mb MB"
        ((keep)) || rm -rf "$d"
        ;;
    large)
        echo
        echo "== large: $large_gb GB written, 16 MiB segments, default retention (100 MiB)"
        d="$tmp/large"
        config "$d" log.segment.bytes=16777216
        write_history "$d" "$(recs "$((large_gb * 1000000000))")"
        restarts "$d" "large (16 MiB segments, 100 MiB retention)" "$large_gb GB"
        ((keep)) || rm -rf "$d"
        ;;
    scan)
        n="$scan_gb"
        if [[ -z "$n" ]]; then
            avail_gb=$(($(df -B1 --output=avail "$tmp" | tail -n 1) / 1000000000))
            n=10
            # keep a margin of 5 GB and 20% of what is free
            while ((n > 1 && n * 12 / 10 + 5 > avail_gb)); do n=$((n - 1)); done
        fi
        echo
        echo "== scan: $n GB written, 16 MiB segments, metadata.max.retention.bytes=-1"
        d="$tmp/scan"
        config "$d" log.segment.bytes=16777216 metadata.max.retention.bytes=-1
        write_history "$d" "$(recs "$((n * 1000000000))")"
        echo "-- without recovery-point-offset-checkpoint (deleted before each start: CRC scan of every segment)"
        restarts "$d" "whole-log scan (no retention, recovery point deleted)" "$n GB" drop_rp
        echo "-- with the recovery point (snapshots exist: producer state from the latest + the log after it)"
        restarts "$d" "same log, recovery point present" "$n GB"
        ((keep)) || rm -rf "$d"
        ;;
    *) die "unknown case $c" ;;
    esac
done

echo
echo "Restart = exec of build/raft-server to (a) the first ApiVersions v0 answer and (b) the first"
echo "acked one-record Produce (acks=-1) on localhost:$port, polled every ~5 ms; page cache dropped"
echo "before each restart: $drop_state. $runs restarts per row, median [min–max]."
echo
echo "| case | history written | retained on disk | restart to first answer (ms) | restart to leader + produce (ms) | server CPU, storage reads by then (median) | date, commit |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
