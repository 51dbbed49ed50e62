#!/usr/bin/env python3
"""Connection floods against one node (tests/e2e/test_connection_limits.sh).

usage: conn_flood.py PLAIN_PORT SSL_PORT METRICS_PORT CA_FILE PER_IP MAX_CONN CONTROLLER_PORT

Holds idle sockets from several loopback addresses (127.0.0.2 ...) past
max.connections.per.ip and max.connections, stalled TLS handshakes, and a
metrics slowloris, and checks after each flood that the node turned the
excess away at once (accept and close) while a real client from 127.0.0.1
(kcat, acks=all) still produces, a TLS handshake from another address
completes and /metrics answers. With every client slot taken (by two
addresses, then by one), kcat from 127.0.0.1 still produces and consumes:
its connections evict the heaviest address's idlest ones, and an address
never evicts its own. The controller listener (its own slots) still answers
DescribeQuorum, and holds at most
KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX connections from one address. Prints the number of records produced on
the last line ("produced N").
"""
import re
import socket
import ssl
import subprocess
import sys
import time
import urllib.request

HOST = "127.0.0.1"
TLS_PER_IP = 8  # KQ_TLS_HANDSHAKES_PER_IP_MAX
METRICS_PER_IP = 4  # KQ_METRICS_HTTP_CONNS_PER_IP_MAX
CONTROLLER_PER_IP = 32  # KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX


def die(msg):
    print(f"conn_flood: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def log(msg):
    print(f"conn_flood: {msg}", file=sys.stderr, flush=True)


def open_from(src, port, n):
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((src, 0))
        s.settimeout(5)
        s.connect((HOST, port))
        socks.append(s)
    return socks


def split_closed(socks, settle_s=1.5):
    """(alive, closed) after the server had time to turn the excess away."""
    deadline = time.time() + settle_s
    while time.time() < deadline:
        time.sleep(0.1)
    alive, closed = [], []
    for s in socks:
        s.setblocking(False)
        try:
            data = s.recv(1)
            (closed if data == b"" else alive).append(s)
        except BlockingIOError:
            alive.append(s)
        except (ConnectionResetError, BrokenPipeError):
            closed.append(s)
    return alive, closed


def close_all(socks):
    for s in socks:
        s.close()


def metrics(port):
    with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
        if r.status != 200:
            die(f"/metrics answered {r.status}")
        return r.read().decode()


def sample(text, name, **labels):
    """The sum of name's samples that carry labels (over every listener)."""
    want = [f'{k}="{v}"' for k, v in labels.items()]
    total, seen = 0.0, False
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+)(\{[^}]*\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        got = (m.group(2) or "{}")[1:-1].split(",")
        if all(part in got for part in want):
            total += float(m.group(3))
            seen = True
    if not seen:
        die(f"metric {name} {labels} missing")
    return total


produced = 0


def produce(port, expect_ok=True, value=None, attempts=10):
    global produced
    value = value or f"conn-flood-{produced}"
    for _ in range(attempts if expect_ok else 1):
        r = subprocess.run(
            ["timeout", "20", "kcat", "-P", "-b", f"localhost:{port}", "-t", "__cluster_metadata",
             "-p", "0", "-X", "acks=all", "-X", "message.timeout.ms=5000"],
            input=value.encode(), capture_output=True)
        if r.returncode == 0:
            if not expect_ok:
                die("kcat produced while every connection slot was taken")
            produced += 1
            return
        if not expect_ok:
            return
        time.sleep(0.5)
    die(f"kcat could not produce: {r.stderr.decode()[-300:]}")


def consume(port):
    """Every record produced so far is read back from 127.0.0.1."""
    r = subprocess.run(
        ["timeout", "30", "kcat", "-C", "-b", f"localhost:{port}", "-t", "__cluster_metadata",
         "-p", "0", "-o", "beginning", "-e", "-q"], capture_output=True)
    got = sum(1 for l in r.stdout.decode().splitlines() if l.startswith("conn-flood-"))
    if got != produced:
        die(f"kcat read {got} of {produced} records: {r.stderr.decode()[-300:]}")


def phase_tls(ssl_port, ca):
    log(f"TLS: 5 x {TLS_PER_IP} stalled handshakes from 127.0.0.4")
    stalled = open_from("127.0.0.4", ssl_port, 5 * TLS_PER_IP)
    alive, closed = split_closed(stalled)
    if len(alive) != TLS_PER_IP:
        die(f"{len(alive)} stalled handshakes from one address held, want {TLS_PER_IP}")
    ctx = ssl.create_default_context(cafile=ca)
    raw = socket.create_connection((HOST, ssl_port), timeout=10, source_address=("127.0.0.1", 0))
    with ctx.wrap_socket(raw, server_hostname="localhost") as t:
        if not t.version():
            die("no TLS version after the handshake")
    close_all(stalled)
    return len(closed)


def phase_metrics_slowloris(metrics_port):
    log("metrics: slowloris of 24 connections from 127.0.0.5, scrapes from 127.0.0.1")
    slow = open_from("127.0.0.5", metrics_port, 24)
    for s in slow:
        s.sendall(b"GET /metrics HTTP/1.1\r\nX-a: ")
    ok = 0
    for i in range(12):
        for s in slow:
            try:
                s.sendall(b"a")
            except OSError:
                pass
        metrics(metrics_port)
        ok += 1
        time.sleep(0.1)
    close_all(slow)
    return ok


def main():
    plain, ssl_port, mport, ca, per_ip, max_conn, cport = sys.argv[1:8]
    plain, ssl_port, mport, per_ip, max_conn, cport = map(
        int, (plain, ssl_port, mport, per_ip, max_conn, cport))
    produce(plain)
    tls_refused = phase_tls(ssl_port, ca)
    scrapes = phase_metrics_slowloris(mport)

    log(f"per ip: {per_ip + 60} idle connections from 127.0.0.2")
    f2 = open_from("127.0.0.2", plain, per_ip + 60)
    alive2, closed2 = split_closed(f2)
    if len(alive2) != per_ip or len(closed2) != 60:
        die(f"from 127.0.0.2: {len(alive2)} held, {len(closed2)} closed; want {per_ip} and 60")
    produce(plain)  # 127.0.0.1 is not limited by 127.0.0.2's flood

    rest = max_conn - per_ip
    log(f"total: {rest + 40} idle connections from 127.0.0.3 ({rest} slots left)")
    f3 = open_from("127.0.0.3", plain, rest + 40)
    alive3, closed3 = split_closed(f3)
    # the pool full, each of the last 40 evicts an idle one of 127.0.0.2 (heavier)
    if len(alive3) != rest + 40 or closed3:
        die(f"from 127.0.0.3: {len(alive3)} held, {len(closed3)} closed; want {rest + 40} and 0")
    alive2, evicted2 = split_closed(alive2, settle_s=0.2)
    if len(evicted2) != 40:
        die(f"{len(evicted2)} of 127.0.0.2's connections evicted for 127.0.0.3's, want 40")
    produce(plain)  # every slot taken: 127.0.0.1 still gets in (evicting from 127.0.0.2)
    consume(plain)
    log("controller listener: its own slots while every client slot is taken")
    f6 = open_from("127.0.0.6", cport, CONTROLLER_PER_IP + 8)
    alive6, closed6 = split_closed(f6)
    if len(alive6) != CONTROLLER_PER_IP or len(closed6) != 8:
        die(f"controller listener from 127.0.0.6: {len(alive6)} held, {len(closed6)} closed; "
            f"want {CONTROLLER_PER_IP} and 8")
    probe = subprocess.run(["timeout", "20", sys.executable,
                            __file__.replace("conn_flood.py", "quorum_probe.py"),
                            "--leader", f"localhost:{cport}"], capture_output=True)
    if probe.returncode != 0 or not probe.stdout.decode().startswith("1 "):
        die(f"DescribeQuorum on the controller listener: {probe.stdout!r} {probe.stderr[-300:]!r}")
    close_all(f6)
    text = metrics(mport)  # the metrics endpoint is not a client listener
    if sample(text, "kq_listener_connections_refused_total", reason="per_ip") < 60:
        die("per-ip refusals not counted")
    if sample(text, "kq_listener_connections_evicted_total") < 40:
        die("evictions not counted")
    if sample(text, "kq_listener_connections_refused_total",
              reason="tls_handshakes_per_ip") < tls_refused:
        die("TLS per-address refusals not counted")
    if sample(text, "kq_log_lines_suppressed_total") <= 0:
        die("no client-caused log line was suppressed")
    held = sum(float(l.split()[-1]) for l in text.splitlines()
               if l.startswith("kq_listener_connections{"))
    if held > max_conn:
        die(f"{held} connections open, over max.connections={max_conn}")

    log("closing the 127.0.0.3 flood; the client is served again")
    close_all(f3)
    produce(plain)
    close_all(f2)
    produce(plain)

    log(f"one address holds every slot: {max_conn + 20} idle connections from 127.0.0.7 "
        f"(max.connections.per.ip.overrides lets it)")
    time.sleep(0.5)  # kcat's connections released
    f7 = open_from("127.0.0.7", plain, max_conn + 20)
    alive7, closed7 = split_closed(f7)
    if len(alive7) != max_conn or len(closed7) != 20:
        die(f"from 127.0.0.7: {len(alive7)} held, {len(closed7)} closed; want {max_conn} and 20")
    produce(plain)  # served by evicting 127.0.0.7's idlest
    consume(plain)
    text = metrics(mport)
    if sample(text, "kq_listener_connections_refused_total", reason="max_connections") < 20:
        die("max.connections refusals not counted")
    held = sum(float(l.split()[-1]) for l in text.splitlines()
               if l.startswith("kq_listener_connections{"))
    if held > max_conn:
        die(f"{held} connections open, over max.connections={max_conn}")
    close_all(f7)
    produce(plain)
    log(f"done: {tls_refused} TLS handshakes refused, {scrapes} scrapes under slowloris")
    print(f"produced {produced}")


if __name__ == "__main__":
    main()
