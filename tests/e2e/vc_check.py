#!/usr/bin/python3
"""Checks Kafka's VerifiableConsumer output (JSON events, run with --verbose)
against VerifiableProducer output, and kafka-consumer-groups --describe
samples, for test_groups_kafka_tools.sh and test_groups_handover.sh.

usage:
  vc_check.py consumed CONSUMER.jsonl[,CONSUMER2.jsonl...] PRODUCED.jsonl...
      Every acknowledged (offset, value) was read (a record_data event at that
      offset with that value); no value read at two offsets; within each
      consumer the successful commits of partition 0 never go backwards.
      Prints a summary whose last field is last_committed=N (the last
      successful commit of the last consumer file).
  vc_check.py resume CONSUMER.jsonl COMMITTED PRODUCED.jsonl [LOG]
      The first record read is at offset COMMITTED and every acknowledged
      record of PRODUCED was read. With LOG ("offset<TAB>value" of every data
      record, kcat), the first record read is the first data record at or
      after COMMITTED (control batches in between are skipped by consumers).
  vc_check.py start CONSUMER.jsonl COMMITTED [LOG]
      The same for the first record read after the consumer's last
      assignment of partition 0 (a partition taken over).
  vc_check.py describe SAMPLES
      SAMPLES has "ok<TAB>ms<TAB>current<TAB>lag" and "err<TAB>ms<TAB>why"
      lines (current "-": nothing committed yet): the committed offset never
      goes backwards, at least one sample shows a numeric LAG.
"""
import json
import sys


def events(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def acked(paths):
    acks, errors = [], 0
    for p in paths:
        for ev in events(p):
            if ev.get("name") == "producer_send_success":
                acks.append((int(ev["offset"]), ev["value"]))
            elif ev.get("name") == "producer_send_error":
                errors += 1
    return acks, errors


def commits(evs):
    """Successful partition-0 commit offsets in order, and failures."""
    ok, failed = [], []
    for ev in evs:
        if ev.get("name") != "offsets_committed":
            continue
        if ev.get("success"):
            for o in ev.get("offsets") or []:
                if int(o.get("partition", -1)) == 0:
                    ok.append(int(o["offset"]))
        else:
            failed.append(ev.get("error"))
    return ok, failed


def records(evs):
    return [(int(ev["offset"]), ev.get("value")) for ev in evs if ev.get("name") == "record_data"]


def fail(msg):
    print(msg)
    sys.exit(1)


def cmd_consumed(cons_paths, prod_paths):
    acks, perr = acked(prod_paths)
    if not acks:
        fail("no acknowledged record")
    read = {}
    total = 0
    notes = []
    last_committed = None
    for path in cons_paths:
        evs = events(path)
        recs = records(evs)
        total += len(recs)
        for off, v in recs:
            if off in read and read[off] != v:
                fail(f"offset {off} read as {read[off]!r} and later as {v!r}")
            read.setdefault(off, v)
        # After each (re)assignment of partition 0 the consumer starts at
        # the group's committed offset: never below this consumer's last
        # successful commit (an acknowledged commit lost, e.g. in a failover).
        last_ok, pending, rejoins = None, False, 0
        for ev in evs:
            name = ev.get("name")
            if name == "offsets_committed" and ev.get("success"):
                for o in ev.get("offsets") or []:
                    if int(o.get("partition", -1)) == 0:
                        last_ok = int(o["offset"])
            elif name == "partitions_assigned":
                pending = any(int(p.get("partition", -1)) == 0 for p in ev.get("partitions") or [])
            elif name == "record_data" and pending:
                pending = False
                rejoins += 1
                if last_ok is not None and int(ev["offset"]) < last_ok:
                    fail(f"{path}: after a reassignment the consumer began at offset {ev['offset']}, "
                         f"below its last successful commit {last_ok}: an acknowledged commit was lost")
        ok, failed = commits(evs)
        for k, (a, b) in enumerate(zip(ok, ok[1:])):
            if b < a:
                fail(f"{path}: successful commit of offset {b} after one of {a} (commit #{k + 2} of "
                     f"{len(ok)}; around it: {ok[max(0, k - 4):k + 6]})")
        if ok:
            last_committed = ok[-1]
        notes.append(f"{len(recs)} read in {rejoins} assignment(s), {len(ok)} commits ok, {len(failed)} failed"
                     + (f" (first error: {failed[0]})" if failed else ""))
    missing = [(o, v) for o, v in acks if read.get(o) != v]
    if missing:
        fail(f"{len(missing)} of {len(acks)} acknowledged records not read at their offset "
             f"(first {missing[:3]}; read there: {[read.get(o) for o, _ in missing[:3]]})")
    by_value = {}
    for off, v in read.items():
        by_value.setdefault(v, []).append(off)
    acked_values = {v for _, v in acks}
    twice = [v for v, offs in by_value.items() if len(offs) > 1 and v in acked_values]
    if twice:
        fail(f"{len(twice)} acknowledged values stored at two offsets (first {twice[:3]})")
    dups = total - len(read)
    if last_committed is None:
        fail("no successful commit")
    print(f"acked={len(acks)} (send errors {perr}) all read; {len(read)} distinct offsets, "
          f"{dups} re-reads; {'; '.join(notes)}; last_committed={last_committed}")


def data_offsets(path):
    out = set()
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.split("\t", 1)
        if f[0].strip().isdigit():
            out.add(int(f[0]))
    return out


def check_start(first, committed, log_path, who):
    """The first offset read after (re)joining must be the first data record
    at or after the committed offset (the log also holds control batches,
    e.g. the offset commits, which the consumer skips)."""
    if log_path is None:
        if first != committed:
            fail(f"{who} began at offset {first}, the group's committed offset is {committed}")
        return
    if first < committed:
        fail(f"{who} began at offset {first}, before the group's committed offset {committed}")
    skipped = sorted(o for o in data_offsets(log_path) if committed <= o < first)
    if skipped:
        fail(f"{who} began at offset {first}: data records at {skipped[:5]} after the committed "
             f"offset {committed} were skipped")


def cmd_start(cons_path, committed, log_path):
    """The first record after the consumer's last assignment of partition 0."""
    first = None
    for ev in events(cons_path):
        if ev.get("name") == "partitions_assigned" and any(
                int(p.get("partition", -1)) == 0 for p in ev.get("partitions") or []):
            first = "none"
        elif ev.get("name") == "record_data" and first == "none":
            first = int(ev["offset"])
    if not isinstance(first, int):
        fail("the consumer read nothing after its last assignment of partition 0")
    check_start(first, committed, log_path, "the consumer taking over")
    print(f"first record after the takeover at {first}, committed offset {committed}")


def cmd_resume(cons_path, committed, prod_path, log_path=None):
    recs = records(events(cons_path))
    if not recs:
        fail("the restarted consumer read nothing")
    check_start(recs[0][0], committed, log_path, "the restarted consumer")
    acks, _ = acked([prod_path])
    read = dict(recs)
    missing = [(o, v) for o, v in acks if read.get(o) != v]
    if missing:
        fail(f"{len(missing)} of {len(acks)} records produced after the restart not read (first {missing[:3]})")
    print(f"restarted consumer began at {recs[0][0]} (committed offset {committed}), read {len(recs)} records, "
          f"all {len(acks)} new acknowledged records")


def cmd_describe(path):
    prev = None
    n_ok = n_err = n_lag = 0
    errs = []
    vals = []
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "err":
            n_err += 1
            errs.append(f[2] if len(f) > 2 else "")
            continue
        if f[0] != "ok":
            continue
        n_ok += 1
        cur, lag = f[2], f[3]
        if lag.isdigit():
            n_lag += 1
        if not cur.isdigit():
            continue
        cur = int(cur)
        vals.append(cur)
        if prev is not None and cur < prev:
            fail(f"CURRENT-OFFSET went backwards: {prev} then {cur} (samples {vals})")
        prev = cur
    if n_ok == 0:
        fail(f"no successful --describe ({n_err} failed, e.g. {errs[:2]})")
    if not vals:
        fail(f"--describe never showed a CURRENT-OFFSET ({n_ok} samples)")
    if n_lag == 0:
        fail("--describe never showed a numeric LAG")
    print(f"{n_ok} --describe samples ({n_err} failed), CURRENT-OFFSET {vals[0]}..{vals[-1]} "
          f"never backwards, LAG shown in {n_lag}")


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    if argv[1] == "consumed":
        cmd_consumed(argv[2].split(","), argv[3:])
    elif argv[1] == "resume":
        cmd_resume(argv[2], int(argv[3]), argv[4], argv[5] if len(argv) > 5 else None)
    elif argv[1] == "start":
        cmd_start(argv[2], int(argv[3]), argv[4] if len(argv) > 4 else None)
    elif argv[1] == "describe":
        cmd_describe(argv[2])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main(sys.argv)
