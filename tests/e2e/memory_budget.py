#!/usr/bin/python3
"""Clients that pin memory together, for test_memory_budget.sh (issue 19).

usage: memory_budget.py PORT PID BOUND_MIB [--conns N] [--requests R]
                        [--max-bytes B] [--announcers A] [--announce-bytes F]

N connections each pipeline R consumer Fetch v4 requests (max_wait 0, from
offset 0, B bytes each) and never read. While they hold the server's
response budget, VmRSS is sampled and a fresh connection's ApiVersions and
Metadata must be answered (each within 10 s). Then A more connections
announce F-byte frames and send one byte of each: the request budget is not
taken by announced sizes, so a fresh ApiVersions is answered again. Prints
"rss_base_kib=.. rss_peak_kib=.. hwm_kib=.. ..." and exits 1 on a failed
check, or as soon as VmRSS passes the bound. Standard library only.
"""
import argparse
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pinned_memory import Rss, die, fetch_v4, probe, status_kib  # noqa: E402


def pipeline(port, requests, max_bytes, rss):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.setblocking(False)
    data = b"".join(fetch_v4(i, max_bytes) for i in range(requests))
    return s, data


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("pid", type=int)
    p.add_argument("bound_mib", type=int)
    p.add_argument("--conns", type=int, default=40)
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--max-bytes", type=int, default=1 << 20)
    p.add_argument("--announcers", type=int, default=4)
    p.add_argument("--announce-bytes", type=int, default=64 << 20)
    a = p.parse_args()
    rss = Rss(a.pid, a.bound_mib)
    base_kib = rss.sample()
    conns = [pipeline(a.port, a.requests, a.max_bytes, rss) for _ in range(a.conns)]
    sent = {s: 0 for s, _ in conns}
    last = time.time()
    # Send what the sockets take; the server stops reading them past its
    # budgets, so the rest stays in the client (TCP back-pressure).
    while time.time() - last < 3:
        busy = [s for s, d in conns if sent[s] < len(d)]
        if not busy:
            break
        _, ws, _ = select.select([], busy, [], 0.05)
        for s, d in conns:
            if s in ws:
                n = s.send(d[sent[s]:sent[s] + (1 << 16)])
                if n > 0:
                    sent[s] += n
                    last = time.time()
        rss.sample()
    rss.watch(2)
    for _ in range(3):
        t0 = time.time()
        probe(a.port)
        rss.sample()
        if time.time() - t0 > 10:
            die("ApiVersions/Metadata took over 10 s while the budget was held")
    pinned_kib = rss.peak_kib
    # Announced sizes take nothing.
    ann = []
    for _ in range(a.announcers):
        s = socket.create_connection(("127.0.0.1", a.port), timeout=10)
        s.sendall(struct.pack(">i", a.announce_bytes) + b"\0")
        ann.append(s)
    rss.watch(1)
    t0 = time.time()
    probe(a.port)
    probe_ms = int((time.time() - t0) * 1000)
    rss.sample()
    hwm_kib = status_kib(a.pid, "VmHWM")
    requests_sent = sum(sent.values()) // len(fetch_v4(0, a.max_bytes))
    print(f"rss_base_kib={base_kib} rss_peak_kib={rss.peak_kib} rss_pinned_peak_kib={pinned_kib} "
          f"hwm_kib={hwm_kib} conns={a.conns} requests_taken={requests_sent} "
          f"asked_bytes={a.conns * a.requests * a.max_bytes} "
          f"probe_after_announcers_ms={probe_ms}")
    for s in ann:
        s.close()
    for s, _ in conns:
        s.close()
    if hwm_kib > rss.bound_kib:
        die(f"server VmHWM {hwm_kib} kB exceeds the bound of {rss.bound_kib} kB")


if __name__ == "__main__":
    main()
