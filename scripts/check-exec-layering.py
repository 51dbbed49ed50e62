#!/usr/bin/env python3
"""Keeps the executor's calls and includes pointing one way (issue 21 item 5).

src/exec is one coordinator over parts that each own their state, on a base
(src/exec/exec_internal.h names them). LAYERS below declares the order, top
first; a file may include or call only files of a lower layer or of its own
group. The parts are siblings: none reaches another, or the coordinator,
except through what the coordinator passes (kq_exec.up, a table of function
pointers, which this check does not count as a call). An edge is an
#include "..." of a src/exec header, or a call of a non-static function
defined in another src/exec file. Every file in src/exec must be listed.

  scripts/check-exec-layering.py [--root DIR] [--report]

Exits 1 on an upward or sideways edge, or an unlisted file. --report also
prints, per file, the fields of struct kq_exec it reads (x->field) and
every edge. Registered with CTest as exec_layering."""
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
        'peers': ['exec_peer.c', 'exec_endpoints.c', 'exec_peer.h'],
        'search': ['exec_search.c', 'exec_search.h'],
        'stream': ['exec_stream.c', 'exec_stream.h'],
        'workload': ['exec_workload.c', 'exec_workload.h'],
        'producer_ids': ['exec_producer_ids.c', 'exec_producer_ids.h'],
        'produce': ['exec_produce.c', 'exec_produce.h'],
        'offsets': ['exec_offsets.c', 'exec_offsets.h'],
        'snapshot': ['exec_snapshot.c', 'exec_snapshot_open.c', 'exec_snapshot_fail.c',
                     'exec_snapshot_transfer.c', 'exec_retention.c', 'exec_snapshot.h'],
    }),
    ('metrics', {'metrics': ['exec_metrics.c', 'exec_metrics.h']}),
    ('base', {'base': ['exec_base.c', 'exec_state.h']}),
]


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
    wrong = []
    for a, b, kind in sorted(edges):
        if a not in where or b not in where:
            continue
        (ra, ga), (rb, gb) = where[a], where[b]
        if ga != gb and rb <= ra:
            wrong.append('%s -> %s (%s): %s' % (a, b, kind, 'up' if rb < ra else 'sideways'))
    if args.report:
        src = 'exec_state.h' if 'exec_state.h' in code else 'exec_internal.h'
        body = re.search(r'struct kq_exec \{(.*?)\n\};', code[src], re.S).group(1)
        fields = set()
        for decl in body.split(';'):
            for part in decl.split(','):
                m = re.search(r'\**\s*(\w+)\s*(\[[^\]]*\]\s*)*$', part.strip())
                if m:
                    fields.add(m.group(1))
        print('struct kq_exec: %d fields' % len(fields))
        readers = 0
        for n in names:
            used = sorted(set(re.findall(r'\bx->(\w+)', code[n])) & fields)
            if used:
                readers += 1
                print('  %-26s %2d  %s' % (n, len(used), ' '.join(used)))
        print('files reading them: %d' % readers)
        for a, b, kind in sorted(edges):
            print('  edge %s -> %s (%s)' % (a, b, kind))
        print('edges: %d, against the layering: %d' % (len(edges), len(wrong)))
        pairs = {(a, b) for a, b, _ in edges}
        against = {(w.split(' -> ')[0], w.split(' -> ')[1].split(' ')[0]) for w in wrong}
        print('file pairs: %d, against the layering: %d' % (len(pairs), len(against)))
    for line in bad + wrong:
        print('exec layering: ' + line, file=sys.stderr)
    return 1 if bad or wrong else 0


if __name__ == '__main__':
    sys.exit(main())
