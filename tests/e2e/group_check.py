#!/usr/bin/python3
"""Checks one group-consumer run (output of group_client.py / groupclient /
kcat -f 'rec\\t%o\\t%s\\n') against what was produced.

usage: group_check.py RUN EXPECTED PREFIX [--start OFFSET [--data-offsets LOG]]
                      [--committed OFFSET]
                      [--allow-dups] [--no-assigned] [--skip-commit]

RUN has "rec<TAB>offset<TAB>value", "assigned<TAB>..." and
"committed<TAB>offset" lines. EXPECTED holds the values this run must read
(one per line, or "ack<TAB>offset<TAB>value" lines; the offsets are then
checked too). Checks: every expected value read (exactly once unless
--allow-dups), no other value beginning with PREFIX- (e.g. an earlier batch:
the run must have resumed after it), the first record read at OFFSET
(--start; with --data-offsets, a file of "offset<TAB>value" lines of every
data record in the log (kcat), the first record read at or after OFFSET with
no data record in between: control batches are skipped by most clients), the committed offset read back equal to the last offset read + 1
(with --data-offsets, or the end of the run of control batches after it:
no data record in between, issue 24; and to --committed when given;
neither with --skip-commit), a partition assignment reported. Prints a
one-line summary; exit 1 with the reason on failure.
"""
import sys


def data_offsets(path):
    """The offsets of the data records in a kcat '%o<TAB>%s' dump of the log."""
    data = set()
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.split("\t", 1)
        if f[0].strip().isdigit():
            data.add(int(f[0]))
    return data


def main(argv):
    args = argv[1:]
    opts = {"--start": None, "--committed": None, "--data-offsets": None}
    flags = set()
    pos = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1] if args[i] == "--data-offsets" else int(args[i + 1])
            i += 2
            continue
        if args[i].startswith("--"):
            flags.add(args[i])
        else:
            pos.append(args[i])
        i += 1
    run, expected_path, prefix = pos
    expected, exp_off = [], {}
    for line in open(expected_path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        f = line.split("\t")
        if f[0] == "ack":
            expected.append(f[2])
            exp_off[f[2]] = int(f[1])
        else:
            expected.append(f[-1])
    recs, committed, assigned, errors = [], None, [], []
    for line in open(run, encoding="utf-8", errors="replace"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "rec" and len(f) >= 3:
            recs.append((int(f[1]), "\t".join(f[2:])))
        elif f[0] == "committed":
            committed = int(f[1]) if f[1] not in ("None", "") else -1
        elif f[0] == "assigned":
            assigned.append(f[1] if len(f) > 1 else "")
        elif f[0] == "error":
            errors.append("\t".join(f[1:]))

    def bad(msg):
        print(f"{msg} (read {len(recs)} records, committed {committed}, "
              f"assigned {assigned}, client errors {errors[:3]})")
        sys.exit(1)

    if not recs:
        bad("no record read")
    exp_set = set(expected)
    if len(exp_set) != len(expected):
        bad("EXPECTED has duplicate values")
    counts = {}
    for off, v in recs:
        if v.startswith(prefix + "-"):
            counts[v] = counts.get(v, 0) + 1
            if v in exp_off and exp_off[v] != off:
                bad(f"{v} read at offset {off}, acknowledged at {exp_off[v]}")
    missing = [v for v in expected if v not in counts]
    if missing:
        bad(f"{len(missing)} of {len(expected)} expected values not read (first {missing[:3]})")
    foreign = sorted(v for v in counts if v not in exp_set)
    if foreign:
        bad(f"{len(foreign)} values of earlier batches read again (first {foreign[:3]}): "
            "the group did not resume at its committed offset")
    dups = sum(c - 1 for c in counts.values())
    if dups and "--allow-dups" not in flags:
        bad(f"{dups} duplicate reads")
    offs = [o for o, _ in recs]
    if any(b <= a for a, b in zip(offs, offs[1:])) and "--allow-dups" not in flags:
        bad("offsets read not strictly increasing")
    start = opts["--start"]
    if start is not None and opts["--data-offsets"] is None and offs[0] != start:
        bad(f"first record read at offset {offs[0]}, expected {start} (the committed offset)")
    data = set()
    if opts["--data-offsets"] is not None:
        for line in open(opts["--data-offsets"], encoding="utf-8", errors="replace"):
            f = line.split("\t", 1)
            if f[0].strip().isdigit():
                data.add(int(f[0]))
    if start is not None and opts["--data-offsets"] is not None:
        # The server's log also holds control batches (e.g. the offset
        # commits themselves), which clients skip: the run must begin at the
        # first data record at or after the committed offset.
        if offs[0] < start:
            bad(f"first record read at offset {offs[0]}, before the committed offset {start}")
        skipped = sorted(o for o in data if start <= o < offs[0])
        if skipped:
            bad(f"first record read at offset {offs[0]}: data records at {skipped[:5]} between the "
                f"committed offset {start} and it were skipped")
    if "--skip-commit" in flags:
        print(f"read {len(recs)} records {offs[0]}..{max(offs)}, {len(expected)} expected values "
              f"all present, {dups} duplicates")
        return
    if committed is None:
        bad("no committed offset reported")
    # Issue 24: a committed offset in a run of control batches is read back
    # as the run's end (a consumer skips the run anyway).
    run_end = (opts["--data-offsets"] is not None and committed > max(offs) + 1 and
               not any(max(offs) + 1 <= o < committed for o in data))
    if committed != max(offs) + 1 and not run_end:
        bad(f"committed offset {committed} != last offset read + 1 = {max(offs) + 1}"
            + (" (nor the end of the run of control batches after it)"
               if opts["--data-offsets"] is not None else ""))
    if opts["--committed"] is not None and committed != opts["--committed"]:
        bad(f"committed offset {committed}, expected {opts['--committed']}")
    if "--no-assigned" not in flags and not any(assigned):
        bad("no partition assignment reported")
    print(f"read {len(recs)} records {offs[0]}..{max(offs)}, {len(expected)} expected values "
          f"all present, {dups} duplicates, committed {committed}")


if __name__ == "__main__":
    main(sys.argv)
