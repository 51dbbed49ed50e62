#!/usr/bin/env python3
"""Checks the outputs of the transaction clients (tests/e2e/test_txn_clients.sh).

  txn_check.py produced PRODUCED READ_COMMITTED [READ_UNCOMMITTED]
      PRODUCED holds "<outcome>\\t<tag>\\t<value>" lines (outcome committed,
      aborted, aborted-err, unknown, zombie), the others "rec\\t<offset>\\t<value>".
      read_committed: every committed value exactly once; no aborted,
      aborted-err or zombie value; the values of an unknown transaction all
      or none, each at most once. read_uncommitted (if given): every committed
      and every aborted (on purpose, flushed before the abort) value.
  txn_check.py etl INPUTS ETL_OUT READ_COMMITTED OUTPREFIX
      INPUTS: "ack\\t<offset>\\t<value>"; ETL_OUT: the franz-go etl's lines;
      READ_COMMITTED: the OUTPREFIX values read read_committed. Every input
      transformed exactly once in the committed output, nothing else there;
      the group's committed offset lies past the last input.
Prints a one-line summary; exits 1 with the reason on a violation.
"""
import collections
import sys


def rows(path, first=None):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if first is None or p[0] == first:
                yield p


def read_values(path):
    return collections.Counter(p[2] for p in rows(path, "rec") if len(p) >= 3)


def check_produced(produced, rc_path, ru_path):
    by = collections.defaultdict(list)   # outcome -> values
    txn_of = {}                           # value -> tag, for unknown ones
    for p in rows(produced):
        if len(p) == 3 and p[0] in ("committed", "aborted", "aborted-err", "unknown", "zombie"):
            by[p[0]].append(p[2])
            txn_of[p[2]] = p[1]
    rc = read_values(rc_path)
    problems = []
    lost = [v for v in by["committed"] if rc[v] == 0]
    dup = [v for v in by["committed"] if rc[v] > 1]
    if lost:
        problems.append(f"{len(lost)} committed values missing read_committed (e.g. {lost[:3]})")
    if dup:
        problems.append(f"{len(dup)} committed values read more than once (e.g. {dup[:3]})")
    for outcome in ("aborted", "aborted-err", "zombie"):
        seen = [v for v in by[outcome] if rc[v] > 0]
        if seen:
            problems.append(f"{len(seen)} {outcome} values visible read_committed (e.g. {seen[:3]})")
    unknown = collections.defaultdict(list)
    for v in by["unknown"]:
        unknown[txn_of[v]].append(v)
    unknown_committed = 0
    for tag, vals in unknown.items():
        counts = [rc[v] for v in vals]
        if any(c > 1 for c in counts) or (0 in counts and any(counts)):
            problems.append(f"transaction {tag} of unknown outcome seen partly or twice: {counts}")
        elif all(counts):
            unknown_committed += 1
    produced_values = set(txn_of)
    alien = [v for v in rc if v not in produced_values]
    if alien:
        problems.append(f"{len(alien)} values read that no producer reported (e.g. {alien[:3]})")
    summary = (f"read_committed: {len(by['committed'])} committed values each once, "
               f"0 of {len(by['aborted'])} aborted + {len(by['aborted-err'])} aborted-after-error + "
               f"{len(by['zombie'])} zombie values; {len(unknown)} transactions of unknown outcome "
               f"({unknown_committed} committed, atomically)")
    if ru_path:
        ru = read_values(ru_path)
        missing = [v for v in by["committed"] + by["aborted"] if ru[v] == 0]
        if missing:
            problems.append(f"{len(missing)} committed/aborted values missing read_uncommitted (e.g. {missing[:3]})")
        summary += (f"; read_uncommitted: all {len(by['committed'])} committed and "
                    f"{len(by['aborted'])} aborted values")
    return problems, summary


def check_etl(inputs_path, etl_path, rc_path, outprefix):
    inputs = {p[2]: int(p[1]) for p in rows(inputs_path, "ack")}
    problems = []
    pairs = [p for p in rows(etl_path, "out")]
    expect = {}
    for p in pairs:
        expect[p[2]] = p[3]
    rc = read_values(rc_path)
    outs = {v: c for v, c in rc.items() if v.startswith(outprefix)}
    want = {}
    for v in inputs:
        if v not in expect:
            problems.append(f"input {v} never processed")
            continue
        want[expect[v]] = v
    for o, v in want.items():
        if outs.get(o, 0) != 1:
            problems.append(f"input {v}: output {o} read {outs.get(o, 0)} times read_committed")
    extra = [o for o in outs if o not in want]
    if extra:
        problems.append(f"{len(extra)} outputs not from an input (e.g. {extra[:3]})")
    aborted = sum(1 for p in pairs if p[1] == "aborted")
    committed = [int(p[1]) for p in rows(etl_path, "committed")]
    last_in = max(inputs.values()) if inputs else -1
    if not committed:
        problems.append("the etl printed no committed offset")
    elif committed[-1] <= last_in:
        problems.append(f"group committed offset {committed[-1]} is not past the last input at {last_in}")
    summary = (f"{len(inputs)} inputs each transformed exactly once in the committed output "
               f"({aborted} transformations aborted and redone), group offset "
               f"{committed[-1] if committed else '-'} > last input {last_in}")
    return problems, summary


def main():
    a = sys.argv[1:]
    if a and a[0] == "produced" and len(a) in (3, 4):
        problems, summary = check_produced(a[1], a[2], a[3] if len(a) == 4 else None)
    elif a and a[0] == "etl" and len(a) == 5:
        problems, summary = check_etl(a[1], a[2], a[3], a[4])
    else:
        sys.exit(__doc__)
    if problems:
        print("; ".join(problems[:8]) + (f" (+{len(problems) - 8} more)" if len(problems) > 8 else ""))
        sys.exit(1)
    print(summary)


if __name__ == "__main__":
    main()
