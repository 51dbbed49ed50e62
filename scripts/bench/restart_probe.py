#!/usr/bin/env python3
"""Helper of scripts/bench-restart.sh: exec raft-server and time it to serving.

  restart_probe.py --port P --log FILE [--timeout S] -- SERVER ARGS...

Starts SERVER ARGS (stdout+stderr to FILE), then polls localhost:P every
~5 ms with a raw ApiVersions v0 request until one is answered, then sends a
one-record Produce v3 (acks=-1) to __cluster_metadata-0 every ~5 ms until one
is acknowledged with error 0. Prints one line of key=value pairs:

  pid=N api_ms=X produce_ms=Y exec_wall=T cpu_ms=C read_mb=R

where X and Y are milliseconds from just before the exec (monotonic clock),
and T is the wall-clock time of the exec (seconds, for the server's log
stamps); C and R are the server's CPU time and storage reads up to then
(/proc/PID/stat, /proc/PID/io). The probe then holds the server until it gets SIGTERM, passes it
on, waits for the server's exit and prints stop_ms=... rc=....
"""
import argparse
import datetime
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

POLL = 0.005


def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def varint(n):
    n = (n << 1) ^ (n >> 63)  # zigzag
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def kstring(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def record_batch(value):
    now = int(time.time() * 1000)
    rec = b"\x00" + varint(0) + varint(0) + varint(-1) + varint(len(value)) + value + varint(0)
    rec = varint(len(rec)) + rec
    # attributes .. records: the part the CRC covers
    after_crc = struct.pack(">hiqqqhii", 0, 0, now, now, -1, -1, -1, 1) + rec
    crc = crc32c(after_crc)
    body = struct.pack(">ibI", -1, 2, crc) + after_crc  # leader epoch, magic, crc
    return struct.pack(">qi", 0, len(body)) + body


def request(api_key, version, corr, body):
    hdr = struct.pack(">hhi", api_key, version, corr) + kstring("kq-bench-restart")
    msg = hdr + body
    return struct.pack(">i", len(msg)) + msg


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return bytes(buf)


def roundtrip(s, req):
    s.sendall(req)
    (n,) = struct.unpack(">i", recv_exact(s, 4))
    return recv_exact(s, n)


def produce_error(resp):
    # v3 response: corr, [topic: name, [partition, error, base_offset, append_time]], throttle
    off = 4
    (nt,) = struct.unpack_from(">i", resp, off)
    off += 4
    for _ in range(nt):
        (ln,) = struct.unpack_from(">h", resp, off)
        off += 2 + ln
        (np_,) = struct.unpack_from(">i", resp, off)
        off += 4
        for _ in range(np_):
            _part, err = struct.unpack_from(">ih", resp, off)
            return err
    return -999


def usage(pid):
    """CPU time (user+system, ms) and bytes read from storage (MB) of the
    server so far, from /proc."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        cpu = -1
    read = -1
    try:
        with open("/proc/%d/io" % pid) as f:
            for line in f:
                if line.startswith("read_bytes:"):
                    read = int(line.split()[1]) / 1e6
    except OSError:
        pass
    return cpu, read


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    # the server must not inherit our handlers; it gets SIGTERM from us
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    logf = open(a.log, "wb")
    batch = record_batch(b"kq-bench-restart probe")
    produce_body = (struct.pack(">hhi", -1, -1, 10000) + struct.pack(">i", 1) + kstring("__cluster_metadata")
                    + struct.pack(">ii", 1, 0) + struct.pack(">i", len(batch)) + batch)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    wall = time.time()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT)
    deadline = t0 + a.timeout
    api_ms = produce_ms = None
    corr = 0
    s = None
    last_err = None
    while produce_ms is None:
        if p.poll() is not None:
            sys.exit("restart_probe: server exited with %d" % p.returncode)
        if time.monotonic() > deadline or stop:
            p.kill()
            p.wait()
            sys.exit("restart_probe: not serving within %.0f s (last: %s)" % (a.timeout, last_err)
                     if not stop else "restart_probe: stopped before serving")
        try:
            if s is None:
                s = socket.create_connection(("127.0.0.1", a.port), timeout=a.timeout)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            corr += 1
            if api_ms is None:
                resp = roundtrip(s, request(18, 0, corr, b""))
                if struct.unpack_from(">ih", resp, 0)[1] == 0:
                    api_ms = (time.monotonic() - t0) * 1000
                    continue
                last_err = "ApiVersions error %d" % struct.unpack_from(">ih", resp, 0)[1]
            else:
                err = produce_error(roundtrip(s, request(0, 3, corr, produce_body)))
                if err == 0:
                    produce_ms = (time.monotonic() - t0) * 1000
                    continue
                last_err = "Produce error %d" % err
        except (OSError, ConnectionError, struct.error) as e:
            last_err = repr(e)
            if s is not None:
                s.close()
                s = None
        time.sleep(POLL)
    s.close()
    cpu_ms, read_mb = usage(p.pid)
    print("pid=%d api_ms=%.1f produce_ms=%.1f exec_wall=%.3f cpu_ms=%.0f read_mb=%.1f"
          % (p.pid, api_ms, produce_ms, wall, cpu_ms, read_mb), flush=True)
    # Hold the server until we are told to stop: SIGTERM (or SIGINT) to us
    # is passed on as SIGTERM, and we wait for the server's exit.
    while not stop and p.poll() is None:
        time.sleep(0.05)
    if p.poll() is None:
        t1 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        print("stop_ms=%.1f rc=%d" % ((time.monotonic() - t1) * 1000, p.returncode), flush=True)
    logf.close()
    startup_lines(a.log, wall)


STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] (.*)$")


def startup_lines(path, wall):
    """The server's log up to its first "leader in epoch" line, each with its
    time after the exec (the log's stamps are local time, millisecond)."""
    with open(path, errors="replace") as f:
        for line in f:
            m = STAMP.match(line.rstrip("\n"))
            if not m:
                print("log        %s" % line.rstrip("\n"))
                continue
            t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").timestamp() + int(m.group(2)) / 1000
            print("log %+7.0f ms  %s" % ((t - wall) * 1000, m.group(3)))
            if "leader in epoch" in m.group(3):
                break


if __name__ == "__main__":
    main()
