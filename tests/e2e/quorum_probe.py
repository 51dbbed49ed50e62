#!/usr/bin/python3
"""Raw-socket DescribeQuorum probe and on-disk log dumper for the quorum tests.

usage:
  quorum_probe.py HOST:PORT...                   one DescribeQuorum v0 per node
  quorum_probe.py --leader HOST:PORT...          prints "leader epoch hw" as seen
                                                 by the node that says it leads
  quorum_probe.py --poll SECS --out FILE HOST:PORT...
                                                 polls every ~100 ms for SECS
                                                 seconds (0 = until SIGTERM)
  quorum_probe.py --check-monotonic FILE         the leaders' HW never went down
  quorum_probe.py --wait-synced SECS HOST:PORT...
                                                 waits until the leader reports
                                                 every voter's log end offset
                                                 equal to the high watermark;
                                                 prints the HW
  quorum_probe.py --wait-leader-change OLD_ID --since EPOCH_SECS --timeout SECS HOST:PORT...
                                                 polls every 10 ms until a node
                                                 other than OLD_ID says it leads;
                                                 prints "leader epoch ms time"
                                                 with ms counted from EPOCH_SECS
                                                 (start it before stopping the
                                                 leader, then subtract the stop
                                                 time from "time")
  quorum_probe.py --control-batches DIR           "base_offset leader_epoch" of every
                                                 control batch (LeaderChange at
                                                 the start of each epoch)
  quorum_probe.py --log-end DIR                   the offset after the last whole
                                                 batch of DIR/*.log
  quorum_probe.py --dump-log DIR --upto HW [--out FILE]
                                                 batches of DIR/*.log (the
                                                 partition directory, or a log
                                                 dir holding __cluster_metadata-0)
                                                 covering offsets [0, HW)

--topic NAME (before the command) asks DescribeQuorum about NAME instead of
__cluster_metadata (a quorum with quorum.topic.name set). --local asks with
our relay's client id, so that a follower answers itself instead of relaying
the request to its leader (a Kafka TestRaftServer leader answers no
DescribeQuorum), and --leader takes a follower's answer too.

Only the Python standard library is used. DescribeQuorum is flexible from v0:
request header v2 (client id is a classic nullable string followed by tagged
fields), compact strings/arrays, and the response header v1 carries tagged
fields after the correlation id.
"""
import glob
import hashlib
import json
import os
import signal
import socket
import struct
import sys
import time

API_DESCRIBE_QUORUM = 55
TOPIC = b"__cluster_metadata"  # --topic NAME asks about another (issue 22)
LOCAL = False
CLIENT_ID = b"quorum-probe"  # --local: b"kq-forwarded" (see the usage)


# --- encoding ---------------------------------------------------------------

def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def compact_string(s):
    return uvarint(len(s) + 1) + s


def describe_quorum_request(corr):
    header = struct.pack(">hhi", API_DESCRIBE_QUORUM, 0, corr)
    header += struct.pack(">h", len(CLIENT_ID)) + CLIENT_ID
    header += uvarint(0)  # header tagged fields
    body = uvarint(1 + 1)  # one topic
    body += compact_string(TOPIC)
    body += uvarint(1 + 1)  # one partition
    body += struct.pack(">i", 0)
    body += uvarint(0)  # partition tagged fields
    body += uvarint(0)  # topic tagged fields
    body += uvarint(0)  # request tagged fields
    msg = header + body
    return struct.pack(">i", len(msg)) + msg


# --- decoding ---------------------------------------------------------------

class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError("response truncated")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def uvarint(self):
        shift = result = 0
        while True:
            b = self.take(1)[0]
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 35:
                raise ValueError("varint too long")

    def compact_string(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1)

    def compact_array_len(self):
        n = self.uvarint()
        return -1 if n == 0 else n - 1

    def tagged_fields(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def parse_replicas(r):
    out = []
    for _ in range(max(r.compact_array_len(), 0)):
        rid = r.unpack(">i")
        leo = r.unpack(">q")
        r.tagged_fields()
        out.append((rid, leo))
    return out


def parse_response(payload, corr):
    r = Reader(payload)
    if r.unpack(">i") != corr:
        raise ValueError("correlation id mismatch")
    r.tagged_fields()  # response header v1
    res = {"error": r.unpack(">h")}
    for _ in range(max(r.compact_array_len(), 0)):
        r.compact_string()
        for _ in range(max(r.compact_array_len(), 0)):
            res["partition"] = r.unpack(">i")
            res["perror"] = r.unpack(">h")
            res["leader"] = r.unpack(">i")
            res["epoch"] = r.unpack(">i")
            res["hw"] = r.unpack(">q")
            res["voters"] = parse_replicas(r)
            res["observers"] = parse_replicas(r)
            r.tagged_fields()
        r.tagged_fields()
    r.tagged_fields()
    return res


# --- transport --------------------------------------------------------------

def tls_wrap(sock, host):
    """TLS when KQ_TLS_CA names a CA file (KQ_TLS_CERT: a PEM file with the
    client's key and certificate, for mutual TLS); plaintext otherwise."""
    ca = os.environ.get("KQ_TLS_CA")
    if not ca:
        return sock
    import ssl
    ctx = ssl.create_default_context(cafile=ca)
    if os.environ.get("KQ_TLS_CERT"):
        ctx.load_cert_chain(os.environ["KQ_TLS_CERT"])
    return ctx.wrap_socket(sock, server_hostname=host)


class Node:
    """One persistent connection per node, re-opened after any error."""

    def __init__(self, addr, timeout=1.0):
        host, port = addr.rsplit(":", 1)
        self.addr = (host, int(port))
        self.name = addr
        self.timeout = timeout
        self.sock = None
        self.corr = 0

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None

    def recv_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("connection closed")
            buf += chunk
        return bytes(buf)

    def describe(self):
        """Returns the parsed response, or {"down": reason}."""
        try:
            if self.sock is None:
                self.sock = socket.create_connection(self.addr, timeout=self.timeout)
                self.sock.settimeout(self.timeout)
                self.sock = tls_wrap(self.sock, self.addr[0])
            self.corr = (self.corr + 1) & 0x7FFFFFFF
            self.sock.sendall(describe_quorum_request(self.corr))
            size = struct.unpack(">i", self.recv_exact(4))[0]
            if size < 4 or size > 1 << 20:
                raise ValueError(f"bad response size {size}")
            return parse_response(self.recv_exact(size), self.corr)
        except (OSError, ValueError, ConnectionError) as e:
            self.close()
            return {"down": str(e) or type(e).__name__}


def is_leader_view(res):
    if "down" in res or res.get("error") != 0:
        return False
    # --local: a follower's own answer (NOT_LEADER_OR_FOLLOWER) names the
    # leader it follows, its epoch and its high watermark.
    return res.get("perror") == 0 or (LOCAL and res.get("perror") == 6 and res.get("leader", -1) >= 0)


# --- commands ---------------------------------------------------------------

def cmd_describe(addrs):
    rc = 1
    for a in addrs:
        n = Node(a)
        res = n.describe()
        n.close()
        if "down" in res:
            print(f"{a}: down ({res['down']})")
            continue
        rc = 0
        voters = " ".join(f"{rid}:{leo}" for rid, leo in res.get("voters", []))
        role = "leader" if is_leader_view(res) else f"error={res.get('perror')}"
        print(f"{a}: leader={res.get('leader')} epoch={res.get('epoch')} "
              f"hw={res.get('hw')} {role} voters_leo=[{voters}]")
    return rc


def leader_view(addrs):
    for a in addrs:
        n = Node(a)
        res = n.describe()
        n.close()
        if is_leader_view(res) and res["leader"] >= 0:
            return res
    return None


def cmd_leader(addrs):
    res = leader_view(addrs)
    if res is None:
        print("-1 -1 -1")
        return 1
    print(f"{res['leader']} {res['epoch']} {res['hw']}")
    return 0


def cmd_wait_synced(secs, addrs):
    deadline = time.monotonic() + secs
    last = None
    while time.monotonic() < deadline:
        res = leader_view(addrs)
        if res is not None:
            last = res
            leos = [leo for _, leo in res["voters"]]
            if res["hw"] >= 0 and leos and all(leo == res["hw"] for leo in leos):
                print(res["hw"])
                return 0
        time.sleep(0.2)
    print(f"not synced within {secs}s: {last}", file=sys.stderr)
    return 1


def cmd_wait_leader_change(old, since, secs, addrs):
    nodes = [Node(a, timeout=0.2) for a in addrs]
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        for n in nodes:
            res = n.describe()
            if is_leader_view(res) and res["leader"] not in (-1, old):
                now = time.time()
                print(f"{res['leader']} {res['epoch']} {(now - since) * 1000:.0f} {now:.4f}")
                return 0
        time.sleep(0.01)
    print(f"no leader other than {old} within {secs}s", file=sys.stderr)
    return 1


def cmd_poll(secs, out, addrs):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    nodes = [Node(a, timeout=0.5) for a in addrs]
    t0 = time.time()
    with open(out, "a", encoding="utf-8") as f:
        while not stop and (secs <= 0 or time.time() - t0 < secs):
            start = time.monotonic()
            for n in nodes:
                res = n.describe()
                rec = {"t": round(time.time(), 4), "node": n.name}
                if "down" in res:
                    rec["down"] = True
                else:
                    rec.update(leader=res.get("leader"), epoch=res.get("epoch"),
                               hw=res.get("hw"), is_leader=is_leader_view(res),
                               voters=res.get("voters", []))
                f.write(json.dumps(rec) + "\n")
                f.flush()
                if stop:
                    break
            delay = 0.1 - (time.monotonic() - start)
            if delay > 0 and not stop:
                time.sleep(delay)
    return 0


def cmd_check_monotonic(path):
    """The HW a leader reports is the committed offset: it must never go down,
    neither within an epoch nor from one epoch to the next. Observations are
    ordered by (epoch, time) so that a stale leader answering late (it cannot
    commit anything new) is judged against its own epoch."""
    obs = []
    polls = down = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut short when the poller was killed
            polls += 1
            if rec.get("down"):
                down += 1
            elif rec.get("is_leader") and rec.get("hw", -1) >= 0:
                obs.append((rec["epoch"], rec["t"], rec["hw"], rec["node"]))
    if not obs:
        print(f"no leader observations in {polls} polls")
        return 1
    obs.sort()
    problems = []
    best = obs[0]
    for o in obs[1:]:
        if o[2] < best[2]:
            problems.append(f"hw went down: {best[2]} (epoch {best[0]}, {best[3]}) -> "
                            f"{o[2]} (epoch {o[0]}, {o[3]}, t={o[1]})")
        else:
            best = o
    # Also the plain time order across epochs, for information only.
    epochs = sorted({o[0] for o in obs})
    print(f"leader_observations={len(obs)} polls={polls} down={down} "
          f"epochs={epochs[0]}..{epochs[-1]} ({len(epochs)}) "
          f"hw={obs[0][2]}..{max(o[2] for o in obs)} decreases={len(problems)}")
    for p in problems[:10]:
        print("  " + p)
    return 1 if problems else 0


def log_batches(part_dir):
    """Yields (base_offset, last_offset, raw batch bytes) in file order."""
    for path in sorted(glob.glob(os.path.join(part_dir, "*.log"))):
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        while pos + 61 <= len(data):
            base, length = struct.unpack_from(">qi", data, pos)
            if length < 49 or pos + 12 + length > len(data):
                break  # preallocated zeros or a torn tail
            last_delta = struct.unpack_from(">i", data, pos + 23)[0]
            yield base, base + last_delta, data[pos:pos + 12 + length]
            pos += 12 + length


def partition_dir(d):
    if glob.glob(os.path.join(d, "*.log")):
        return d
    return os.path.join(d, "__cluster_metadata-0")


def cmd_control_batches(d):
    for base, _, raw in log_batches(partition_dir(d)):
        epoch, = struct.unpack_from(">i", raw, 12)
        attrs, = struct.unpack_from(">h", raw, 21)
        if attrs & 0x20:
            print(f"{base} {epoch}")
    return 0


def cmd_log_end(d):
    end = 0
    for _, last, _ in log_batches(partition_dir(d)):
        end = last + 1
    print(end)
    return 0


def cmd_dump_log(d, upto, out):
    part = partition_dir(d)
    h = hashlib.sha256()
    batches = 0
    next_offset = 0
    problems = []
    sink = open(out, "wb") if out else None
    for base, last, raw in log_batches(part):
        if last >= upto:
            if base < upto:
                problems.append(f"batch {base}..{last} straddles hw {upto}")
            break
        if base != next_offset:
            problems.append(f"gap or overlap: batch at {base}, expected {next_offset}")
        next_offset = last + 1
        batches += 1
        h.update(raw)
        if sink:
            sink.write(raw)
    if sink:
        sink.close()
    if next_offset != upto:
        problems.append(f"log covers [0,{next_offset}) only, hw is {upto}")
    print(f"batches={batches} end={next_offset} sha256={h.hexdigest()}")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    opts = {}
    addrs = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--local":
            global LOCAL, CLIENT_ID
            LOCAL, CLIENT_ID = True, b"kq-forwarded"
            i += 1
            continue
        if a == "--topic" and i + 1 < len(argv):
            global TOPIC
            TOPIC = argv[i + 1].encode()
            i += 2
            continue
        if a in ("--poll", "--out", "--check-monotonic", "--dump-log", "--upto", "--log-end",
                 "--wait-synced", "--wait-leader-change", "--since", "--timeout",
                 "--control-batches"):
            if i + 1 >= len(argv):
                print(f"{a} needs a value", file=sys.stderr)
                return 2
            opts[a] = argv[i + 1]
            i += 2
        elif a == "--leader":
            opts[a] = True
            i += 1
        else:
            addrs.append(a)
            i += 1
    if "--check-monotonic" in opts:
        return cmd_check_monotonic(opts["--check-monotonic"])
    if "--control-batches" in opts:
        return cmd_control_batches(opts["--control-batches"])
    if "--log-end" in opts:
        return cmd_log_end(opts["--log-end"])
    if "--dump-log" in opts:
        if "--upto" not in opts:
            print("--dump-log needs --upto HW", file=sys.stderr)
            return 2
        return cmd_dump_log(opts["--dump-log"], int(opts["--upto"]), opts.get("--out"))
    if not addrs:
        print("no HOST:PORT given", file=sys.stderr)
        return 2
    if "--poll" in opts:
        if "--out" not in opts:
            print("--poll needs --out FILE", file=sys.stderr)
            return 2
        return cmd_poll(float(opts["--poll"]), opts["--out"], addrs)
    if "--wait-leader-change" in opts:
        return cmd_wait_leader_change(int(opts["--wait-leader-change"]),
                                      float(opts.get("--since", time.time())),
                                      float(opts.get("--timeout", 30)), addrs)
    if "--wait-synced" in opts:
        return cmd_wait_synced(float(opts["--wait-synced"]), addrs)
    if "--leader" in opts:
        return cmd_leader(addrs)
    return cmd_describe(addrs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
