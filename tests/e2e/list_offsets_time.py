#!/usr/bin/python3
"""ListOffsets by timestamp must not stall the event loop (issue 19), for
test_list_offsets_time.sh.

usage: list_offsets_time.py PORT N BOUND_MS

One connection pipelines N ListOffsets v7 requests with timestamp -3 (max
timestamp) for __cluster_metadata-0; meanwhile a second connection sends
ApiVersions one after the other and times each answer until all N answers
arrived. Prints "apiversions_max_ms=<m> apiversions_count=<c>
list_offsets_ms=<t> offset=<o>" and exits 1 if an ApiVersions took longer
than BOUND_MS, or an answer is out of order, in error or not the same
offset every time. Only the Python standard library is used.
"""
import select
import socket
import struct
import sys
import time

TOPIC = b"__cluster_metadata"


def die(msg):
    print(f"FAILED: {msg}")
    sys.stdout.flush()
    sys.exit(1)


def frame(body):
    return struct.pack(">i", len(body)) + body


def list_offsets_v7(corr):
    client = b"lo-time"
    hdr = struct.pack(">hhih", 2, 7, corr, len(client)) + client + b"\x00"  # header v2
    body = struct.pack(">ib", -1, 0)  # replica_id, isolation_level
    body += bytes([2]) + bytes([len(TOPIC) + 1]) + TOPIC  # 1 topic, compact name
    body += bytes([2]) + struct.pack(">iiq", 0, -1, -3) + b"\x00"  # 1 partition
    body += b"\x00" + b"\x00"  # topic tags, request tags
    return frame(hdr + body)


def parse_list_offsets_v7(r):
    corr = struct.unpack(">i", r[:4])[0]
    p = 5 + 4  # header tags, throttle
    p += 1  # topic count 1
    name_len = r[p] - 1
    p += 1 + name_len
    p += 1  # partition count 1
    _part, err, ts, off, _epoch = struct.unpack(">ihqqi", r[p:p + 26])
    return corr, err, ts, off


class Reader:
    def __init__(self, s):
        self.s, self.buf = s, bytearray()

    def frames(self):
        out = []
        while True:
            if len(self.buf) < 4:
                return out
            (n,) = struct.unpack(">i", self.buf[:4])
            if len(self.buf) < 4 + n:
                return out
            out.append(bytes(self.buf[4:4 + n]))
            del self.buf[:4 + n]

    def pump(self, timeout):
        r, _, _ = select.select([self.s], [], [], timeout)
        if r:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                die("server closed the connection")
            self.buf += chunk


def main():
    port, n, bound_ms = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    a = socket.create_connection(("127.0.0.1", port), timeout=30)
    b = socket.create_connection(("127.0.0.1", port), timeout=30)
    b.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    t0 = time.monotonic()
    a.sendall(b"".join(list_offsets_v7(1000 + i) for i in range(n)))
    ra, rb = Reader(a), Reader(b)
    got, offsets, worst, probes = 0, set(), 0.0, 0
    deadline = t0 + 120
    while got < n:
        if time.monotonic() > deadline:
            die(f"only {got} of {n} ListOffsets answered in 120 s")
        sent = time.monotonic()
        b.sendall(frame(struct.pack(">hhih", 18, 0, probes, 2) + b"lo"))
        answered = False
        while not answered:
            ra.pump(0)
            for r in ra.frames():
                corr, err, _ts, off = parse_list_offsets_v7(r)
                if corr != 1000 + got:
                    die(f"ListOffsets answer {corr}, expected {1000 + got}")
                if err != 0 or off < 0:
                    die(f"ListOffsets {corr}: error {err}, offset {off}")
                offsets.add(off)
                got += 1
            rb.pump(0.005)
            for r in rb.frames():
                if struct.unpack(">i", r[:4])[0] != probes:
                    die("ApiVersions answer out of order")
                answered = True
            if time.monotonic() - sent > 60:
                die("no ApiVersions answer within 60 s")
        worst = max(worst, (time.monotonic() - sent) * 1000)
        probes += 1
    total_ms = (time.monotonic() - t0) * 1000
    print(f"apiversions_max_ms={worst:.1f} apiversions_count={probes} "
          f"list_offsets_ms={total_ms:.0f} offset={sorted(offsets)}")
    if len(offsets) != 1:
        die(f"the max-timestamp offset changed between answers: {sorted(offsets)}")
    if worst > bound_ms:
        die(f"an ApiVersions took {worst:.1f} ms while ListOffsets were searched "
            f"(bound {bound_ms:.0f} ms)")


main()
