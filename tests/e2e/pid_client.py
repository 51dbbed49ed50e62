#!/usr/bin/python3
"""Hand-encoded InitProducerId and idempotent Produce requests, so that a
test sees the producer ids and the broker's answers directly.

usage:
  pid_client.py burst HOST:PORT COUNT LABEL OUT
      COUNT InitProducerId v4 requests (pipelined on one connection); for
      every id handed out, one idempotent batch (producer epoch 0, base
      sequence 0, one record whose value is "LABEL-<id>") is produced with
      acks=-1 through Produce v3. Each line of OUT is
      "<id> <epoch> <produce error> <base offset> <value>".
      Exits non-zero if a request fails at the protocol level.

InitProducerId v4 is flexible (request header v2, response header v1):
  request:  transactional_id COMPACT_NULLABLE_STRING, transaction_timeout_ms
            INT32, producer_id INT64, producer_epoch INT16, tagged fields
  response: throttle_time_ms INT32, error_code INT16, producer_id INT64,
            producer_epoch INT16, tagged fields
Produce v3 (request header v1, response header v0):
  request:  transactional_id NULLABLE_STRING, acks INT16, timeout_ms INT32,
            [topic STRING, [partition INT32, records BYTES]]
  response: [topic STRING, [partition INT32, error_code INT16,
            base_offset INT64, log_append_time INT64]], throttle_time_ms INT32
"""
import socket
import struct
import sys
import time

from kafka.record.default_records import DefaultRecordBatchBuilder

TOPIC = b"__cluster_metadata"
CLIENT_ID = b"pid-client"
WINDOW = 64  # requests in flight on the connection


class Conn:
    def __init__(self, addr, timeout=30.0):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.corr = 0

    def send(self, api_key, version, flexible_header, body):
        self.corr += 1
        hdr = struct.pack(">hhih", api_key, version, self.corr, len(CLIENT_ID)) + CLIENT_ID
        if flexible_header:
            hdr += b"\x00"  # no tagged fields
        frame = hdr + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        return self.corr

    def recv_exact(self, n):
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise EOFError("connection closed by the broker")
            out += chunk
        return bytes(out)

    def recv(self):
        size, = struct.unpack(">i", self.recv_exact(4))
        data = self.recv_exact(size)
        corr, = struct.unpack_from(">i", data, 0)
        return corr, data[4:]

    def close(self):
        self.sock.close()


def init_pid_body():
    # null transactional id, timeout 60000, producer id -1, epoch -1, no tags
    return b"\x00" + struct.pack(">iqh", 60000, -1, -1) + b"\x00"


def parse_init_pid(payload):
    # response header v1: one tagged-field byte (0) first
    if payload[0] != 0:
        raise ValueError("unexpected tagged fields in the response header")
    _, err, pid, epoch = struct.unpack_from(">ihqh", payload, 1)
    return err, pid, epoch


def produce_body(pid, epoch, seq, value):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=0,
                                  producer_id=pid, producer_epoch=epoch,
                                  base_sequence=seq, batch_size=1 << 20)
    b.append(0, timestamp=int(time.time() * 1000), key=None, value=value, headers=[])
    records = bytes(b.build())
    body = struct.pack(">hhi", -1, -1, 30000)  # null transactional id, acks=-1, timeout
    body += struct.pack(">ih", 1, len(TOPIC)) + TOPIC
    body += struct.pack(">ii", 1, 0) + struct.pack(">i", len(records)) + records
    return body


def parse_produce(payload):
    pos = 0
    ntopics, = struct.unpack_from(">i", payload, pos)
    pos += 4
    if ntopics != 1:
        raise ValueError(f"{ntopics} topics in a Produce response")
    tlen, = struct.unpack_from(">h", payload, pos)
    pos += 2 + tlen
    nparts, = struct.unpack_from(">i", payload, pos)
    pos += 4
    if nparts != 1:
        raise ValueError(f"{nparts} partitions in a Produce response")
    _, err, base, _ = struct.unpack_from(">ihqq", payload, pos)
    return err, base


def pipelined(conn, bodies, api_key, version, flexible, parse):
    """Sends every body with at most WINDOW in flight; returns the parsed
    answers in request order."""
    out = [None] * len(bodies)
    pending = {}
    i = 0
    while i < len(bodies) or pending:
        while i < len(bodies) and len(pending) < WINDOW:
            pending[conn.send(api_key, version, flexible, bodies[i])] = i
            i += 1
        corr, payload = conn.recv()
        if corr not in pending:
            raise ValueError(f"answer with unexpected correlation id {corr}")
        out[pending.pop(corr)] = parse(payload)
    return out


def cmd_burst(addr, count, label, out_path):
    conn = Conn(addr)
    ids = pipelined(conn, [init_pid_body()] * count, 22, 4, True, parse_init_pid)
    bad = [(e, p) for e, p, _ in ids if e != 0 or p < 0]
    if bad:
        print(f"InitProducerId failed: {len(bad)} errors, first {bad[:3]}", file=sys.stderr)
        return 1
    values = [f"{label}-{pid}".encode() for _, pid, _ in ids]
    answers = pipelined(conn, [produce_body(pid, ep, 0, v) for (_, pid, ep), v in zip(ids, values)],
                        0, 3, False, parse_produce)
    conn.close()
    with open(out_path, "w") as f:
        for (_, pid, ep), (err, base), v in zip(ids, answers, values):
            f.write(f"{pid} {ep} {err} {base} {v.decode()}\n")
    return 0


def main(argv):
    if len(argv) == 5 and argv[0] == "burst":
        return cmd_burst(argv[1], int(argv[2]), argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
