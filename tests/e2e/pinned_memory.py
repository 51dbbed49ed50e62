#!/usr/bin/python3
"""Clients that try to pin server memory, for test_pinned_memory.sh.

usage:
  pinned_memory.py fetch PORT PID BOUND_MIB [--requests N] [--max-bytes B]
      One connection sends N pipelined consumer Fetch v4 requests (max_wait 0,
      from offset 0) and reads nothing while the server's VmRSS is sampled
      and other connections are served (ApiVersions, Metadata). Then the
      client reads every response, checking correlation ids in order.
  pinned_memory.py partial PORT PID BOUND_MIB [--conns N] [--frame-bytes F]
                   [--send-bytes S]
      N connections each send the size prefix of an F-byte frame and S bytes
      of it, never more; VmRSS is sampled and other connections are served.
      Then the connections that got furthest close and the waiting ones must
      move on (memory was handed to them).

Each prints "rss_peak_kib=<k> hwm_kib=<k> ..." and exits 1 on a failed
check, or as soon as VmRSS exceeds the bound (so that a server without the
limits does not eat the machine). Only the Python standard library is used.
"""
import argparse
import select
import socket
import struct
import sys
import time

TOPIC = b"__cluster_metadata"


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for pid {pid}")


class Rss:
    """VmRSS samples of the server; fails the test once over the bound.
    Resets the kernel's peak (VmHWM) so that it covers this run only."""

    def __init__(self, pid, bound_mib):
        self.pid, self.bound_kib, self.peak_kib = pid, bound_mib * 1024, 0
        try:
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            pass  # VmHWM then covers the server's whole life: still a bound

    def sample(self):
        kib = status_kib(self.pid, "VmRSS")
        self.peak_kib = max(self.peak_kib, kib)
        if kib > self.bound_kib:
            die(f"server VmRSS {kib} kB exceeds the bound of {self.bound_kib} kB")
        return kib

    def watch(self, secs):
        end = time.time() + secs
        while time.time() < end:
            self.sample()
            time.sleep(0.05)


def die(msg):
    print(f"FAILED: {msg}")
    sys.stdout.flush()
    sys.exit(1)


def header(api_key, version, corr, client=b"pinned-memory"):
    return struct.pack(">hhih", api_key, version, corr, len(client)) + client


def frame(body):
    return struct.pack(">i", len(body)) + body


def fetch_v4(corr, max_bytes):
    body = struct.pack(">iiiib", -1, 0, 0, max_bytes, 0)  # replica, max_wait 0, min_bytes, max, isolation
    body += struct.pack(">ih", 1, len(TOPIC)) + TOPIC
    body += struct.pack(">iiqi", 1, 0, 0, max_bytes)  # partition 0 from offset 0
    return frame(header(1, 4, corr) + body)


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError("server closed the connection")
        buf += chunk
    return bytes(buf)


def recv_frame(s):
    (n,) = struct.unpack(">i", recv_exact(s, 4))
    return recv_exact(s, n)


def probe(port):
    """ApiVersions v0 and Metadata v1 on a fresh connection: the server
    serves others while clients pin memory."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(frame(header(18, 0, 7)))
        r = recv_frame(s)
        corr, err = struct.unpack(">ih", r[:6])
        if corr != 7 or err != 0:
            die(f"ApiVersions: correlation {corr} error {err}")
        s.sendall(frame(header(3, 1, 8) + struct.pack(">ih", 1, len(TOPIC)) + TOPIC))
        r = recv_frame(s)
        if struct.unpack(">i", r[:4])[0] != 8 or TOPIC not in r:
            die("Metadata: bad response")
    finally:
        s.close()


def check_fetch_response(r, corr):
    got = struct.unpack(">i", r[:4])[0]
    if got != corr:
        die(f"response {corr}: correlation id {got}")
    # throttle, topics[1]: name, partitions[1]: index, error, hw, lso, aborted, records
    pos = 4 + 4 + 4 + 2 + len(TOPIC) + 4 + 4
    err = struct.unpack(">h", r[pos:pos + 2])[0]
    pos += 2 + 8 + 8
    aborted = struct.unpack(">i", r[pos:pos + 4])[0]
    pos += 4 + max(aborted, 0) * 16
    records = struct.unpack(">i", r[pos:pos + 4])[0]
    if err != 0 or records <= 0:
        die(f"response {corr}: error {err}, {records} bytes of records")
    return records


def run_fetch(a):
    rss = Rss(a.pid, a.bound_mib)
    base_kib = rss.sample()
    s = socket.create_connection(("127.0.0.1", a.port), timeout=30)
    reqs = b"".join(fetch_v4(i, a.max_bytes) for i in range(a.requests))
    s.setblocking(False)
    sent, last = 0, time.time()
    while sent < len(reqs) and time.time() - last < 10:
        rss.sample()
        _, w, _ = select.select([], [s], [], 0.05)
        if w:
            sent += s.send(reqs[sent:sent + (1 << 20)])
            last = time.time()
    if sent < len(reqs):
        die(f"only {sent} of {len(reqs)} request bytes could be sent")
    rss.watch(3)  # the server has answered what it will answer unread
    for _ in range(3):
        probe(a.port)
        rss.sample()
    pinned_peak_kib = rss.peak_kib
    hwm_kib = status_kib(a.pid, "VmHWM")
    s.setblocking(True)
    s.settimeout(60)
    total = 0
    for corr in range(a.requests):
        total += check_fetch_response(recv_frame(s), corr)
        if corr % 500 == 0:
            rss.sample()
    s.close()
    probe(a.port)
    hwm_kib = status_kib(a.pid, "VmHWM")
    print(f"rss_base_kib={base_kib} rss_peak_kib={rss.peak_kib} "
          f"rss_pinned_peak_kib={pinned_peak_kib} hwm_kib={hwm_kib} "
          f"responses={a.requests} response_bytes={total}")
    if hwm_kib > rss.bound_kib:
        die(f"server VmHWM {hwm_kib} kB exceeds the bound of {rss.bound_kib} kB")


def pump_partial(socks, sent, want, rss, idle_secs):
    """Sends on every socket until each sent `want` bytes or nothing moved
    for idle_secs."""
    chunk = bytes(1 << 16)
    last = time.time()
    while time.time() - last < idle_secs:
        busy = [s for s in socks if s.fileno() >= 0 and sent[s] < want]
        if not busy:
            return
        _, ws, _ = select.select([], busy, [], 0.05)
        for s in ws:
            n = s.send(chunk[:min(len(chunk), want - sent[s])])
            if n > 0:
                sent[s] += n
                last = time.time()
        rss.sample()


def run_partial(a):
    rss = Rss(a.pid, a.bound_mib)
    base_kib = rss.sample()
    socks, sent = [], {}
    for _ in range(a.conns):
        s = socket.create_connection(("127.0.0.1", a.port), timeout=10)
        s.setblocking(False)
        s.send(struct.pack(">i", a.frame_bytes))
        socks.append(s)
        sent[s] = 4
    want = a.send_bytes + 4
    pump_partial(socks, sent, want, rss, 3)
    rss.watch(1)
    for _ in range(3):
        probe(a.port)
        rss.sample()
    full = [s for s in socks if sent[s] >= want]
    waiting = [s for s in socks if sent[s] < want]
    if not full or not waiting:
        die(f"{len(full)} connections sent everything, {len(waiting)} wait: "
            f"expected some of each (budget {a.frame_bytes} B frames)")
    first_full = len(full)
    pinned_peak_kib = rss.peak_kib
    for s in full:
        s.close()
    pump_partial(waiting, sent, want, rss, 3)
    moved = [s for s in waiting if sent[s] >= want]
    if not moved:
        die("no waiting connection moved on after the admitted ones closed")
    rss.watch(0.5)
    probe(a.port)
    hwm_kib = status_kib(a.pid, "VmHWM")
    for s in waiting:
        s.close()
    print(f"rss_base_kib={base_kib} rss_peak_kib={rss.peak_kib} "
          f"rss_pinned_peak_kib={pinned_peak_kib} hwm_kib={hwm_kib} "
          f"admitted_first={first_full} admitted_after_close={len(moved)} conns={a.conns}")
    if hwm_kib > rss.bound_kib:
        die(f"server VmHWM {hwm_kib} kB exceeds the bound of {rss.bound_kib} kB")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["fetch", "partial"])
    p.add_argument("port", type=int)
    p.add_argument("pid", type=int)
    p.add_argument("bound_mib", type=int)
    p.add_argument("--requests", type=int, default=10000)
    p.add_argument("--max-bytes", type=int, default=256 * 1024)
    p.add_argument("--conns", type=int, default=40)
    p.add_argument("--frame-bytes", type=int, default=100 * 1024 * 1024)
    p.add_argument("--send-bytes", type=int, default=25 * 1000 * 1000)
    a = p.parse_args()
    if a.mode == "fetch":
        run_fetch(a)
    else:
        run_partial(a)


if __name__ == "__main__":
    main()
