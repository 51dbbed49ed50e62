#!/usr/bin/env bash
# The disk's own append+fdatasync limit, as CSV rows for scripts/bench-all.sh:
#   disk,kq-disk-append,<writers>,,<batch bytes>,,,,<syncs/s>,<MB/s>,...
# for batches of 4 KiB, 64 KiB and 1 MiB and 1 or 3 concurrent writers
# (three replicas on one disk), each for KQ_BENCH_DISK_SECS (default 3) s,
# in directory $1 (on the same file system as the benchmark's data).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$1"
secs="${KQ_BENCH_DISK_SECS:-3}"
tool="$root/build/kq-disk-append"
[[ -x "$tool" ]] || { echo "disk.sh: $tool not built" >&2; exit 1; }
mkdir -p "$dir"
for batch in 4096 65536 1048576; do
    for writers in 1 3; do
        read -r b w mbs sps < <("$tool" "$dir" "$batch" "$writers" "$secs")
        echo "disk,kq-disk-append,$w,,$b,,,,$sps,$mbs,,,,,,$secs"
        echo "disk.sh: ${b} B x $w writer(s): $mbs MB/s, $sps fdatasync/s" >&2
    done
done
rm -rf "$dir"
