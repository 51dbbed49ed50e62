#!/usr/bin/python3
"""Checks acknowledged writes against the on-disk logs of the replicas that
must hold them.

usage: acks_check.py --acks FILE --hw HW [--fail-ms MS] [--epoch-start OFFSET]
                     [--min-new N] [--wait SECS] PARTITION_DIR...

FILE holds JSON lines with "producer_send_success" events ("value",
"offset", "t" = ms the acknowledgement was received; kp_producer.py writes
them), or "offset<TAB>value" lines. HW is the committed high watermark reported by the current leader.
Passes when every acknowledged record lies below HW and every PARTITION_DIR
holds exactly that value at that offset (data records of all *.log
segments, read as tests/e2e/logvalues.py does; waits up to SECS for the
directories to reach HW). With --fail-ms (when the fault was injected) the
acknowledgements received after it are counted: those at offsets below
--epoch-start (the first offset of the epoch of the leader that took over)
were answered by the failed leader, the others by its successor, of which
there must be at least --min-new.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def log_values(part_dir):
    out = subprocess.run([sys.executable, os.path.join(HERE, "logvalues.py"), part_dir],
                         check=True, capture_output=True, text=True).stdout
    vals = {}
    for line in out.splitlines():
        if "\t" in line:
            off, v = line.split("\t", 1)
            vals[int(off)] = v
    return vals


def read_acks(path):
    acks, errors = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("{"):
                if "\t" in line:  # "offset<TAB>value"
                    off, val = line.rstrip("\n").split("\t", 1)
                    acks.append((int(off), val, 0))
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("name") == "producer_send_success":
                acks.append((int(ev["offset"]), ev["value"], int(ev.get("t", 0))))
            elif ev.get("name") == "producer_send_error":
                errors += 1
    return acks, errors


def main(argv):
    opts, dirs = {}, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--acks", "--hw", "--fail-ms", "--epoch-start", "--min-new", "--wait"):
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            dirs.append(argv[i])
            i += 1
    if "--acks" not in opts or "--hw" not in opts or not dirs:
        print(__doc__, file=sys.stderr)
        return 2
    hw = int(opts["--hw"])
    acks, errors = read_acks(opts["--acks"])
    deadline = time.monotonic() + float(opts.get("--wait", 30))
    while True:
        logs = {d: log_values(d) for d in dirs}
        if all(max(v, default=-1) >= hw - 1 for v in logs.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    problems = []
    missing = 0
    for off, val, _ in acks:
        if off >= hw:
            problems.append(f"acked {val!r} at offset {off}, at or above the high watermark {hw}")
            continue
        for d, vals in logs.items():
            have = vals.get(off)
            if have != val:
                missing += 1
                short = have if have is None or len(have) <= 40 else have[:37] + "..."
                problems.append(f"acked {val[:40]!r} at offset {off}: {d} holds {short!r} there")
    first = [v for o, v in logs[dirs[0]].items() if o < hw]
    dups = len(first) - len(set(first))
    summary = (f"acked={len(acks)} send_errors={errors} hw={hw} stored_twice={dups}"
               f" not_in_logs={missing}")
    if "--fail-ms" in opts:
        fail_ms = int(opts["--fail-ms"])
        start = int(opts.get("--epoch-start", hw))
        late = [a for a in acks if a[2] > fail_ms]
        old = [a for a in late if a[0] < start]
        new = [a for a in late if a[0] >= start]
        summary += (f" acks_after_fault={len(late)} (old leader's epoch: {len(old)},"
                    f" new leader's: {len(new)})")
        if len(new) < int(opts.get("--min-new", 1)):
            problems.append(f"only {len(new)} writes acknowledged by the new leader after the fault")
    print(summary)
    for p in problems[:10]:
        print("  " + p)
    if len(problems) > 10:
        print(f"  ... {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
