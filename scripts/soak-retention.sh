#!/usr/bin/env bash
# Disk use of a three-voter quorum over a long run with retention (issue
# 11): kq-load writes at a fixed rate for MINUTES; every SAMPLE_S seconds
# the script prints each node's data-directory bytes, segment and snapshot
# counts and log start, then a summary (bytes written, largest directory).
# A benchmark that prints figures; it asserts nothing.
#   scripts/soak-retention.sh [MINUTES] [RATE_RECORDS_PER_S] [RECORD_BYTES]
# Defaults: 10 minutes, 20000 records/s of 1000 B (about 20 MB/s), Kafka's
# default retention (100 MiB) and snapshot interval (20 MiB) with 16 MiB
# segments. SOAK_RETENTION_BYTES, SOAK_SEGMENT_BYTES override.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
minutes=${1:-10}
rate=${2:-20000}
size=${3:-1000}
retention=${SOAK_RETENTION_BYTES:-104857600}
segment=${SOAK_SEGMENT_BYTES:-16777216}
sample_s=${SAMPLE_S:-30}
base=19491
dir=$(mktemp -d /tmp/kq-soak.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

[[ -x "$root/build/raft-server" && -x "$root/build/kq-load" ]] ||
    cmake --build "$root/build" -j2 --target raft-server kq-load >/dev/null
voters="1@localhost:$base,2@localhost:$((base + 1)),3@localhost:$((base + 2))"
for i in 1 2 3; do
    cat > "$dir/n$i.properties" <<EOF
broker.id=$i
listeners=PLAINTEXT://localhost:$((base + i - 1))
quorum.voters=$voters
log.dirs=$dir/data$i
log.segment.bytes=$segment
metadata.max.retention.bytes=$retention
EOF
    "$root/build/raft-server" "$dir/n$i.properties" > "$dir/n$i.log" 2>&1 &
    pids+=($!)
done
for _ in $(seq 100); do
    grep -q "leader in epoch" "$dir"/n*.log 2>/dev/null && break
    sleep 0.1
done

node_line() {
    local d="$dir/data$1/__cluster_metadata-0" start=0
    [[ -f "$d/log-start-offset-checkpoint" ]] && start=$(awk 'NR==3 {print $3}' "$d/log-start-offset-checkpoint")
    printf '%12s %4s %4s %14s' "$(du -sb "$dir/data$1" | cut -f1)" \
        "$(ls "$d" | grep -c '\.log$')" "$(ls "$d" | grep -c '\.checkpoint$')" "$start"
}

echo "soak: 3 voters, ${minutes} min at ${rate} records/s of ${size} B," \
     "retention ${retention} B, segments ${segment} B ($(date -u '+%F %T') UTC," \
     "commit $(git -C "$root" rev-parse --short HEAD))"
printf '%6s | %-36s | %-36s | %-36s\n' "t (s)" "node 1: bytes segs snaps logstart" \
    "node 2" "node 3"
secs=$((minutes * 60))
"$root/build/kq-load" --bootstrap "localhost:$base,localhost:$((base + 1))" --seconds "$secs" \
    --rate "$rate" --record-size "$size" --idempotent --threads 2 > "$dir/load.out" 2>&1 &
load=$!
pids+=($load)
max=0
t0=$(date +%s)
while kill -0 "$load" 2>/dev/null; do
    sleep "$sample_s"
    line=$(printf '%6d' $(($(date +%s) - t0)))
    for i in 1 2 3; do
        n=$(node_line "$i")
        line+=" | $n"
        b=$(awk '{print $1}' <<< "$n")
        ((b > max)) && max=$b
    done
    echo "$line"
done
wait "$load" || true
echo
grep 'records/s' "$dir/load.out" | head -1
echo "largest data directory seen: $max bytes ($(numfmt --to=iec "$max"))"
for i in 1 2 3; do
    echo "node $i: $(grep -c 'snapshot .* written' "$dir/n$i.log") snapshots written," \
         "$(grep -c 'retention:' "$dir/n$i.log") retention passes," \
         "$(grep -c 'installed snapshot' "$dir/n$i.log") installs"
done
