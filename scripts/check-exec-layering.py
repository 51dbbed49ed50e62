#!/usr/bin/env python3
"""Keeps the executor's calls and includes pointing one way (issue 21 item 5).

src/exec is one coordinator over parts that each own their state, on a base
(src/exec/exec_internal.h names them). LAYERS below declares the order, top
first; a file may include or call only files of a lower layer or of its own
group. The parts are siblings: none reaches another, or the coordinator; a
part that needs the core stepped returns that need. An edge is an
#include "..." of a src/exec header, or a call of a non-static function
defined in another src/exec file. Every file in src/exec must be listed.

Fields: OWNERS gives every field of struct kq_exec one owner (a group of
LAYERS, or 'base': read by all). Each part (and metrics) owns exactly one
field, its state, whose type a file of the part declares. A file of a part
or of metrics may use (x->field) only base fields and its own group's; what
another part or the coordinator owns reaches it as an argument
(exec_tables). The coordinator uses base fields and its own; a part's state
only whole, through the part's functions: created (x->peers =
exec_peers_create()), tested for NULL (!x->peers) or passed as an argument
to a function defined in the part (exec_peers_take_send_failed(x->peers,
...)), never looked into (x->peers->send_failed). And no function pointer
taking a kq_exec (a way back up, like the former kq_exec.up) may be declared
in src/exec.

  scripts/check-exec-layering.py [--root DIR] [--report]

Exits 1 on an upward or sideways edge, a field used outside its owner, an
unowned field, a part owning other than one field or a state declared
outside it, the coordinator looking into a part's state, a kq_exec function
pointer, or an unlisted file. --report also prints, per file, the fields of
struct kq_exec it reads (x->field; for the coordinator, the part states it
passes whole are listed apart) and every edge. Registered with CTest as exec_layering."""
import argparse
import glob
import os
import re
import sys

LAYERS = [
    ('coordinator', {
        'coordinator': ['exec.c', 'exec_entry.c', 'exec_step.c', 'exec_request.c',
                        'exec_rebuild.c', 'exec_publish.c', 'exec_metrics_text.c',
                        'exec_internal.h'],
    }),
    ('parts', {
        'peers': ['exec_peer.c', 'exec_peer_table.c', 'exec_endpoints.c', 'exec_peer.h'],
        'search': ['exec_search.c', 'exec_search.h'],
        'stream': ['exec_stream.c', 'exec_stream.h'],
        'workload': ['exec_workload.c', 'exec_workload.h'],
        'producer_ids': ['exec_producer_ids.c', 'exec_producer_ids.h'],
        'produce': ['exec_produce.c', 'exec_produce.h'],
        'offsets': ['exec_offsets.c', 'exec_offsets.h'],
        'txn': ['exec_txn.c', 'exec_txn.h'],
        'groups': ['exec_groups.c', 'exec_groups.h'],
        'snapshot': ['exec_snapshot.c', 'exec_snapshot_open.c', 'exec_snapshot_fail.c',
                     'exec_snapshot_transfer.c', 'exec_retention.c', 'exec_snapshot.h',
                     'exec_voters.c'],
    }),
    ('metrics', {'metrics': ['exec_metrics.c', 'exec_metrics.h']}),
    ('base', {'base': ['exec_base.c', 'exec_state.h']}),
]


# The owner of each field of struct kq_exec (exec_state.h).
OWNERS = {
    'base': ['cfg', 'cluster_id', 'log_dir', 'env', 'log', 'raft', 'handler', 'failed'],
    'coordinator': ['rebuilding_at_start', 'rebuild_next', 'rebuild_rc', 'repair_end',
                    'repair_epoch', 'repair_allowed', 'out', 'stepping', 'flush_job',
                    'stored_qstate', 'directory_id', 'flush_idle', 'truncated_lower', 'raft_wake_ms',
                    'rejected_logged', 'shutdown_requested', 'shutdown_reported',
                    'last_role', 'last_epoch', 'last_leader'],
    'peers': ['peers'],
    'search': ['search'],
    'workload': ['workload'],
    'producer_ids': ['pids'],
    'produce': ['produce'],
    'offsets': ['offsets'],
    'txn': ['txn'],
    'groups': ['groups'],
    'snapshot': ['snap'],
    'metrics': ['metrics'],
}
NOT_PARTS = ('base', 'coordinator')

# A function pointer whose parameters take the executor: a way back up.
UP_POINTER = re.compile(r'\(\s*\*\s*\w*\s*\)\s*\(\s*(const\s+)?(struct\s+)?kq_exec\s*\*')


def struct_fields(code):
    """The field names of struct kq_exec (a, *b counts as two)."""
    body = re.search(r'struct kq_exec \{(.*?)\n\};', code, re.S).group(1)
    fields = set()
    for decl in body.split(';'):
        for part in decl.split(','):
            m = re.search(r'\**\s*(\w+)\s*(\[[^\]]*\]\s*)*$', part.strip())
            if m:
                fields.add(m.group(1))
    return fields


def struct_types(code):
    """Field name -> the struct type of a part state (struct exec_x *f)."""
    body = re.search(r'struct kq_exec \{(.*?)\n\};', code, re.S).group(1)
    return {m.group(2): m.group(1) for m in re.finditer(r'struct\s+(\w+)\s*\*\s*(\w+)\s*;', body)}


def enclosing_call(text, pos):
    """The function whose argument list holds pos, or None."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        c = text[i]
        if c == ')':
            depth += 1
        elif c == '(':
            if depth == 0:
                m = re.search(r'(\w+)\s*$', text[:i])
                return m.group(1) if m else None
            depth -= 1
        elif c in ';{}' and depth == 0:
            return None
    return None


def coordinator_use(text, m, files, defs):
    """How the coordinator uses part state x->f at match m: None if whole,
    through the part's functions, else what is wrong."""
    after = text[m.end():]
    if re.match(r'\s*(->|\.|\[)', after):
        return 'looks into it'
    made = re.match(r'\s*=(?!=)\s*(\w+)\s*\(', after)
    if made:
        return None if defs.get(made.group(1)) in files else 'assigns it'
    before = text[:m.start()].rstrip()
    if before.endswith('!'):
        return None  # tested for NULL
    fn = enclosing_call(text, m.start())
    if before[-1:] in ('(', ',') and re.match(r'\s*[,)]', after) and defs.get(fn) in files:
        return None
    return 'uses it other than whole through its functions'


def field_misuse(names, code, where, defs):
    """Uses of a field outside its owner, fields without one, parts not
    owning exactly one field, and the coordinator looking into a part."""
    owner = {f: g for g, fs in OWNERS.items() for f in fs}
    src = 'exec_state.h' if 'exec_state.h' in code else 'exec_internal.h'
    out = ['field %s of struct kq_exec: no owner in OWNERS' % f
           for f in sorted(struct_fields(code[src]) - set(owner))]
    types = struct_types(code[src])
    group_files = {}
    for n, (_, g) in where.items():
        group_files.setdefault(g, set()).add(n)
    for g, fs in OWNERS.items():
        if g in NOT_PARTS:
            continue
        if len(fs) != 1:
            out.append('%s owns %d fields of struct kq_exec, not one (its state)' % (g, len(fs)))
        for f in fs:
            t = types.get(f)
            if t and not any(re.search(r'\bstruct\s+%s\s*\{' % t, code.get(n, ''))
                             for n in group_files.get(g, ())):
                out.append('struct %s (kq_exec.%s) is not declared in %s' % (t, f, g))
    for n in names:
        if n not in where:
            continue
        for m in re.finditer(r'\bx->(\w+)', code[n]):
            f, g = m.group(1), owner.get(m.group(1))
            if not g or g in ('base', where[n][1]):
                continue
            line = code[n].count('\n', 0, m.start()) + 1
            if where[n][1] != 'coordinator':
                out.append('%s:%d uses x->%s, owned by %s' % (n, line, f, g))
                continue
            why = coordinator_use(code[n], m, group_files.get(g, set()), defs)
            if why:
                out.append('%s:%d: x->%s (%s\'s state) %s' % (n, line, f, g, why))
    for n in names:
        for m in UP_POINTER.finditer(code[n]):
            line = code[n].count('\n', 0, m.start()) + 1
            out.append('%s:%d: a function pointer taking kq_exec (a call back up)' % (n, line))
    return out


def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('--report', action='store_true')
    args = ap.parse_args()
    d = os.path.join(args.root, 'src', 'exec')
    names = sorted(os.path.basename(p) for p in glob.glob(d + '/*.[ch]'))
    raw = {n: open(os.path.join(d, n)).read() for n in names}
    code = {n: strip(t) for n, t in raw.items()}
    where = {}
    for rank, (_, groups) in enumerate(LAYERS):
        for group, files in groups.items():
            for f in files:
                where[f] = (rank, group)
    bad = ['%s: not in LAYERS (scripts/check-exec-layering.py)' % n
           for n in names if n not in where]
    defs = {}
    for n in names:
        if n.endswith('.c'):
            for m in re.finditer(r'^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\(([^;{)]|\n)*\)\s*\{',
                                 code[n], re.M):
                defs[m.group(1)] = n
    edges = set()
    for n in names:
        for m in re.finditer(r'^\s*#\s*include\s+"([\w.]+)"', raw[n], re.M):
            if m.group(1) in raw:
                edges.add((n, m.group(1), 'include'))
        if n.endswith('.c'):
            for fn, g in defs.items():
                if g != n and re.search(r'(?<![\w.>])%s\s*\(' % fn, code[n]):
                    edges.add((n, g, 'call ' + fn))
    misuse = field_misuse(names, code, where, defs)
    wrong = []
    for a, b, kind in sorted(edges):
        if a not in where or b not in where:
            continue
        (ra, ga), (rb, gb) = where[a], where[b]
        if ga != gb and rb <= ra:
            wrong.append('%s -> %s (%s): %s' % (a, b, kind, 'up' if rb < ra else 'sideways'))
    if args.report:
        src = 'exec_state.h' if 'exec_state.h' in code else 'exec_internal.h'
        fields = struct_fields(code[src])
        print('struct kq_exec: %d fields' % len(fields))
        readers = 0
        owner = {f: g for g, fs in OWNERS.items() for f in fs}
        passers = 0
        for n in names:
            used = sorted(set(re.findall(r'\bx->(\w+)', code[n])) & fields)
            passed = []
            if where.get(n, (0, ''))[1] == 'coordinator':
                passed = [f for f in used if owner.get(f) not in NOT_PARTS]
                used = [f for f in used if f not in passed]
            if used:
                readers += 1
                print('  %-26s %2d  %s' % (n, len(used), ' '.join(used)))
            if passed:
                passers += 1
                print('  %-26s %2d  passes whole: %s' % (n, len(passed), ' '.join(passed)))
        print('files reading them: %d (coordinator files passing part states whole: %d)'
              % (readers, passers))
        for a, b, kind in sorted(edges):
            print('  edge %s -> %s (%s)' % (a, b, kind))
        print('edges: %d, against the layering: %d' % (len(edges), len(wrong)))
        pairs = {(a, b) for a, b, _ in edges}
        against = {(w.split(' -> ')[0], w.split(' -> ')[1].split(' ')[0]) for w in wrong}
        print('file pairs: %d, against the layering: %d' % (len(pairs), len(against)))
        print('field uses outside their owner, kq_exec function pointers: %d' % len(misuse))
    for line in bad + wrong + misuse:
        print('exec layering: ' + line, file=sys.stderr)
    return 1 if bad or wrong or misuse else 0


if __name__ == '__main__':
    sys.exit(main())
