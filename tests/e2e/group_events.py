#!/usr/bin/python3
"""Reads the event lines of tests/e2e/java/GroupClient.java's `members` mode
(tab separated: kind, wall-clock ms, then the kind's fields) for the
consumer-group tests and scripts/bench-groups.sh.

usage:
  group_events.py stable EVENTS GROUP...
      exit 0 when, in every GROUP, every member that subscribed had an
      assignment callback, exactly one member holds partition 0 and it
      fetched a record after the group's last callback.
  group_events.py caught-up EVENTS OFFSET GROUP...
      exit 0 when every GROUP has read OFFSET (and commits, with commit=sync,
      reached OFFSET + 1).
  group_events.py fetched-since EVENTS MS GROUP...
      exit 0 when every GROUP has read a record that was sent at or after MS
      (GroupClient's values end with their send time: after a kill at MS,
      such a record was written by the new leader and fetched from it).
  group_events.py check EVENTS --kills MS,MS.. --groups G,G.. [--since MS]
                  [--until MS] [--describe-before F --describe-after F]
      The failover test's verdict: from MS on (default the first kill) until
      the consumers are told to stop (--until; closing revokes) no
      assigned/revoked/lost callback and no change of member id in any
      GROUP; no failed commit; every acknowledged record read by every GROUP
      at its offset with its value; a record read twice in a group only at
      or above the group's last successful commit before some kill (what
      had not been committed); every GROUP committed after every kill; the
      member ids shown by `kafka-consumer-groups.sh --describe --members`
      before and after are the same. Prints one summary line (exit 0) or
      the first failures (exit 1).
  group_events.py times EVENTS --kills MS,MS.. --groups G,G.. [--until MS]
      Per kill and group: ms from the kill until the group read a record
      sent after the kill, and until it committed past that record, and the
      assignment callbacks until the next kill or --until ("fetch=A
      commit=B callbacks=C" per group).
  group_events.py describe-members FILE GROUP
      The CONSUMER-ID column of `--describe --members` output, for GROUP.
"""
import sys
from collections import defaultdict


def read(path):
    ev = []
    with open(path, errors="replace") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 2:
                continue
            try:
                p[1] = int(p[1])
            except ValueError:
                continue
            ev.append(p)
    return ev


class Group:
    def __init__(self):
        self.members = set()
        self.owned = defaultdict(set)   # member -> partitions
        self.assigned_once = set()
        self.last_cb = 0
        self.recs = []                  # (ms, member, offset, value)
        self.commits = []               # (ms, member, offset, ok, why)
        self.callbacks = []             # (ms, kind, member, parts, gen)
        self.member_ids = defaultdict(list)  # member -> [(ms, id, gen)]
        self.errors = []


def groups_of(ev):
    gs = defaultdict(Group)
    for e in ev:
        k = e[0]
        if k in ("ready", "assigned", "revoked", "lost", "member", "rec", "commit", "error"):
            g = gs[e[2]]
            m = int(e[3])
            g.members.add(m)
            if k in ("assigned", "revoked", "lost"):
                parts = set() if e[4] == "-" else set(e[4].split(","))
                if k == "assigned":
                    g.owned[m] |= parts
                    g.assigned_once.add(m)
                else:
                    g.owned[m] -= parts
                g.last_cb = max(g.last_cb, e[1])
                g.callbacks.append((e[1], k, m, e[4], e[5]))
            elif k == "member":
                g.member_ids[m].append((e[1], e[4], e[5]))
            elif k == "rec":
                g.recs.append((e[1], m, int(e[4]), e[5] if len(e) > 5 else ""))
            elif k == "commit":
                g.commits.append((e[1], m, int(e[4]), e[5] == "ok", e[6] if len(e) > 6 else ""))
            elif k == "error":
                g.errors.append((e[1], m, e[4]))
    return gs


def acked(ev):
    return {int(e[2]): e[3] for e in ev if e[0] == "ack"}


def stable(gs, names):
    for n in names:
        g = gs.get(n)
        if g is None or not g.members or g.assigned_once != g.members:
            return False
        holders = [m for m in g.members if any(p.endswith(":0") for p in g.owned[m])]
        if len(holders) != 1:
            return False
        if not any(ms > g.last_cb and m == holders[0] for ms, m, _, _ in g.recs):
            return False
    return True


def describe_ids(path, group):
    """CONSUMER-ID values of GROUP's rows in --describe --members output."""
    ids = set()
    col = None
    gcol = None
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if "CONSUMER-ID" in w and "GROUP" in w:
                col = w.index("CONSUMER-ID")
                gcol = w.index("GROUP")
                continue
            if col is not None and len(w) > col and w[gcol] == group:
                ids.add(w[col])
    return ids


def first_after(items, ms):
    t = [i[0] for i in items if i[0] >= ms]
    return min(t) - ms if t else None


def check(ev, since, until, kills, names, before=None, after=None):
    gs = groups_of(ev)
    ack = acked(ev)
    bad = []
    summary = []
    for n in names:
        g = gs.get(n)
        if g is None:
            bad.append(f"{n}: no events")
            continue
        cbs = [c for c in g.callbacks if since <= c[0] < until]
        if cbs:
            bad.append(f"{n}: {len(cbs)} rebalance callback(s) after the first kill, first: "
                       f"{cbs[0][1]} member {cbs[0][2]} partitions {cbs[0][3]} generation {cbs[0][4]} "
                       f"at +{cbs[0][0] - since} ms")
        for m, hist in sorted(g.member_ids.items()):
            ids_before = [h for h in hist if h[0] < since]
            later = [h for h in hist if since <= h[0] < until]
            base = ids_before[-1][1] if ids_before else None
            changed = [h for h in later if h[1] != base]
            if changed:
                bad.append(f"{n}: member {m}'s id changed after the first kill: {base} -> {changed[0][1]}")
        fails = [c for c in g.commits if not c[3]]
        if fails:
            bad.append(f"{n}: {len(fails)} failed commit(s), first: member {fails[0][1]} offset "
                       f"{fails[0][2]}: {fails[0][4]}")
        read = defaultdict(int)
        vals = {}
        for ms, m, off, v in g.recs:
            read[off] += 1
            vals.setdefault(off, v)
        missing = [o for o in ack if o not in read]
        if missing:
            bad.append(f"{n}: {len(missing)} acknowledged record(s) never read, first offset {min(missing)}")
        wrong = [o for o in ack if o in vals and vals[o] != ack[o]]
        if wrong:
            bad.append(f"{n}: {len(wrong)} record(s) read with another value than acknowledged, "
                       f"first offset {wrong[0]}: {vals[wrong[0]]!r} != {ack[wrong[0]]!r}")
        ok_commits = [c for c in g.commits if c[3]]
        committed_at = []
        for k in kills:
            c = [x[2] for x in ok_commits if x[0] < k]
            committed_at.append(max(c) if c else 0)
        dups = sorted(o for o, c in read.items() if c > 1)
        bad_dups = [o for o in dups if not any(o >= c for c in committed_at)]
        if bad_dups:
            bad.append(f"{n}: {len(bad_dups)} committed record(s) read again, first offset {bad_dups[0]} "
                       f"(last commits before the kills: {committed_at})")
        for i, k in enumerate(kills):
            if not any(x[0] >= k for x in ok_commits):
                bad.append(f"{n}: no successful commit after kill {i + 1}")
        if before and after:
            b, a = describe_ids(before, n), describe_ids(after, n)
            if not b:
                bad.append(f"{n}: --describe --members before the kills shows no member")
            elif b != a:
                bad.append(f"{n}: --describe --members ids before {sorted(b)} != after {sorted(a)}")
        summary.append(f"{n}: {len(g.members)} members, {len(read)} offsets read "
                       f"({len(dups)} twice), {len(ok_commits)} commits, 0 rebalances"
                       if not cbs else f"{n}: {len(cbs)} callbacks")
    if not ack:
        bad.append("no record acknowledged")
    return bad, "; ".join(summary) + f"; {len(ack)} records acknowledged"


def sent_ms(value):
    """The send time GroupClient's producer puts at the end of each value."""
    try:
        return int(value.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return None


def refetch(g, k):
    """(ms, offset) of the group's first read of a record sent at or after
    k (so written by the leader elected after a kill at k), or None."""
    t = [(ms, off) for ms, _, off, v in g.recs if ms >= k and (sent_ms(v) or 0) >= k]
    return min(t) if t else None


def times(ev, kills, names, until=1 << 62):
    gs = groups_of(ev)
    out = []
    for i, k in enumerate(kills):
        parts = []
        end = kills[i + 1] if i + 1 < len(kills) else until
        for n in names:
            g = gs[n]
            r = refetch(g, k)
            f = r[0] - k if r else None
            # The first commit that covers a record written after the kill.
            c = None
            if r:
                cs = [x[0] for x in g.commits if x[3] and x[2] > r[1]]
                c = min(cs) - k if cs else None
            cb = len([x for x in g.callbacks if k <= x[0] < end])
            parts.append(f"{n} fetch={f if f is not None else 'none'} commit={c if c is not None else 'none'}"
                         f" callbacks={cb}")
        out.append(f"kill {i + 1}: " + " ".join(parts))
    return out


def opt(args, name, default=None):
    if name in args:
        return args[args.index(name) + 1]
    return default


def main():
    a = sys.argv[1:]
    if len(a) < 2:
        sys.exit(__doc__)
    mode, path = a[0], a[1]
    if mode == "describe-members":
        print(" ".join(sorted(describe_ids(path, a[2]))))
        return
    ev = read(path)
    if mode == "stable":
        sys.exit(0 if stable(groups_of(ev), a[2:]) else 1)
    if mode == "caught-up":
        off = int(a[2])
        gs = groups_of(ev)
        for n in a[3:]:
            g = gs.get(n)
            if g is None or not any(o >= off for _, _, o, _ in g.recs):
                sys.exit(1)
            if g.commits and not any(c[3] and c[2] >= off + 1 for c in g.commits):
                sys.exit(1)
        return
    if mode == "fetched-since":
        ms = int(a[2])
        gs = groups_of(ev)
        sys.exit(0 if all(n in gs and refetch(gs[n], ms) for n in a[3:]) else 1)
    kills = [int(x) for x in opt(a, "--kills", "").split(",") if x]
    names = [x for x in opt(a, "--groups", "").split(",") if x]
    if mode == "check":
        since = int(opt(a, "--since", kills[0] if kills else 0))
        until = int(opt(a, "--until", 1 << 62))
        bad, summ = check(ev, since, until, kills, names, opt(a, "--describe-before"), opt(a, "--describe-after"))
        if bad:
            print("; ".join(bad[:6]))
            sys.exit(1)
        print(summ)
    elif mode == "times":
        print("\n".join(times(ev, kills, names, int(opt(a, "--until", 1 << 62)))))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
