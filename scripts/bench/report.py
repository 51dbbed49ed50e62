#!/usr/bin/python3
"""latest.csv (scripts/bench-all.sh) -> latest.md and latest.png (gnuplot).

Every figure is the median of the runs of a cell with (min-max); a ratio
ours/Kafka is computed per run index (ours run i against Kafka run i of
the same cell, measured back to back) and the median of those is shown.
"""
import argparse
import csv
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import defaultdict

SIZE_NAME = {10: "10 B", 100: "100 B", 1024: "1 KB", 65536: "64 KB"}
CLIENT_NAME = {"native": "kq-load", "perf": "perf-test"}
SYS_NAME = {"ours": "ours", "kafka": "Kafka", "trs": "TestRaftServer"}


def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def num(v, d=0):
    if v is None:
        return "—"
    if d == 0:
        return f"{v:,.0f}"
    return f"{v:,.{d}f}"


def spread(xs, d=0):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    m = statistics.median(xs)
    if len(xs) == 1:
        return num(m, d)
    return f"{num(m, d)} ({num(min(xs), d)}–{num(max(xs), d)})"


def lat(v):
    if v is None:
        return "—"
    return f"{v:.2f}" if v < 10 else f"{v:,.0f}"


def rate_name(label):
    if label in ("max", "half"):
        return {"max": "unlimited", "half": "50% of max"}[label]
    return f"{int(label):,}/s"


def load(path):
    rows = list(csv.DictReader(open(path)))
    perf, disk, wl, rss, skips = [], [], [], [], []
    for r in rows:
        s = r["section"]
        if s == "perf":
            perf.append(r)
        elif s == "disk":
            disk.append(r)
        elif s == "workload":
            wl.append(r)
        elif s == "skip":
            skips.append(r)
    # rss rows: rss,system,nodes,node,kb (short rows)
    for line in open(path):
        p = line.strip().split(",")
        if p[0] == "rss":
            rss.append((p[1], int(p[2]), int(p[3]), int(p[4] or 0)))
    return perf, disk, wl, rss, skips


def disk_limits(disk):
    """{(writers, batch): MB/s}"""
    out = {}
    for r in disk:
        out[(int(r["nodes"]), int(r["size"]))] = f(r["mb_s"])
    return out


def share(limits, nodes):
    """The append+fdatasync MB/s one replica gets when <nodes> replicas share
    the disk: the best batch size's figure, 1 writer alone, else the 3-writer
    aggregate split n ways."""
    w = 1 if nodes == 1 else 3
    best = max([v for (ww, _), v in limits.items() if ww == w and v], default=None)
    if best is None:
        return None
    return best if nodes == 1 else best / nodes


def wl_ratios(c):
    """Per run index: our workload's p99 over TestRaftServer's p75 (kept in
    the p50_ms column of the workload rows)."""
    return [f(c["ours"][i]["p99_ms"]) / f(c["trs"][i]["p50_ms"])
            for i in sorted(set(c.get("ours", {})) & set(c.get("trs", {})))
            if f(c["trs"][i]["p50_ms"])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cmd", default="scripts/bench-all.sh")
    ap.add_argument("--kafka", default="4.4.0")
    ap.add_argument("--elapsed", default="?")
    ap.add_argument("--runs", default="?")
    ap.add_argument("--secs", default="?")
    ap.add_argument("--wl", default="")
    a = ap.parse_args()

    perf, disk, wl, rss, skips = load(a.csv)
    limits = disk_limits(disk)

    # cells[(nodes, client, size, rate)][system][run] = row
    cells = defaultdict(lambda: defaultdict(dict))
    for r in perf:
        key = (int(r["nodes"]), r["client"], int(r["size"]), r["rate"])
        cells[key][r["system"]][int(r["run"])] = r

    maxrss = defaultdict(int)  # (system, nodes) -> kB
    for sysname, nodes, _, kb in rss:
        maxrss[(sysname, nodes)] = max(maxrss[(sysname, nodes)], kb)

    def rate_order(label):
        return {"max": 0, "half": 10**9}.get(label, int(label) if label.isdigit() else 0)

    keys = sorted(cells, key=lambda k: (k[0], k[1] != "native", k[2], rate_order(k[3])))

    def col(rows, name):
        return [f(r[name]) for r in rows]

    def per_run_ratio(cell, name, inverse=False):
        o, k = cell.get("ours", {}), cell.get("kafka", {})
        rs = []
        for i in sorted(set(o) & set(k)):
            x, y = f(o[i][name]), f(k[i][name])
            if x and y:
                rs.append(y / x if inverse else x / y)
        return rs

    md = []
    cpu_model = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu_model = line.split(":", 1)[1].strip()
            break
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    md.append("# Benchmark: kraft-quorum against Apache Kafka\n")
    md.append(f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; command: `{a.cmd}`; "
              f"measuring took {a.elapsed} s.\n")
    md.append(f"Machine: {os.cpu_count()} vCPU ({cpu_model}), {mem_gib:.0f} GiB RAM, "
              f"Linux {platform.release()}; {java[0] if java else 'java ?'}. A shared machine: other "
              "engineers' builds and tests may have run at the same time, so compare figures of one "
              "run pair (the ratios) rather than across rows. Servers and client share the two cores.\n")
    md.append(f"Systems: ours (`build/raft-server`, Release) and Apache Kafka {a.kafka} brokers (KRaft "
              "combined mode, one JVM per node, -Xmx1G G1) at equal durability: `flush.messages=1` "
              "(fsync before acknowledging), replication factor = nodes, `min.insync.replicas` = "
              "majority, no unclean election; topic `bench` with 1 partition, every replica in the ISR "
              "and every metadata-quorum voter at lag 0 (`kafka-metadata-quorum describe --replication`) "
              "before each cell; ours writes `__cluster_metadata`, every voter at the high watermark "
              "(DescribeQuorum) before each run. Both run at the same time, idle while the other is "
              "measured, so that run i of ours and of Kafka are measured back to back.\n")
    md.append(f"Clients (the same on both sides): **kq-load** (native, librdkafka defaults but linger.ms=0 and "
              "max.in.flight.requests.per.connection=5 and queue.buffering.max.kbytes=32768, the Java "
              "client's defaults, acks=-1, "
              f"two driver threads with one connection each (`--threads 2`), `--seconds {a.secs}`) "
              f"and **perf-test** (Kafka {a.kafka} "
              "producer-perf-test, default tiered JIT, `config/producer.properties`: acks=all, "
              f"linger.ms=1; as many records as {a.secs} s at the system's own rate). Each (nodes, "
              f"client, size) cell starts with one unmeasured warm-up run per system (and each node count "
              f"with a kq-load 1 KB run of 3x the run length per system), then {a.runs} "
              "measured run(s) per rate; figures are medians with (min–max). Latencies are the "
              "client's, send to acknowledgement, in ms. Server CPU: utime+stime of all the "
              "system's server processes over the send period, in % of one core (200% = the "
              "whole machine); client CPU: the client process over its lifetime (JVM start-up "
              "included). RSS: the largest VmHWM of one server process of that system and node "
              "count, from /proc/PID/status at the end of its runs.\n")

    # --- disk ---------------------------------------------------------------
    md.append("## The disk's own limit\n")
    md.append("`build/kq-disk-append` (tools/disk-append): each writer appends a batch with write(2) "
              "then fdatasync(2), in a loop, on the same file system as the data directories.\n")
    md.append("| batch | writers | MB/s (all writers) | fdatasync/s | MB/s per writer |")
    md.append("|---|---|---|---|---|")
    for r in sorted(disk, key=lambda r: (int(r["size"]), int(r["nodes"]))):
        w = int(r["nodes"])
        md.append(f"| {int(r['size']) // 1024} KiB | {w} | {num(f(r['mb_s']), 1)} | "
                  f"{num(f(r['records_s']))} | {num(f(r['mb_s']) / w, 1)} |")
    md.append("")
    md.append("\"% disk\" below is a system's MB/s of record payload against the limit one replica "
              "gets at the best of these batch sizes: alone on 1 node, the 3-writer aggregate split by "
              "the node count on "
              f"3 or 5 nodes ({num(share(limits, 1), 0)} MB/s for 1 node, {num(share(limits, 3), 0)} "
              f"MB/s for 3, {num(share(limits, 5), 0)} MB/s for 5).\n")

    # --- main table -----------------------------------------------------------
    md.append("## Throughput and latency\n")
    md.append("Ratios are the median of per-run ratios: records/s ours/Kafka (only meaningful at the "
              "unlimited rate) and p99 Kafka/ours (above 1: ours is faster). \"limit\" is a heuristic "
              "from the CPU columns: `cpu` when servers + client used ≥ 180% of the 200% the "
              "machine has, `client`/`servers` when that side alone used ≥ 90% (one core), else "
              "`-` (neither is CPU-bound: disk, network or pacing).\n")
    md.append("| nodes | client | size | rate | system | offered/s | records/s (min–max) | MB/s | % disk | "
              "p50 ms | p99 ms | p99.9 ms | server CPU % | client CPU % | max RSS MB | limit | "
              "records/s ours/Kafka | p99 Kafka/ours |")
    md.append("|" + "---|" * 18)
    plot_tp, plot_lat = [], []
    for key in keys:
        nodes, client, size, rate = key
        cell = cells[key]
        for sysname in ("ours", "kafka"):
            runs = [cell[sysname][i] for i in sorted(cell.get(sysname, {}))]
            if not runs:
                continue
            rps, mbs = col(runs, "records_s"), col(runs, "mb_s")
            srv, cli = med(col(runs, "server_cpu_pct")), med(col(runs, "client_cpu_pct"))
            lim = share(limits, nodes)
            pct = 100 * med(mbs) / lim if lim and med(mbs) is not None else None
            limit = "-"
            if srv is not None and cli is not None:
                if srv + cli >= 180:
                    limit = "cpu"
                elif cli >= 90:
                    limit = "client"
                elif srv >= 90:
                    limit = "servers"
            offered = "—" if rate == "max" else spread(col(runs, "offered"))
            r1 = r2 = ""
            if sysname == "ours":
                rr = per_run_ratio(cell, "records_s")
                lr = per_run_ratio(cell, "p99_ms", inverse=True)
                r1 = f"{med(rr):.2f}" if rr and rate == "max" else ""
                r2 = f"{med(lr):.2f}" if lr else ""
            rs = maxrss.get((sysname, nodes))
            md.append(f"| {nodes} | {CLIENT_NAME.get(client, client)} | {SIZE_NAME.get(size, size)} | "
                      f"{rate_name(rate)} | {SYS_NAME[sysname]} | {offered} | {spread(rps)} | "
                      f"{num(med(mbs), 2)} | {num(pct, 1)} | {lat(med(col(runs, 'p50_ms')))} | "
                      f"{lat(med(col(runs, 'p99_ms')))} | {lat(med(col(runs, 'p999_ms')))} | "
                      f"{num(srv)} | {num(cli)} | {num(rs / 1024, 1) if rs else '—'} | {limit} | {r1} | {r2} |")
        label = f"{nodes}n {CLIENT_NAME.get(client, client)} {SIZE_NAME.get(size, size)}"
        o = [f(cell["ours"][i]["records_s"]) for i in cell.get("ours", {})]
        k = [f(cell["kafka"][i]["records_s"]) for i in cell.get("kafka", {})]
        if rate == "max":
            plot_tp.append((label, o, k))
        else:
            op = [f(cell["ours"][i]["p99_ms"]) for i in cell.get("ours", {})]
            kp = [f(cell["kafka"][i]["p99_ms"]) for i in cell.get("kafka", {})]
            o5 = [f(cell["ours"][i]["p50_ms"]) for i in cell.get("ours", {})]
            k5 = [f(cell["kafka"][i]["p50_ms"]) for i in cell.get("kafka", {})]
            plot_lat.append((f"{label} {rate_name(rate)}", o5, op, k5, kp))
    for s in skips:
        md.append(f"| {s['nodes']} | {CLIENT_NAME.get(s['client'], s['client'])} | "
                  f"{SIZE_NAME.get(int(s['size']), s['size'])} | {rate_name(s['rate'])} | both | "
                  + "skipped: neither system reached this rate unlimited |" + " |" * 11)
    md.append("")

    # --- workload -------------------------------------------------------------
    wcells = defaultdict(lambda: defaultdict(dict))
    for r in wl:
        wcells[(int(r["nodes"]), int(r["size"]), int(float(r["offered"])))][r["system"]][int(r["run"])] = r
    if wcells:
        md.append("## Built-in workload against Kafka's TestRaftServer\n")
        md.append(f"Both leaders append records themselves (`--throughput`, `--record-size`; {a.wl}, "
                  "measured after the first 5 s report) and report latency from append to commit. "
                  "The figures are each leader's last 5 s line (Kafka's: its metrics' current rate "
                  "and percentiles; ours: the last 5 s window, whole ms). TestRaftServer runs "
                  f"from the Kafka {a.kafka} broker classpath, -Xmx1G, one JVM per voter. Kafka's "
                  "current rate divides by at least its 30 s metric window, so in runs shorter than "
                  "about 35 s its bytes/s reads low even when it keeps up; compare the latencies.\n")
        md.append("| voters | offered | system | bytes/s (min–max) | p75 ms | p99 ms | p99.9 ms | "
                  "server CPU % | max RSS MB | ours p99 / TRS p75 |")
        md.append("|---|---|---|---|---|---|---|---|---|---|")
        for key in sorted(wcells):
            n, size, rate = key
            c = wcells[key]
            for sysname in ("ours", "trs"):
                runs = [c[sysname][i] for i in sorted(c.get(sysname, {}))]
                if not runs:
                    continue
                ratio = ""
                if sysname == "ours":
                    rs = wl_ratios(c)
                    ratio = f"{med(rs):.2f}" if rs else ""
                rssk = maxrss.get(("ours-workload" if sysname == "ours" else "trs", n))
                md.append(f"| {n} | {rate:,}/s × {size} B | {SYS_NAME[sysname]} | "
                          f"{spread(col(runs, 'records_s'))} | {spread(col(runs, 'p50_ms'), 1)} | "
                          f"{spread(col(runs, 'p99_ms'), 1)} | {spread(col(runs, 'p999_ms'), 1)} | "
                          f"{num(med(col(runs, 'server_cpu_pct')))} | "
                          f"{num(rssk / 1024, 1) if rssk else '—'} | {ratio} |")
        md.append("\n(The workload CSV rows keep p75 in the p50_ms column.)\n")

    # --- rss ------------------------------------------------------------------
    if rss:
        md.append("## Memory\n")
        md.append("VmHWM (peak resident set) of every server process, MB, read from /proc/PID/status "
                  "at the end of that system's runs for the node count (\"ours-workload\": the "
                  "built-in workload runs; TRS: TestRaftServer).\n")
        md.append("| system | nodes | VmHWM per node, MB |")
        md.append("|---|---|---|")
        byk = defaultdict(list)
        for sysname, nodes, node, kb in rss:
            byk[(sysname, nodes)].append((node, kb))
        for (sysname, nodes), v in sorted(byk.items()):
            # several runs of the workload: the largest per node
            per = defaultdict(int)
            for node, kb in v:
                per[node] = max(per[node], kb)
            md.append(f"| {sysname} | {nodes} | " + ", ".join(f"{per[k] / 1024:.1f}" for k in sorted(per)) + " |")
        md.append("")

    # --- targets --------------------------------------------------------------
    md.append("## Targets\n")
    md.append("Each target of issue 10 with the figure this run measured. \"—\": not measured in this run.\n")
    md.append("| target | cell | measured | met? |")
    md.append("|---|---|---|---|")

    def verdict(ok, how):
        return f"met ({how})" if ok else f"**not met** ({how})"

    for n in (1, 3):
        for size, want in ((10, 3.0), (100, 3.0), (1024, 2.0)):
            cell = cells.get((n, "native", size, "max"))
            rr = per_run_ratio(cell, "records_s") if cell else []
            t = f"ours ≥ {want:g}× Kafka records/s"
            c = f"{n} node(s), kq-load, {SIZE_NAME[size]}, unlimited"
            if not rr:
                md.append(f"| {t} | {c} | — | — |")
                continue
            m = med(rr)
            # When the client, not the server, was the limit the records/s
            # ratio understates the servers: give the CPU each spent per
            # record too (Kafka's over ours, per run pair) and the client's CPU.
            eff = []
            o, k = cell.get("ours", {}), cell.get("kafka", {})
            for i in sorted(set(o) & set(k)):
                xo, xk = f(o[i]["records_s"]), f(k[i]["records_s"])
                co, ck = f(o[i]["server_cpu_pct"]), f(k[i]["server_cpu_pct"])
                if xo and xk and co and ck:
                    eff.append((ck / xk) / (co / xo))
            cli = [f(r["client_cpu_pct"]) for r in o.values() if f(r["client_cpu_pct"])]
            extra = ""
            if eff:
                extra = f" (server CPU per record Kafka/ours {med(eff):.1f}×"
                extra += f"; kq-load CPU against ours {med(cli):.0f}%)" if cli else ")"
            md.append(f"| {t} | {c} | {m:.2f}×{extra} | {verdict(m >= want, f'{m / want:.2f} of the target')} |")
    for key in keys:
        nodes, client, size, rate = key
        if rate in ("max", "half"):
            continue
        lr = per_run_ratio(cells[key], "p99_ms", inverse=False)  # ours/kafka
        if not lr:
            continue
        m = med(lr)
        md.append(f"| p99 ≤ ⅓ of Kafka's at equal load | {nodes} node(s), {CLIENT_NAME.get(client)}, "
                  f"{SIZE_NAME.get(size)}, {rate_name(rate)} | ours/Kafka p99 = {m:.2f} | "
                  f"{verdict(m <= 1 / 3, f'{m * 3:.2f}× the allowed third')} |")
    for size in sorted({k[2] for k in keys if k[0] == 3 and k[1] == "native" and k[3] == "1000"}):
        runs = list(cells[(3, "native", size, "1000")].get("ours", {}).values())
        p = med(col(runs, "p50_ms"))
        if p is not None:
            md.append(f"| p50 < 1 ms at 1,000/s | 3 nodes, kq-load, {SIZE_NAME.get(size)} | {p:.2f} ms | "
                      f"{verdict(p < 1, f'{p:.2f} ms of 1 ms')} |")
    lim3 = share(limits, 3)
    for size in (1024, 65536):
        for client in ("native", "perf"):
            cell = cells.get((3, client, size, "max"))
            runs = list(cell.get("ours", {}).values()) if cell else []
            m = med(col(runs, "mb_s"))
            c = f"3 nodes, {CLIENT_NAME[client]}, {SIZE_NAME[size]}, unlimited"
            if m is None or not lim3:
                md.append(f"| ≥ 60% of the disk's limit shared by 3 | {c} | — | — |")
                continue
            pct = 100 * m / lim3
            md.append(f"| ≥ 60% of the disk's limit shared by 3 | {c} | {m:.1f} MB/s = {pct:.1f}% of "
                      f"{lim3:.0f} MB/s | {verdict(pct >= 60, f'{pct / 60:.2f} of the target')} |")
    ours_rss = [kb for s, _, _, kb in rss if s in ("ours", "ours-workload")]
    if ours_rss:
        mx = max(ours_rss) / 1024
        md.append(f"| < 16 MB RSS per node throughout | every ours server of this run (VmHWM) | "
                  f"max {mx:.1f} MB | {verdict(mx < 16, f'{mx:.1f} of 16 MB')} |")
    for key in sorted(wcells):
        n, size, rate = key
        c = wcells[key]
        rs = wl_ratios(c)
        op = med([f(r["p99_ms"]) for r in c.get("ours", {}).values()])
        tp = med([f(r["p50_ms"]) for r in c.get("trs", {}).values()])
        if op is None or tp is None:
            continue
        ok = op < tp
        md.append(f"| workload p99 < TestRaftServer's p75 | {n} voter(s), {rate:,}/s × {size} B | "
                  f"ours p99 {op:g} ms, TRS p75 {tp:g} ms (per-run ratio {med(rs) if rs else float('nan'):.2f}) | "
                  f"{verdict(ok, f'{op:g} against {tp:g} ms')} |")
    md.append("")
    md.append("![throughput and latency](latest.png)\n")
    md.append(f"Raw results: [latest.csv](latest.csv) (one row per run).\n")
    open(os.path.join(a.out, "latest.md"), "w").write("\n".join(md))
    plot_wl = []
    for key in sorted(wcells):
        n, size, rate = key
        c = wcells[key]
        vals = []
        for sysname in ("ours", "trs"):
            rs = list(c.get(sysname, {}).values())
            vals += [med(col(rs, "p50_ms")) or 0, med(col(rs, "p99_ms")) or 0]
        plot_wl.append((f"{n} voter(s) {rate}/s x {size} B", vals))
    plot(a.out, plot_tp, plot_lat, plot_wl)


def four_bars(title, datafile, titles, colours):
    """A gnuplot panel of clustered bars from columns 2-5 of datafile, in ms."""
    uses = [f'"{datafile}" using 2:xtic(1)'] + ['"" using %d' % c for c in (3, 4, 5)]
    series = [f'{u} title "{t}" lc rgb "{c}"' for u, t, c in zip(uses, titles, colours)]
    return (f'set title "{title}"\nset ylabel "ms"\nset style histogram clustered gap 2\n'
            "plot " + ", \\\n     ".join(series) + "\n")


def plot(out, tp, latc, wlc):
    files = []

    def mm(xs):
        xs = [x for x in xs if x is not None]
        return (statistics.median(xs), min(xs), max(xs)) if xs else (0, 0, 0)

    def datafile(name, lines):
        path = os.path.join(out, name)
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        files.append(path)
        return path

    panels = []
    if tp:
        d = datafile(".plot-tp.dat", [f'"{l}" ' + " ".join(str(v) for v in mm(o) + mm(k)) for l, o, k in tp])
        panels.append(f"""set title "Unlimited rate: records/s, median of runs with min-max (log scale)"
set ylabel "records/s"
set style histogram errorbars gap 2 lw 1
plot "{d}" using 2:3:4:xtic(1) title "ours" lc rgb "#1f77b4", \\
     "" using 5:6:7 title "Kafka" lc rgb "#ff7f0e"
""")
    if latc:
        d = datafile(".plot-lat.dat", [f'"{l}" {mm(a)[0]} {mm(b)[0]} {mm(c)[0]} {mm(e)[0]}'
                                       for l, a, b, c, e in latc])
        panels.append(four_bars("Fixed rates: client latency p50 and p99, ms, medians (log scale)", d,
                                ("ours p50", "ours p99", "Kafka p50", "Kafka p99"),
                                ("#aec7e8", "#1f77b4", "#ffbb78", "#ff7f0e")))
    if wlc:
        d = datafile(".plot-wl.dat", [f'"{l}" ' + " ".join(str(max(v, 0.1)) for v in vals) for l, vals in wlc])
        panels.append(four_bars("Built-in workload against TestRaftServer: append-to-commit latency, "
                                "ms (log scale)", d,
                                ("ours p75", "ours p99", "TestRaftServer p75", "TestRaftServer p99"),
                                ("#aec7e8", "#1f77b4", "#98df8a", "#2ca02c")))
    if not panels:
        return
    width = max(1400, 40 * max(len(tp), len(latc), 1))
    gp = f"""set terminal pngcairo size {width},{450 * len(panels) + 100} font "sans,10"
set output "{os.path.join(out, 'latest.png')}"
set multiplot layout {len(panels)},1
set style data histogram
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30 scale 0 noenhanced
set logscale y
set grid ytics
set key outside right top
""" + "".join(panels) + "unset multiplot\n"
    r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
    for p in files:
        os.remove(p)
    if r.returncode != 0:
        sys.exit("gnuplot failed: " + r.stderr[-500:])


if __name__ == "__main__":
    main()
