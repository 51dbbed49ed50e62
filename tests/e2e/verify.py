#!/usr/bin/python3
"""Checks what a consumer read back against what producers saw acknowledged.

usage: verify.py CONSUMED PRODUCED... [--min-acked N] [--values-only]

CONSUMED holds "offset<TAB>value" lines (kcat -f '%o\\t%s\\n'), or just values
with --values-only. Each PRODUCED file is either VerifiableProducer output
(JSON lines; producer_send_success events carry value and offset) or plain
"offset<TAB>value" lines, or bare values, of acknowledged records. Passes when every
acknowledged value appears exactly once, in acknowledgement order, and (with
offsets) at the offset its acknowledgement reported.
"""
import json
import sys


def read_acked(path):
    acked, errors = [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("{"):
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if ev.get("name") == "producer_send_success":
                    acked.append((int(ev["offset"]), ev["value"]))
                elif ev.get("name") == "producer_send_error":
                    errors += 1
            elif "\t" in line:
                off, val = line.split("\t", 1)
                acked.append((int(off), val))
            else:
                acked.append((None, line))
    return acked, errors


def main(argv):
    min_acked = 0
    values_only = False
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--min-acked":
            min_acked = int(argv[i + 1])
            i += 2
            continue
        if argv[i] == "--values-only":
            values_only = True
        else:
            files.append(argv[i])
        i += 1
    if len(files) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    consumed = []
    with open(files[0], encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if values_only:
                consumed.append((None, line))
            elif line:
                off, val = line.split("\t", 1)
                consumed.append((int(off), val))
    acked, errors = [], 0
    for p in files[1:]:
        a, e = read_acked(p)
        acked += a
        errors += e

    problems = []
    offsets = [o for o, _ in consumed if o is not None]
    if any(b <= a for a, b in zip(offsets, offsets[1:])):
        problems.append("consumed offsets are not strictly increasing")
    pos = {}
    for idx, (off, val) in enumerate(consumed):
        pos.setdefault(val, []).append((idx, off))
    last_idx = -1
    missing = dup = misplaced = disorder = 0
    for off, val in acked:
        where = pos.get(val, [])
        if not where:
            missing += 1
            if missing <= 5:
                problems.append(f"acked value {val!r} (offset {off}) missing")
            continue
        if len(where) > 1:
            dup += 1
            if dup <= 5:
                problems.append(f"acked value {val!r} present {len(where)} times")
        idx, coff = where[0]
        if coff is not None and off is not None and coff != off:
            misplaced += 1
            if misplaced <= 5:
                problems.append(f"acked value {val!r} at offset {coff}, ack said {off}")
        if idx <= last_idx:
            disorder += 1
            if disorder <= 5:
                problems.append(f"acked value {val!r} out of order")
        last_idx = idx
    if len(acked) < min_acked:
        problems.append(f"only {len(acked)} records acked, expected at least {min_acked}")
    acked_vals = {v for _, v in acked}
    extra = sum(1 for _, v in consumed if v not in acked_vals)
    summary = (f"acked={len(acked)} send_errors={errors} consumed={len(consumed)} "
               f"unacked_present={extra} missing={missing} duplicated={dup} "
               f"misplaced={misplaced} out_of_order={disorder}")
    print(summary)
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
