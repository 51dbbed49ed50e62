#!/usr/bin/python3
"""Raw Kafka encoding for hostile-client tests (issue 19), standard library
only. Importable: CRC-32C, varints, record batch v2 building (data and
control batches), our offset-commit control record, Produce v3-v8 and
ListOffsets v1 / OffsetFetch v1 requests with their answers, one framed
request/response over a socket. Not a client: it sends exactly the bytes
it is told to, so that tests can send what no real client would.

usage:
  hostile_kafka.py smuggle HOST:PORT
      Produce v3/v8 requests whose records are data batches with a control
      batch (a forged offset commit of group "victim", one whose value does
      not parse, a LeaderChangeMessage) first, in the middle or last. Each
      must be refused with INVALID_RECORD (87), from v8 on with the message
      "Clients are not allowed to write control records", and nothing of it
      appended (ListOffsets latest unchanged); then a clean Produce of the
      same data batches is appended, and group "victim" has no committed
      offset. Prints "ok LOG_END" or the first failure (exit 1).
  hostile_kafka.py segment-append PART_DIR
      Appends to the last segment file a CRC-valid control batch holding an
      offset-commit record whose value does not parse, at the log end
      (offline: the server must be stopped); prints its offset. The record
      batch layout is Kafka's DefaultRecordBatch (tests/e2e/seg_tool.py).
  hostile_kafka.py end HOST:PORT
      Prints the log end offset (ListOffsets latest).
"""
import glob
import os
import socket
import struct
import sys

TOPIC = b"__cluster_metadata"
INVALID_RECORD = 87
CONTROL_MESSAGE = "Clients are not allowed to write control records"
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
KQ_CONTROL_OFFSET_COMMIT = 19281  # include/kq/group_offsets.h
CONTROL_LEADER_CHANGE = 2

# ---- CRC-32C (Castagnoli), as Kafka's record batch CRC

_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


# ---- varints (zigzag for record fields, unsigned for flexible versions)

def varint(n):
    return uvarint((n << 1) ^ (n >> 63))


def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def kstring(b):
    """int16-length string; None is null."""
    if b is None:
        return struct.pack(">h", -1)
    return struct.pack(">h", len(b)) + b


# ---- record batches

def record(offset_delta, key, value, timestamp_delta=0):
    body = b"\x00" + varint(timestamp_delta) + varint(offset_delta)
    body += varint(-1) if key is None else varint(len(key)) + key
    body += varint(-1) if value is None else varint(len(value)) + value
    body += varint(0)  # headers
    return varint(len(body)) + body


def batch(records, attributes=0, base_offset=0, epoch=-1, timestamp=1600000000000,
          producer_id=-1, producer_epoch=-1, base_sequence=-1):
    """A v2 batch of (key, value) records, uncompressed, CRC computed."""
    recs = b"".join(record(i, k, v) for i, (k, v) in enumerate(records))
    after_crc = struct.pack(">hiqqqhii", attributes, len(records) - 1, timestamp, timestamp,
                            producer_id, producer_epoch, base_sequence, len(records)) + recs
    crc = crc32c(after_crc)
    rest = struct.pack(">ibI", epoch, 2, crc) + after_crc
    return struct.pack(">qi", base_offset, len(rest)) + rest


def control_key(control_type):
    return struct.pack(">hh", 0, control_type)


def offset_commit_value(group, topic, partition, offset, metadata=None, timestamp=0):
    """Our offset-commit value (src/storage/FORMAT.md, "Group offsets")."""
    return (struct.pack(">h", 0) + kstring(group) + kstring(topic) +
            struct.pack(">iqi", partition, offset, -1) + kstring(metadata) +
            struct.pack(">q", timestamp))


def forged_commit_batch(group=b"victim", offset=424242):
    value = offset_commit_value(group, TOPIC, 0, offset)
    return batch([(control_key(KQ_CONTROL_OFFSET_COMMIT), value)], attributes=ATTR_CONTROL)


def unparsable_commit_batch(base_offset=0, epoch=-1):
    value = struct.pack(">hh", 0, 200) + b"cut"  # a group id cut short
    return batch([(control_key(KQ_CONTROL_OFFSET_COMMIT), value)], attributes=ATTR_CONTROL,
                 base_offset=base_offset, epoch=epoch)


def leader_change_batch(leader=1):
    # flexible LeaderChangeMessage v0: Version, LeaderId, Voters[], GrantingVoters[], tags
    voters = uvarint(2) + struct.pack(">i", leader) + uvarint(0)
    value = struct.pack(">hi", 0, leader) + voters + voters + uvarint(0)
    return batch([(control_key(CONTROL_LEADER_CHANGE), value)], attributes=ATTR_CONTROL)


def data_batch(value=b"hostile-data"):
    return batch([(None, value)])


# ---- requests and responses (non-flexible versions)

def request(api_key, version, corr, body, client=b"hostile"):
    frame = struct.pack(">hhih", api_key, version, corr, len(client)) + client + body
    return struct.pack(">i", len(frame)) + frame


def produce_body(records, acks=-1, timeout_ms=10000, topic=TOPIC, partition=0):
    """Produce v3-v8 body: one topic, one partition."""
    return (kstring(None) + struct.pack(">hi", acks, timeout_ms) + struct.pack(">i", 1) +
            kstring(topic) + struct.pack(">i", 1) + struct.pack(">ii", partition, len(records)) +
            records)


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v if len(v) > 1 else v[0]

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        s = self.data[self.pos:self.pos + n]
        self.pos += n
        return s


def parse_produce(version, payload):
    """The first partition's (error_code, base_offset, error_message)."""
    r = Reader(payload)
    r.take(">i")  # correlation id
    assert r.take(">i") == 1
    r.string()
    assert r.take(">i") == 1
    _, error, base = r.take(">ihq")
    if version >= 2:
        r.take(">q")  # log append time
    if version >= 5:
        r.take(">q")  # log start offset
    message = None
    if version >= 8:
        for _ in range(r.take(">i")):
            r.take(">i")
            r.string()
        m = r.string()
        message = None if m is None else m.decode()
    return error, base, message


def list_offsets_body(timestamp=-1):
    return (struct.pack(">ii", -1, 1) + kstring(TOPIC) + struct.pack(">iiq", 1, 0, timestamp))


def parse_list_offsets(payload):
    r = Reader(payload)
    r.take(">i")
    assert r.take(">i") == 1
    r.string()
    assert r.take(">i") == 1
    _, error, _, offset = r.take(">ihqq")
    return error, offset


def offset_fetch_body(group):
    return kstring(group) + struct.pack(">i", 1) + kstring(TOPIC) + struct.pack(">ii", 1, 0)


def parse_offset_fetch(payload):
    r = Reader(payload)
    r.take(">i")
    assert r.take(">i") == 1
    r.string()
    assert r.take(">i") == 1
    _, offset = r.take(">iq")
    r.string()
    return r.take(">h"), offset


def read_exact(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed by the server")
        out += chunk
    return out


def roundtrip(s, frame):
    s.sendall(frame)
    n, = struct.unpack(">i", read_exact(s, 4))
    return read_exact(s, n)


def connect(hostport):
    host, port = hostport.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=15)


# ---- commands

def log_end(s, corr):
    error, offset = parse_list_offsets(roundtrip(s, request(2, 1, corr, list_offsets_body())))
    if error:
        raise RuntimeError(f"ListOffsets error {error}")
    return offset


def cmd_smuggle(hostport):
    s = connect(hostport)
    corr = 100
    controls = [("forged-commit", forged_commit_batch), ("unparsable-commit", unparsable_commit_batch),
                ("leader-change", leader_change_batch)]
    end = log_end(s, corr)
    for name, make in controls:
        for pos in ("first", "middle", "last"):
            parts = [data_batch(b"d1"), data_batch(b"d2")]
            parts.insert({"first": 0, "middle": 1, "last": 2}[pos], make())
            for version in (3, 8):
                corr += 1
                payload = roundtrip(s, request(0, version, corr, produce_body(b"".join(parts))))
                error, base, message = parse_produce(version, payload)
                what = f"{name} {pos} Produce v{version}"
                if error != INVALID_RECORD or base != -1:
                    print(f"FAIL {what}: error {error} base offset {base}")
                    return 1
                if version >= 8 and message != CONTROL_MESSAGE:
                    print(f"FAIL {what}: error_message {message!r}")
                    return 1
                corr += 1
                now = log_end(s, corr)
                if now != end:
                    print(f"FAIL {what}: the log end moved from {end} to {now}")
                    return 1
    corr += 1
    clean = data_batch(b"d1") + data_batch(b"d2")
    error, base, _ = parse_produce(8, roundtrip(s, request(0, 8, corr, produce_body(clean))))
    if error != 0 or base != end:
        print(f"FAIL clean Produce: error {error} base offset {base}, expected {end}")
        return 1
    corr += 1
    error, offset = parse_offset_fetch(roundtrip(s, request(9, 1, corr, offset_fetch_body(b"victim"))))
    if error != 0 or offset != -1:
        print(f"FAIL OffsetFetch of group victim: error {error} offset {offset}, expected -1")
        return 1
    corr += 1
    print(f"ok {log_end(s, corr)}")
    return 0


def cmd_segment_append(part_dir):
    """Appends an unparsable offset commit at the log end of the last segment."""
    path = sorted(glob.glob(os.path.join(part_dir, "*.log")))[-1]
    with open(path, "rb") as f:
        data = f.read()
    pos, end, epoch = 0, int(os.path.basename(path).split(".")[0]), 0
    while pos + 61 <= len(data):
        base, length, epoch = struct.unpack_from(">qii", data, pos)
        if pos + 12 + length > len(data):
            break
        delta, = struct.unpack_from(">i", data, pos + 23)
        end = base + delta + 1
        pos += 12 + length
    with open(path, "r+b") as f:
        f.truncate(pos)
        f.seek(pos)
        f.write(unparsable_commit_batch(base_offset=end, epoch=epoch))
        f.flush()
        os.fsync(f.fileno())
    print(end)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "smuggle":
        return cmd_smuggle(argv[2])
    if len(argv) == 3 and argv[1] == "segment-append":
        return cmd_segment_append(argv[2])
    if len(argv) == 3 and argv[1] == "end":
        s = connect(argv[2])
        print(log_end(s, 1))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
