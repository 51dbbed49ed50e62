#!/usr/bin/env python3
"""Compares our wire descriptions (kq-wirediff's `describe`) with Kafka's own
JSON message definitions (../shared/kafka-protocol/messages, read in place and
never copied): for every API, direction and version we describe, the fields
in wire order with Kafka's snake_case names (our WIRE_KNAME), their kinds,
the versions they exist in, nullable versions, tagged fields and tag numbers,
integer and bool defaults (and string defaults of tagged fields, which decide
whether they are written), and the first flexible version. Issue 21 item 4;
the differential test against Kafka's classes is scripts/wire-diff.sh.

  scripts/wire-json-check.py [--bin build/kq-wirediff] [--messages DIR]
                             [--mutant NAME]

Exit 0 when everything agrees, 1 on any mismatch (each printed with the
versions it holds in), 77 (CTest's skip) when the messages directory is
absent. --mutant runs kq-wirediff's mutant descriptions and exits 0 only if
every message is caught (the proof that the check can fail)."""

import argparse
import json
import os
import re
import subprocess
import sys

SKIP = 77
KINDS = {
    "bool": "BOOL", "int8": "I8", "int16": "I16", "uint16": "U16", "int32": "I32",
    "int64": "I64", "uuid": "UUID", "string": "STRING", "bytes": "BYTES",
    "records": "RECORDS",
}


def snake(name):
    """Kafka's snake_case of a field name (what its generated schemas use)."""
    out, prev_upper = [], True
    for ch in name:
        if ch.isupper():
            if not prev_upper:
                out.append("_")
            out.append(ch.lower())
            prev_upper = True
        else:
            out.append(ch)
            prev_upper = False
    return "".join(out)


def versions(spec):
    """'3+', '1-4', '2' or 'none' as (lo, hi) or None."""
    if spec is None or spec == "none":
        return None
    if spec.endswith("+"):
        return (int(spec[:-1]), 1 << 15)
    if "-" in spec:
        lo, hi = spec.split("-")
        return (int(lo), int(hi))
    return (int(spec), int(spec))


def within(rng, v):
    return rng is not None and rng[0] <= v <= rng[1]


def load_kafka(directory):
    """(api key, 'request'|'response') -> Kafka's definition, comments removed."""
    defs = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            text = "\n".join(l for l in f if not l.lstrip().startswith("//"))
        d = json.loads(text)
        if d.get("type") in ("request", "response") and "apiKey" in d:
            defs[(d["apiKey"], d["type"])] = d
    return defs


def describe(binary, mutant):
    cmd = [binary] + (["--mutant", mutant] if mutant else [])
    out = subprocess.run(cmd, input="describe\n", capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    if not lines or lines[-1] != "end":
        raise SystemExit("wire-json-check: kq-wirediff describe did not end with 'end'")
    return [json.loads(l) for l in lines[:-1]]


class Checker:
    def __init__(self, common):
        self.common = common  # Kafka's commonStructs by name
        self.found = {}       # (message, path, what) -> [versions]

    def note(self, msg, v, path, what):
        self.found.setdefault((msg, path or "(body)", what), []).append(v)

    def kafka_fields(self, kf):
        if "fields" in kf:
            return kf["fields"]
        base = kf["type"][2:] if kf["type"].startswith("[]") else kf["type"]
        return self.common.get(base, {}).get("fields", [])

    @staticmethod
    def ours_present(f, v, flex):
        if not f["v_min"] <= v <= f["v_max"]:
            return False
        return f["tag"] is None or (flex and v >= f["tag_from"])

    def check_kind(self, msg, v, path, of, kf):
        kt = kf["type"]
        if kt.startswith("[]"):
            elem = kt[2:]
            if of["kind"] != "ARRAY":
                self.note(msg, v, path, f"kind {of['kind']}, Kafka's {kt}")
            elif elem in KINDS:
                if of["elem"] != KINDS[elem]:
                    self.note(msg, v, path, f"array of {of['elem'] or 'struct'}, Kafka's {kt}")
            elif of["sub"] is None:
                self.note(msg, v, path, f"array of {of['elem']}, Kafka's {kt}")
            else:
                self.check_struct(msg, v, path + "[]", of["sub"], self.kafka_fields(kf))
        elif kt in KINDS:
            want = KINDS[kt]
            if of["kind"] != want and not (want == "RECORDS" and of["kind"] == "RECORDS_EXT"):
                self.note(msg, v, path, f"kind {of['kind']}, Kafka's {kt}")
        elif of["kind"] in ("STRUCT", "INLINE"):
            self.check_struct(msg, v, path + ".", of["sub"], self.kafka_fields(kf))
        else:
            self.note(msg, v, path, f"kind {of['kind']}, Kafka's struct {kt}")

    def check_default(self, msg, v, path, of, kf, tagged):
        kt, kdef = kf["type"], kf.get("default")
        if isinstance(kdef, bool):
            kdef = "true" if kdef else "false"
        elif isinstance(kdef, int):
            kdef = str(kdef)
        if kt in ("int8", "int16", "uint16", "int32", "int64"):
            want = int(kdef, 0) if kdef not in (None, "") else 0
            if of["default"] != want:
                self.note(msg, v, path, f"default {of['default']}, Kafka's {want}")
        elif kt == "bool":
            want = 1 if kdef == "true" else 0
            if of["default"] != want:
                self.note(msg, v, path, f"default {of['default']}, Kafka's {kdef or 'false'}")
        elif kt == "string" and tagged:
            ours_null = of["nullable_from"] is not None and not of["default_empty"]
            if ours_null != (kdef == "null"):
                self.note(msg, v, path, "default %s, Kafka's %s" % (
                    "null" if ours_null else '""', "null" if kdef == "null" else json.dumps(kdef or "")))

    def check_field(self, msg, v, path, of, kf, tagged):
        kn = within(versions(kf.get("nullableVersions")), v)
        on = of["nullable_from"] is not None and v >= of["nullable_from"]
        if kn != on:
            self.note(msg, v, path, "nullable" if on else "not nullable, Kafka's nullable")
        if tagged and of["tag"] != kf.get("tag"):
            self.note(msg, v, path, f"tag {of['tag']}, Kafka's {kf.get('tag')}")
        self.check_default(msg, v, path, of, kf, tagged)
        self.check_kind(msg, v, path, of, kf)

    def check_struct(self, msg, v, prefix, ours, kafka):
        flex = self.flex
        ours_f = [f for f in ours["fields"] if self.ours_present(f, v, flex)]
        kafka_f = [f for f in kafka if within(versions(f.get("versions")), v)]
        k_tagged = lambda f: flex and within(versions(f.get("taggedVersions")), v)
        o_plain = [f for f in ours_f if f["tag"] is None]
        k_plain = [f for f in kafka_f if not k_tagged(f)]
        o_names = [f["kname"] for f in o_plain]
        k_names = [snake(f["name"]) for f in k_plain]
        if o_names != k_names:
            self.note(msg, v, prefix.rstrip("."), f"fields {o_names}, Kafka's {k_names}")
        k_by = {snake(f["name"]): f for f in kafka_f}
        for of in o_plain:
            kf = k_by.get(of["kname"])
            if kf is not None and not k_tagged(kf):
                self.check_field(msg, v, prefix + of["kname"], of, kf, False)
        o_tag = {f["kname"]: f for f in ours_f if f["tag"] is not None}
        k_tag = {snake(f["name"]): f for f in kafka_f if k_tagged(f)}
        for name in sorted(set(o_tag) | set(k_tag)):
            if name not in k_tag:
                self.note(msg, v, prefix + name, f"tagged ({o_tag[name]['tag']}) but not a tagged field in Kafka's version")
            elif name not in o_tag:
                self.note(msg, v, prefix + name, f"missing: Kafka's tagged field {k_tag[name].get('tag')}")
            else:
                self.check_field(msg, v, prefix + name, o_tag[name], k_tag[name], True)

    def check_message(self, m, kdef):
        direction = "resp" if m["response"] else "req"
        msg = f"{kdef['name'][:-7] if direction == 'req' else kdef['name'][:-8]} ({m['api']}) {direction}"
        valid = versions(kdef["validVersions"])
        flexible = versions(kdef.get("flexibleVersions", "none"))
        kflex = flexible[0] if flexible else 1 << 15
        oflex = m["flex_from"] if m["flex_from"] < (1 << 15) - 1 else 1 << 15
        for v in range(m["v_min"], m["v_max"] + 1):
            if not within(valid, v):
                # Kafka 4.0 dropped old versions (KIP-896) that some clients
                # still send; a version Kafka no longer defines has nothing
                # to compare with, which is said, not failed.
                print(f"note: {msg} v{v}: described, not in Kafka's validVersions "
                      f"{kdef['validVersions']} (nothing to compare)")
                continue
            if (v >= oflex) != (v >= kflex):
                self.note(msg, v, "", f"flexible from {m['flex_from']}, Kafka's {kdef.get('flexibleVersions')}")
            self.flex = v >= kflex
            self.check_struct(msg, v, "", m["body"], kdef["fields"])
        if valid and m["v_max"] < valid[1] < (1 << 15):
            print(f"note: {msg}: Kafka's definition also has v{m['v_max'] + 1}-{valid[1]} (not described)")


def ranges(vs):
    vs = sorted(set(vs))
    out, start = [], vs[0]
    for a, b in zip(vs, vs[1:] + [None]):
        if b != a + 1:
            out.append(f"v{start}" if start == a else f"v{start}-{a}")
            start = b
    return ",".join(out)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(root, "build", "kq-wirediff"))
    ap.add_argument("--messages", default=os.path.join(os.path.dirname(root), "shared", "kafka-protocol", "messages"))
    ap.add_argument("--mutant")
    args = ap.parse_args()
    if not os.path.isdir(args.messages):
        print(f"SKIP wire-json-check: {args.messages} is absent (Kafka's JSON definitions)")
        return SKIP
    kafka = load_kafka(args.messages)
    ours = describe(args.bin, args.mutant)
    caught, absent = set(), set()
    for m in ours:
        kdef = kafka.get((m["api"], "response" if m["response"] else "request"))
        if kdef is None:
            # not every API's JSON is in the shared copy: the class
            # differential test (wirediff_kafka_classes) checks it instead
            print(f"NOTE api {m['api']}: no Kafka definition in {args.messages}; not compared")
            absent.add((m["api"], m["response"]))
            continue
        c = Checker({s["name"]: s for s in kdef.get("commonStructs", [])})
        c.check_message(m, kdef)
        for (msg, path, what), vs in sorted(c.found.items()):
            print(f"MISMATCH {msg} {ranges(vs)}: {path}: {what}")
        if c.found:
            caught.add((m["api"], m["response"]))
    print(f"wire-json-check: {len(ours)} messages, {len(caught)} with mismatches")
    if args.mutant:
        ok = ours and len(caught) == len(ours) - len(absent)
        print(f"wire-json-check mutant {args.mutant}: caught in {len(caught)} of "
              f"{len(ours) - len(absent)} messages compared")
        return 0 if ok else 1
    return 1 if caught or not ours else 0


if __name__ == "__main__":
    sys.exit(main())
