#!/usr/bin/python3
"""Hostile clients for test_hostile_clients.sh (issue 19): raw sockets and
Kafka framing, attackers bound to --from (127.0.0.2 by default) so that
per-address limits apply to them and not to the legitimate probes, which
connect from 127.0.0.1.

usage:
  hostile.py attack NAME --port P [options]
      Runs one attack against the node at 127.0.0.1:P for --secs seconds
      while the checks run, then prints one line per check:
      "ROW<TAB>attack<TAB>check<TAB>PASS|FAIL<TAB>figure".
      NAME is one of: control idle fetch partial tls joingroup commit
      listoffsets metrics.
  hostile.py probe --port P --secs S [--tls-ca CA]
      A fresh connection every 0.25 s answers ApiVersions v0; prints
      "n=<tries> fails=<failed> max_ms=<slowest>".
  hostile.py newgroup --bootstrap B --group G [--timeout S]
      kafka-python joins a new consumer group, commits and reads the commit
      back; prints "ok ms=<took>" or "fail <reason>".
  hostile.py groupread --bootstrap B --group G --out FILE
      A consumer group reading until SIGTERM, committing every 2 s; writes
      "records=<n> commits_ok=<n> commits_failed=<n>" to FILE when stopped.

The checks of an attack (each a row): every node in --pids stays alive;
the VmRSS of every node stays under --bound-mib (sampled every 50 ms; the
attack stops at once when it is exceeded, so a server without limits does
not take the machine); ApiVersions from 127.0.0.1 answered within
--probe-ms throughout; a new consumer group joins and commits during the
attack (from its 2nd second) and after it; the VerifiableProducer whose
output is --acks got acknowledgements during the attack; with --quorum,
the leader and epoch are the same before and after. Attack-specific rows
are described with each attack below. Only the Python standard library is
used, except kafka-python for the consumer groups.
"""
import argparse
import os
import random
import resource
import selectors
import signal
import socket
import ssl
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOPIC = b"__cluster_metadata"
INVALID_RECORD = 87


class Abort(Exception):
    """The server's memory passed the bound: the attack stops at once."""


# --- encoding ---------------------------------------------------------------

def header(api_key, version, corr, client=b"hostile", flexible=False):
    h = struct.pack(">hhih", api_key, version, corr, len(client)) + client
    return h + (b"\x00" if flexible else b"")


def frame(body):
    return struct.pack(">i", len(body)) + body


def string(b):
    return struct.pack(">h", len(b)) + b


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


def varint(n):
    return uvarint((n << 1) ^ (n >> 63))


def compact(b):
    return uvarint(len(b) + 1) + b


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


def record(offset_delta, key, value):
    body = b"\x00" + varint(0) + varint(offset_delta)
    body += varint(-1) if key is None else varint(len(key)) + key
    body += varint(len(value)) + value + varint(0)
    return varint(len(body)) + body


def batch(records, attributes=0):
    """A v2 record batch (magic 2, CRC-32C of attributes..end)."""
    now = int(time.time() * 1000)
    recs = b"".join(record(i, k, v) for i, (k, v) in enumerate(records))
    after_crc = struct.pack(">hiqqqhii", attributes, len(records) - 1, now, now,
                            -1, -1, -1, len(records)) + recs
    crc_and_rest = struct.pack(">I", crc32c(after_crc)) + after_crc
    length = 4 + 1 + len(crc_and_rest)  # leader epoch, magic, crc..end
    return struct.pack(">qiib", 0, length, -1, 2) + crc_and_rest


# Our server's offset-commit control record type (include/kq/group_offsets.h).
KQ_CONTROL_OFFSET_COMMIT = 19281


def control_batch(marker):
    key = struct.pack(">hh", 0, KQ_CONTROL_OFFSET_COMMIT)
    return batch([(key, b"\xff\xff\xff\xff" + marker)], attributes=0x20)


def produce_v3(corr, records):
    body = struct.pack(">hhi", -1, -1, 10000)  # null transactional id, acks=-1
    body += struct.pack(">i", 1) + string(TOPIC)
    body += struct.pack(">ii", 1, 0) + struct.pack(">i", len(records)) + records
    return frame(header(0, 3, corr) + body)


def produce_v3_error(resp):
    pos = 4 + 4  # correlation id, topics
    (tlen,) = struct.unpack_from(">h", resp, pos)
    pos += 2 + tlen + 4
    _, err = struct.unpack_from(">ih", resp, pos)
    return err


def fetch_v4(corr, max_bytes):
    body = struct.pack(">iiiib", -1, 0, 0, max_bytes, 0)
    body += struct.pack(">i", 1) + string(TOPIC)
    body += struct.pack(">iiqi", 1, 0, 0, max_bytes)
    return frame(header(1, 4, corr) + body)


def join_group_v1(corr, group, metadata):
    body = string(group) + struct.pack(">ii", 30000, 60000) + string(b"")
    body += string(b"consumer") + struct.pack(">i", 1) + string(b"range")
    body += struct.pack(">i", len(metadata)) + metadata
    return frame(header(11, 1, corr) + body)


def offset_commit_v2(corr, group, metadata):
    body = string(group) + struct.pack(">i", -1) + string(b"") + struct.pack(">q", -1)
    body += struct.pack(">i", 1) + string(TOPIC) + struct.pack(">i", 1)
    body += struct.pack(">iq", 0, 0) + string(metadata)
    return frame(header(8, 2, corr) + body)


def offset_commit_v2_error(resp):
    pos = 4 + 4
    (tlen,) = struct.unpack_from(">h", resp, pos)
    pos += 2 + tlen + 4
    _, err = struct.unpack_from(">ih", resp, pos)
    return err


def list_offsets_v7(corr, timestamp):
    """Flexible from v6: header v2, compact arrays and strings, tags."""
    body = struct.pack(">ib", -1, 0) + uvarint(2) + compact(TOPIC) + uvarint(2)
    body += struct.pack(">iiq", 0, -1, timestamp) + b"\x00" + b"\x00" + b"\x00"
    return frame(header(2, 7, corr, flexible=True) + body)


def api_versions_v0(corr):
    return frame(header(18, 0, corr))


# --- plumbing ----------------------------------------------------------------

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


def connect(port, src, timeout=5.0, host="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        if src:
            s.bind((src, 0))
        s.connect((host, port))
    except OSError:
        s.close()
        raise
    return s


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def acked(path):
    if not path:
        return 0
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if '"producer_send_success"' in line)
    except OSError:
        return 0


class Rows:
    def __init__(self, attack):
        self.attack = attack

    def add(self, check, ok, figure):
        print(f"ROW\t{self.attack}\t{check}\t{'PASS' if ok else 'FAIL'}\t{figure}", flush=True)


class Guard:
    """Samples the nodes' VmRSS; raises Abort past the bound."""

    def __init__(self, pids, bound_mib):
        self.pids, self.bound_kib = pids, bound_mib * 1024
        self.peak_kib, self.last, self.over = 0, 0.0, None

    def tick(self):
        now = time.time()
        if now - self.last < 0.05:
            return
        self.last = now
        for pid in self.pids:
            kib = status_kib(pid, "VmRSS")
            self.peak_kib = max(self.peak_kib, kib)
            if kib > self.bound_kib:
                # The check has failed; a server without limits would go on
                # growing (gigabytes) and take the shared machine with it.
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
                self.over = f"pid {pid} VmRSS {kib // 1024} MiB: node killed"
                raise Abort(self.over)

    def sleep(self, secs, deadline=None):
        end = time.time() + secs
        if deadline is not None:
            end = min(end, deadline)
        while time.time() < end:
            self.tick()
            time.sleep(0.02)


# --- attacks -----------------------------------------------------------------
# Each gets (args, guard, rows, deadline), holds its sockets until the
# deadline (or Abort) and returns the sockets to close.

def attack_control(a, g, rows, deadline):
    """Produce v3 with [data, control] and [data, data, control]: each must
    be refused with INVALID_RECORD and nothing of it appended (a marker in
    every record is looked for in the nodes' log files)."""
    marker = b"hostile-%08x" % random.getrandbits(32)
    s = connect(a.port, a.src, timeout=10)
    data = batch([(None, marker + b"-data")])
    errs = []
    for corr, recs in ((1, data + control_batch(marker)),
                       (2, data + batch([(None, marker + b"-data2")]) + control_batch(marker))):
        try:
            s.sendall(produce_v3(corr, recs))
            errs.append(produce_v3_error(recv_frame(s)))
        except (OSError, EOFError, struct.error) as e:
            errs.append(f"no answer ({e.__class__.__name__})")
    rows.add("invalid_record", all(e == INVALID_RECORD for e in errs),
             "errors " + ",".join(str(e) for e in errs))
    g.sleep(3, deadline)  # replication of whatever was appended
    found = []
    for d in a.data_dirs:
        for root, _, files in os.walk(d):
            for fn in files:
                if fn.endswith(".log"):
                    with open(os.path.join(root, fn), "rb") as f:
                        if marker in f.read():
                            found.append(os.path.join(os.path.basename(d), fn))
    rows.add("not_appended", not found, "found in " + ",".join(found) if found else "marker absent")
    g.sleep(deadline - time.time(), deadline)
    return [s]


def attack_idle(a, g, rows, deadline):
    """Idle connections up to --conns (or the attacker's descriptors): the
    node must keep serving and writing (no EMFILE on its storage)."""
    hard = raise_nofile()
    want = min(a.conns or 20000, hard - 300)
    socks, timeouts, refused = [], 0, 0
    connect_end = min(deadline, time.time() + a.secs * 0.6)
    while len(socks) < want and time.time() < connect_end and timeouts < 200:
        g.tick()
        try:
            socks.append(connect(a.port, a.src, timeout=0.2))
            timeouts = 0
        except socket.timeout:
            timeouts += 1
        except OSError:
            refused += 1
    rows.add("connections", True, f"{len(socks)} of {want} opened, {refused} refused")
    g.sleep(deadline - time.time(), deadline)
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    rows.add("closed_by_server", True, f"{closed}")
    return socks


def pump(sel, pending, g, until):
    """Writes pending[sock] bytes as the sockets accept them until everything
    is sent or `until`; returns bytes left."""
    while time.time() < until and any(pending.values()):
        g.tick()
        for key, _ in sel.select(0.05):
            s = key.fileobj
            data = pending.get(s, b"")
            if not data:
                continue
            try:
                n = s.send(data[:1 << 16])
                pending[s] = data[n:]
            except BlockingIOError:
                pass
            except OSError:
                pending[s] = b""
                sel.unregister(s)
    return sum(len(v) for v in pending.values())


def attack_fetch(a, g, rows, deadline):
    """--conns connections each pipeline --requests consumer Fetch v4 of
    1 MiB from offset 0 and never read."""
    sel = selectors.DefaultSelector()
    socks, pending = [], {}
    for _ in range(a.conns or 200):
        try:
            s = connect(a.port, a.src)
        except OSError:
            continue
        s.setblocking(False)
        socks.append(s)
        pending[s] = b"".join(fetch_v4(i, 1 << 20) for i in range(a.requests))
        sel.register(s, selectors.EVENT_WRITE)
        g.tick()
    left = pump(sel, pending, g, deadline)
    total = len(socks) * len(fetch_v4(0, 1 << 20)) * a.requests
    rows.add("requests_sent", True, f"{len(socks)} conns, {total - left} of {total} request bytes sent")
    g.sleep(deadline - time.time(), deadline)
    return socks


def attack_partial(a, g, rows, deadline):
    """--conns connections announce 64 MiB frames and send 1 byte; each the
    server closes is reopened."""
    def one():
        s = connect(a.port, a.src)
        s.sendall(struct.pack(">i", 64 << 20) + b"\x00")
        s.setblocking(False)
        return s

    socks, reopened = [], 0
    for _ in range(a.conns or 200):
        try:
            socks.append(one())
        except OSError:
            pass
        g.tick()
    while time.time() < deadline:
        g.sleep(0.5, deadline)
        for i, s in enumerate(socks):
            try:
                gone = s.recv(1) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                s.close()
                try:
                    socks[i] = one()
                    reopened += 1
                except OSError:
                    pass
    rows.add("held", True, f"{len(socks)} conns, {reopened} reopened after a close")
    return socks


def tls_client_ok(port, ca):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.check_hostname = False
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                s.sendall(api_versions_v0(5))
                return struct.unpack(">ih", recv_frame(s)[:6]) == (5, 0)
    except (OSError, EOFError, struct.error, ssl.SSLError):
        return False


def attack_tls(a, g, rows, deadline):
    """--conns stalled TLS handshakes (a record header announcing 512 bytes
    of ClientHello, 6 of them sent) on the SSL listener, each reopened once
    the server drops it; a real TLS client must get in every second, and
    the node's log must not grow by more than --log-bytes."""
    hello = b"\x16\x03\x01\x02\x00" + b"\x01\x00\x01\xfc\x03\x03"

    def one():
        s = connect(a.tls_port, a.src, timeout=1)
        s.sendall(hello)
        s.setblocking(False)
        return s

    log0 = sum(os.path.getsize(p) for p in a.logs if os.path.exists(p))
    socks, reopened, legit, legit_ok, next_legit = [], 0, 0, 0, time.time() + 1
    for _ in range(a.conns or 100):
        try:
            socks.append(one())
        except OSError:
            pass
    while time.time() < deadline:
        g.tick()
        for i, s in enumerate(socks):
            try:
                gone = s.recv(1) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                s.close()
                try:
                    socks[i] = one()
                    reopened += 1
                except OSError:
                    pass
        if time.time() >= next_legit:
            legit += 1
            legit_ok += tls_client_ok(a.tls_port, a.tls_ca)
            next_legit = time.time() + 1
        time.sleep(0.01)
    grew = sum(os.path.getsize(p) for p in a.logs if os.path.exists(p)) - log0
    rows.add("legit_tls", legit > 0 and legit_ok == legit,
             f"{legit_ok} of {legit} TLS clients got in, {reopened} reopened")
    rows.add("log_growth", grew <= a.log_bytes, f"{grew} B of node log (bound {a.log_bytes})")
    return socks


def pipeline(a, g, deadline, nconns, make, window, parse, total):
    """Sends make(i) for i < total over nconns connections with at most
    `window` unanswered on each, reading answers; returns (sent, answers)
    where answers counts the values parse() returned."""
    sel = selectors.DefaultSelector()
    state = {}
    for _ in range(nconns):
        try:
            s = connect(a.port, a.src)
        except OSError:
            continue
        s.setblocking(False)
        state[s] = {"out": b"", "in": bytearray(), "inflight": 0}
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
    sent, answers = 0, {}
    while time.time() < deadline and state:
        g.tick()
        for s, st in state.items():
            while st["inflight"] < window and sent < total and len(st["out"]) < (1 << 20):
                st["out"] += make(sent)
                st["inflight"] += 1
                sent += 1
        for key, ev in sel.select(0.05):
            s, st = key.fileobj, state[key.fileobj]
            try:
                if ev & selectors.EVENT_WRITE and st["out"]:
                    n = s.send(st["out"][:1 << 16])
                    st["out"] = st["out"][n:]
                if ev & selectors.EVENT_READ:
                    chunk = s.recv(1 << 20)
                    if not chunk:
                        raise EOFError
                    st["in"] += chunk
            except BlockingIOError:
                pass
            except (OSError, EOFError):
                sel.unregister(s)
                del state[s]
                answers["closed"] = answers.get("closed", 0) + 1
                break
            buf = st["in"]
            while len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from(">i", buf)[0]:
                n = struct.unpack_from(">i", buf)[0]
                v = parse(bytes(buf[4:4 + n]))
                answers[v] = answers.get(v, 0) + 1
                del buf[:4 + n]
                st["inflight"] -= 1
    return sent, answers, list(state)


def figure(d):
    return " ".join(f"{k}:{v}" for k, v in sorted(d.items(), key=lambda kv: str(kv[0])))


def attack_joingroup(a, g, rows, deadline):
    """JoinGroup v1 to --groups distinct groups with --meta-bytes of member
    metadata each, pipelined over 16 connections."""
    meta = bytes(a.meta_bytes)
    sent, answers, socks = pipeline(
        a, g, deadline, 16, lambda i: join_group_v1(i, b"hostile-join-%d" % i, meta), 256,
        lambda r: struct.unpack_from(">h", r, 4)[0], a.groups)
    rows.add("joins_sent", True, f"{sent} joins, answers {figure(answers) or 'none'}")
    g.sleep(deadline - time.time(), deadline)
    return socks


def attack_commit(a, g, rows, deadline):
    """OffsetCommit v2 (generation -1) to --groups distinct groups, group
    ids of 200 B and --commit-meta-bytes of metadata each."""
    meta = b"m" * a.commit_meta_bytes
    pad = b"g" * 180
    sent, answers, socks = pipeline(
        a, g, deadline, 8,
        lambda i: offset_commit_v2(i, b"hostile-commit-%010d-" % i + pad, meta), 64,
        offset_commit_v2_error, a.groups)
    rows.add("commits_sent", True, f"{sent} commits, errors {figure(answers) or 'none'}")
    return socks


def attack_listoffsets(a, g, rows, deadline):
    """ListOffsets v7 with timestamp -3 (max timestamp), 100 pipelined on
    each of 4 connections, refilled as answered."""
    sent, answers, socks = pipeline(
        a, g, deadline, 4, lambda i: list_offsets_v7(i, -3), 100, lambda r: "answered",
        1 << 30)
    rows.add("answered", True, f"{sent} sent, {figure(answers) or 'none'}")
    return socks


def scrape_ok(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
            s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
            head = s.recv(64)
            return head.startswith(b"HTTP/1.") and b" 200 " in head[:16]
    except OSError:
        return False


def attack_metrics(a, g, rows, deadline):
    """Slowloris on the metrics endpoint: --conns connections each send a
    byte of a request head every second, reopened when closed; scrapes
    from 127.0.0.1 every 0.25 s must succeed (all but one in ten)."""
    def one():
        s = connect(a.metrics_port, a.src, timeout=1)
        s.sendall(b"G")
        s.setblocking(False)
        return s

    socks = []
    for _ in range(a.conns or 64):
        try:
            socks.append(one())
        except OSError:
            pass
    tries, ok, drip = 0, 0, time.time() + 1
    while time.time() < deadline:
        g.tick()
        tries += 1
        ok += scrape_ok(a.metrics_port)
        if time.time() >= drip:
            drip = time.time() + 1
            for i, s in enumerate(socks):
                try:
                    s.send(b"E")
                except BlockingIOError:
                    pass
                except OSError:
                    s.close()
                    try:
                        socks[i] = one()
                    except OSError:
                        pass
        time.sleep(0.25)
    rows.add("scrapes", tries > 0 and ok * 10 >= tries * 9, f"{ok} of {tries} scrapes answered")
    return socks


ATTACKS = {
    "control": attack_control,
    "idle": attack_idle,
    "fetch": attack_fetch,
    "partial": attack_partial,
    "tls": attack_tls,
    "joingroup": attack_joingroup,
    "commit": attack_commit,
    "listoffsets": attack_listoffsets,
    "metrics": attack_metrics,
}


# --- checks around an attack ------------------------------------------------

def self_cmd(*args):
    return [sys.executable, os.path.abspath(__file__)] + [str(x) for x in args]


def leader(addrs):
    out = subprocess.run([sys.executable, os.path.join(HERE, "quorum_probe.py"), "--leader"]
                         + addrs, capture_output=True, text=True, timeout=30).stdout.split()
    return tuple(out[:2]) if len(out) == 3 else ("?", "?")


def wait_guarded(proc, secs, g, hung):
    """proc's output, the nodes' memory still watched while it runs."""
    end = time.time() + secs
    while proc.poll() is None and time.time() < end:
        try:
            g.tick()
        except Abort:
            pass
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
        return hung
    return proc.stdout.read().strip()


def newgroup_row(rows, a, when, g, proc=None):
    if proc is None:
        proc = subprocess.Popen(self_cmd("newgroup", "--bootstrap", a.bootstrap, "--group",
                                         f"hostile-new-{a.name}-{when}-{random.getrandbits(24)}",
                                         "--timeout", a.newgroup_secs),
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = wait_guarded(proc, a.newgroup_secs + 15, g, "fail hung")
    rows.add(f"newgroup_{when}", out.startswith("ok"), out or "fail no output")


def run_attack(a):
    rows = Rows(a.name)
    g = Guard(a.pids, a.bound_mib)
    before = leader(a.quorum) if a.quorum else None
    acked0 = acked(a.acks)
    probe = subprocess.Popen(self_cmd("probe", "--port", a.port, "--secs", a.secs),
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    start = time.time()
    deadline = start + a.secs
    during = None
    socks = []
    try:
        if a.newgroup:
            # started now; kafka-python's start-up takes the first seconds
            during = subprocess.Popen(
                self_cmd("newgroup", "--bootstrap", a.bootstrap, "--group",
                         f"hostile-new-{a.name}-during-{random.getrandbits(24)}",
                         "--timeout", a.newgroup_secs, "--delay", 2),
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        socks = ATTACKS[a.name](a, g, rows, deadline) or []
    except Abort:
        pass
    except OSError as e:
        rows.add("attacker", False, f"attacker error {e}")
    if during is not None:
        newgroup_row(rows, a, "during", g, during)
    for s in socks:
        s.close()
    out = wait_guarded(probe, a.secs + 30, g, "n=0 fails=1 max_ms=hung")
    f = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
    ok = f.get("fails") == "0" and f.get("max_ms", "x").isdigit() and int(f["max_ms"]) <= a.probe_ms
    rows.add("apiversions", ok, f"{out} (bound {a.probe_ms} ms)")
    if a.acks:
        got = acked(a.acks) - acked0
        rows.add("producer", got > 0, f"{got} records acked during the attack")
    time.sleep(1)
    dead = [p for p in a.pids if not alive(p)]
    rows.add("alive", not dead, f"dead pids {dead}" if dead else f"{len(a.pids)} nodes up")
    if a.newgroup and not dead:
        newgroup_row(rows, a, "after", g)
    rows.add("rss", g.over is None, g.over or f"peak VmRSS {g.peak_kib // 1024} MiB "
             f"(bound {a.bound_mib} MiB)")
    if before is not None:
        after = leader(a.quorum)
        rows.add("leader", after == before and "?" not in before,
                 f"leader/epoch {'/'.join(before)} -> {'/'.join(after)}")


# --- helper modes ------------------------------------------------------------

def run_probe(a):
    end = time.time() + a.secs
    n, fails, worst = 0, 0, 0
    while time.time() < end:
        t0 = time.time()
        n += 1
        try:
            with socket.create_connection(("127.0.0.1", a.port), timeout=10) as s:
                s.sendall(api_versions_v0(9))
                if struct.unpack(">ih", recv_frame(s)[:6]) != (9, 0):
                    fails += 1
        except (OSError, EOFError, struct.error):
            fails += 1
        worst = max(worst, int((time.time() - t0) * 1000))
        time.sleep(max(0, 0.25 - (time.time() - t0)))
    print(f"n={n} fails={fails} max_ms={worst}")


def consumer(bootstrap, group):
    from kafka import KafkaConsumer
    return KafkaConsumer(bootstrap_servers=bootstrap.split(","), group_id=group,
                         auto_offset_reset="latest", enable_auto_commit=False,
                         session_timeout_ms=10000, heartbeat_interval_ms=1000,
                         request_timeout_ms=15000, max_partition_fetch_bytes=1 << 16)


def run_newgroup(a):
    time.sleep(a.delay)
    from kafka import TopicPartition
    t0 = time.time()
    try:
        c = consumer(a.bootstrap, a.group)
        c.subscribe([TOPIC.decode()])
        tp = TopicPartition(TOPIC.decode(), 0)
        while not c.assignment() and time.time() - t0 < a.timeout:
            c.poll(timeout_ms=500)
        if not c.assignment():
            print("fail no assignment")
            return
        c.commit()
        off = c.committed(tp)
        c.close()
        if off is None:
            print("fail commit not read back")
        else:
            print(f"ok ms={int((time.time() - t0) * 1000)} committed={off}")
    except Exception as e:  # any client failure is the check's figure
        print(f"fail {e.__class__.__name__}: {str(e)[:80]}")


def run_groupread(a):
    """kafka-python 2.0's poll() can block for good while no coordinator
    answers, so SIGTERM writes the summary and exits from the handler."""
    n = {"records": 0, "commits_ok": 0, "commits_failed": 0}

    def stop(*_):
        with open(a.out, "w") as f:
            f.write(" ".join(f"{k}={v}" for k, v in n.items()) + "\n")
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    last = time.time()
    c = consumer(a.bootstrap, a.group)
    c.subscribe([TOPIC.decode()])
    while True:
        try:
            for recs in c.poll(timeout_ms=500).values():
                n["records"] += len(recs)
            if time.time() - last >= 2 and c.assignment():
                last = time.time()
                c.commit()
                n["commits_ok"] += 1
        except Exception:  # counted; the reader goes on
            n["commits_failed"] += 1
            time.sleep(0.5)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["attack", "probe", "newgroup", "groupread"])
    p.add_argument("name", nargs="?")
    p.add_argument("--port", type=int)
    p.add_argument("--tls-port", type=int)
    p.add_argument("--tls-ca")
    p.add_argument("--metrics-port", type=int)
    p.add_argument("--from", dest="src", default="127.0.0.2")
    p.add_argument("--pids", type=lambda s: [int(x) for x in s.split(",")], default=[])
    p.add_argument("--logs", type=lambda s: s.split(","), default=[])
    p.add_argument("--data-dirs", type=lambda s: s.split(","), default=[])
    p.add_argument("--quorum", type=lambda s: s.split(","), default=[])
    p.add_argument("--bootstrap")
    p.add_argument("--acks")
    p.add_argument("--secs", type=float, default=10)
    p.add_argument("--bound-mib", type=int, default=1024)
    p.add_argument("--probe-ms", type=int, default=3000)
    p.add_argument("--conns", type=int, default=0)
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--groups", type=int, default=5000)
    p.add_argument("--meta-bytes", type=int, default=256 * 1024)
    p.add_argument("--commit-meta-bytes", type=int, default=4000)
    p.add_argument("--log-bytes", type=int, default=1 << 20)
    p.add_argument("--newgroup", type=int, default=1)
    p.add_argument("--newgroup-secs", type=float, default=30)
    p.add_argument("--group")
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--delay", type=float, default=0)
    p.add_argument("--out")
    a = p.parse_args()
    if a.mode == "attack":
        if a.name not in ATTACKS:
            sys.exit(f"unknown attack {a.name}; one of {' '.join(ATTACKS)}")
        run_attack(a)
    elif a.mode == "probe":
        run_probe(a)
    elif a.mode == "newgroup":
        run_newgroup(a)
    else:
        run_groupread(a)


if __name__ == "__main__":
    main()
