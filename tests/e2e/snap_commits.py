#!/usr/bin/python3
"""OffsetCommits at the limits for tests/e2e/test_snapshot_limits.sh, on a
raw socket (OffsetCommit v2 / OffsetFetch v1, standalone commits: generation
-1, no member), pipelined WINDOW requests deep.

usage: snap_commits.py commit HOST:PORT FIRST COUNT [OFFSET]
         commits groups FIRST..FIRST+COUNT-1 (group ids of GROUP_BYTES bytes,
         metadata of METADATA_BYTES bytes, offset OFFSET or the group's
         number) and prints "NONE <n> 28 <n> other <n>" (28:
         INVALID_COMMIT_OFFSET_SIZE); exit 1 on an error code other than 0/28
       snap_commits.py fetch HOST:PORT GROUP_NUMBER EXPECT_OFFSET
         OffsetFetch of one group: exit 0 if it holds EXPECT_OFFSET and the
         full metadata, else 1
"""
import socket
import struct
import sys

GROUP_BYTES = 240
METADATA_BYTES = 4096
TOPIC = b"__cluster_metadata"
WINDOW = 64


def group_id(i):
    s = f"snap-limits-{i:08d}-".encode()
    return s + b"g" * (GROUP_BYTES - len(s))


def metadata(i):
    s = f"meta-{i}-".encode()
    return s + b"m" * (METADATA_BYTES - len(s))


def string(b):
    return struct.pack(">h", len(b)) + b


def frame(api, version, corr, body):
    head = struct.pack(">hhi", api, version, corr) + string(b"snap-limits")
    msg = head + body
    return struct.pack(">i", len(msg)) + msg


def commit_body(i, offset):
    body = string(group_id(i)) + struct.pack(">i", -1) + string(b"") + struct.pack(">q", -1)
    body += struct.pack(">i", 1) + string(TOPIC) + struct.pack(">i", 1)
    body += struct.pack(">iq", 0, offset) + string(metadata(i))
    return body


def read_exact(s, n):
    out = bytearray()
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise RuntimeError("connection closed")
        out += chunk
    return bytes(out)


def read_frame(s):
    (n,) = struct.unpack(">i", read_exact(s, 4))
    return read_exact(s, n)


def commit_error(resp):
    # corr, [topic name, [partition, error]]
    pos = 4
    (topics,) = struct.unpack_from(">i", resp, pos)
    pos += 4
    (nl,) = struct.unpack_from(">h", resp, pos)
    pos += 2 + nl
    pos += 4  # partition count
    _, err = struct.unpack_from(">ih", resp, pos)
    return err if topics == 1 else -1


def connect(addr):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def commit(addr, first, count, offset):
    s = connect(addr)
    counts = {"NONE": 0, "28": 0, "other": 0}
    sent = done = 0
    while done < count:
        while sent < count and sent - done < WINDOW:
            i = first + sent
            s.sendall(frame(8, 2, sent, commit_body(i, i if offset is None else offset)))
            sent += 1
        err = commit_error(read_frame(s))
        done += 1
        key = "NONE" if err == 0 else "28" if err == 28 else "other"
        if key == "other" and counts["other"] == 0:
            print(f"commit error {err}", file=sys.stderr)
        counts[key] += 1
    print(f"NONE {counts['NONE']} 28 {counts['28']} other {counts['other']}")
    return 0 if counts["other"] == 0 else 1


def fetch(addr, i, expect):
    s = connect(addr)
    body = string(group_id(i)) + struct.pack(">i", 1) + string(TOPIC) + struct.pack(">ii", 1, 0)
    s.sendall(frame(9, 1, 1, body))
    resp = read_frame(s)
    pos = 8
    (nl,) = struct.unpack_from(">h", resp, pos)
    pos += 2 + nl + 4
    _, off = struct.unpack_from(">iq", resp, pos)
    pos += 12
    (ml,) = struct.unpack_from(">h", resp, pos)
    meta = resp[pos + 2:pos + 2 + ml] if ml >= 0 else None
    (err,) = struct.unpack_from(">h", resp, pos + 2 + max(ml, 0))
    ok = err == 0 and off == expect and meta == metadata(i)
    print(f"group {i}: offset {off} metadata {ml} bytes error {err}")
    return 0 if ok else 1


def main(argv):
    if len(argv) >= 5 and argv[1] == "commit":
        return commit(argv[2], int(argv[3]), int(argv[4]), int(argv[5]) if len(argv) > 5 else None)
    if len(argv) == 5 and argv[1] == "fetch":
        return fetch(argv[2], int(argv[3]), int(argv[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
