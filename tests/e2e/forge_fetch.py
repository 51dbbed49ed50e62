#!/usr/bin/python3
"""Sends one forged replica Fetch claiming to be voter REPLICA at OFFSET, as
any client could, and prints the top-level error code of the answer (or
"closed"). With CLUSTER_ID it is a Fetch v12 naming that cluster (a tagged
field), else a v11 (no cluster id).

usage: forge_fetch.py HOST:PORT REPLICA OFFSET LEADER_EPOCH [CLUSTER_ID]

TLS when the environment names a CA: KQ_TLS_CA (a PEM CA file) and,
for mutual TLS, KQ_TLS_CERT (a PEM file with the key and certificate).
A failed TLS handshake prints "tls-refused".

Only the Python standard library is used.
"""
import os
import socket
import ssl
import struct
import sys

TOPIC = b"__cluster_metadata"


def fetch_v11(corr, replica, offset, epoch):
    client = b"forger"
    header = struct.pack(">hhih", 1, 11, corr, len(client)) + client
    body = struct.pack(">iiiibii", replica, 0, 0, 1 << 20, 0, 0, -1)
    body += struct.pack(">i", 1) + struct.pack(">h", len(TOPIC)) + TOPIC
    body += struct.pack(">i", 1) + struct.pack(">iiqqi", 0, epoch, offset, -1, 1 << 20)
    body += struct.pack(">i", 0)      # forgotten topics
    body += struct.pack(">h", 0)      # rack id ""
    frame = header + body
    return struct.pack(">i", len(frame)) + frame


def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def compact(b):
    return uvarint(len(b) + 1) + b


def fetch_v12(corr, replica, offset, epoch, cluster):
    client = b"forger"
    header = struct.pack(">hhih", 1, 12, corr, len(client)) + client + uvarint(0)
    body = struct.pack(">iiiibii", replica, 0, 0, 1 << 20, 0, 0, -1)
    body += uvarint(2) + compact(TOPIC)
    body += uvarint(2) + struct.pack(">iiqiqi", 0, epoch, offset, epoch, -1, 1 << 20) + uvarint(0)
    body += uvarint(0)                 # topic tagged fields
    body += uvarint(1)                 # no forgotten topics
    body += compact(b"")               # rack id
    cid = compact(cluster)
    body += uvarint(1) + uvarint(0) + uvarint(len(cid)) + cid  # tag 0: ClusterId
    frame = header + body
    return struct.pack(">i", len(frame)) + frame


def read_exact(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            return None
        out += chunk
    return out


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    replica, offset, epoch = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    cluster = sys.argv[5].encode() if len(sys.argv) > 5 else None
    s = socket.create_connection((host, int(port)), timeout=10)
    if os.environ.get("KQ_TLS_CA"):
        ctx = ssl.create_default_context(cafile=os.environ["KQ_TLS_CA"])
        if os.environ.get("KQ_TLS_CERT"):
            ctx.load_cert_chain(os.environ["KQ_TLS_CERT"])
        try:
            s = ctx.wrap_socket(s, server_hostname=host)
            # TLS 1.3: a refused client certificate shows on the first read
            # or write after the handshake.
        except (ssl.SSLError, OSError):
            print("tls-refused")
            return
    try:
        exchange(s, replica, offset, epoch, cluster)
    except (ssl.SSLError, ConnectionError):
        print("tls-refused" if os.environ.get("KQ_TLS_CA") else "closed")
    finally:
        s.close()


def exchange(s, replica, offset, epoch, cluster):
    if cluster is None:
        s.sendall(fetch_v11(7, replica, offset, epoch))
    else:
        s.sendall(fetch_v12(7, replica, offset, epoch, cluster))
    size = read_exact(s, 4)
    if size is None:
        print("closed")
        return
    resp = read_exact(s, struct.unpack(">i", size)[0])
    skip = 1 if cluster is not None else 0  # response header v1: tagged fields
    if resp is None or len(resp) < 10 + skip:
        print("closed")
        return
    corr = struct.unpack(">i", resp[:4])[0]
    _throttle, error = struct.unpack(">ih", resp[4 + skip:10 + skip])
    assert corr == 7, corr
    print(error)


if __name__ == "__main__":
    main()
