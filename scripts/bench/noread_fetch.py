#!/usr/bin/python3
"""Opens CONNS connections to HOST:PORT, sends PIPELINE consumer Fetch v11
requests on each (replica -1, partition 0 of TOPIC from offset 0, 1 MiB per
partition and per response, no wait) and never reads an answer. Prints
"ready" once everything is sent (or the kernel stopped taking bytes), then
holds the connections open until stdin closes or HOLD_S seconds pass.

usage: noread_fetch.py HOST:PORT TOPIC CONNS PIPELINE HOLD_S

Only the Python standard library is used (scripts/bench-memory.sh).
"""
import select
import socket
import struct
import sys
import time


def fetch_v11(corr, topic):
    client = b"noread"
    header = struct.pack(">hhih", 1, 11, corr, len(client)) + client
    body = struct.pack(">iiiibii", -1, 0, 0, 1 << 20, 0, 0, -1)
    body += struct.pack(">i", 1) + struct.pack(">h", len(topic)) + topic
    body += struct.pack(">i", 1) + struct.pack(">iiqqi", 0, -1, 0, -1, 1 << 20)
    body += struct.pack(">i", 0) + struct.pack(">h", 0)
    frame = header + body
    return struct.pack(">i", len(frame)) + frame


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    topic = sys.argv[2].encode()
    conns, pipeline, hold_s = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    socks = []
    for _ in range(conns):
        s = socket.create_connection((host, int(port)))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setblocking(False)
        socks.append([s, b"".join(fetch_v11(c, topic) for c in range(pipeline))])
    deadline = time.time() + 20
    while time.time() < deadline and any(p for _, p in socks):
        for e in socks:
            if e[1]:
                try:
                    e[1] = e[1][e[0].send(e[1]):]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    e[1] = b""
        time.sleep(0.01)
    print("ready", flush=True)
    select.select([sys.stdin], [], [], hold_s)


if __name__ == "__main__":
    main()
