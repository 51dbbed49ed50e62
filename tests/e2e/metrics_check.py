#!/usr/bin/env python3
"""Checks the metrics endpoints of a running quorum (tests/e2e/test_metrics.sh)
with a real Prometheus parser (prometheus_client's text parser).

  metrics_check.py scrape --min-hw N URL...   the quorum's metrics agree
  metrics_check.py abuse URL                   bad requests, then it still answers
Exits non-zero with a line saying what is wrong."""
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

RAFT = "kafka_server_raft_metrics_"
IDLE_MS = 5000  # KQ_METRICS_HTTP_IDLE_MS
CONNS_MAX = 16  # KQ_METRICS_HTTP_CONNS_MAX
CONNS_PER_IP_MAX = 4  # KQ_METRICS_HTTP_CONNS_PER_IP_MAX


def die(msg):
    print("metrics_check: " + msg)
    sys.exit(1)


def get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


def scrape(url):
    status, body, headers = get(url)
    if status != 200:
        die(f"{url}: status {status}")
    if not headers.get("Content-Type", "").startswith("text/plain; version=0.0.4"):
        die(f"{url}: content type {headers.get('Content-Type')}")
    families = {f.name: f for f in text_string_to_metric_families(body)}
    return families


def gauge(fams, name):
    f = fams.get(RAFT + name)
    if f is None or f.type != "gauge" or len(f.samples) != 1:
        die(f"no single gauge {RAFT + name}")
    return f.samples[0].value


def states(fams):
    f = fams.get(RAFT + "current_state")
    if f is None:
        die("no current_state")
    on = [s.labels["state"] for s in f.samples if s.value == 1]
    if len(on) != 1 or any(s.value not in (0, 1) for s in f.samples):
        die(f"current_state is not one state at 1: {f.samples}")
    return on[0]


def check_histogram(fams, name, labels=None):
    f = fams.get(name)
    if f is None or f.type != "histogram":
        die(f"no histogram {name}")
    labels = labels or {}
    mine = [s for s in f.samples
            if all(s.labels.get(k) == v for k, v in labels.items())]
    buckets = [s for s in mine if s.name == name + "_bucket"]
    count = [s.value for s in mine if s.name == name + "_count"]
    if not buckets or len(count) != 1:
        die(f"{name}{labels}: no buckets or count")
    values = [s.value for s in buckets]
    if values != sorted(values):
        die(f"{name}{labels}: buckets not cumulative: {values}")
    if buckets[-1].labels["le"] != "+Inf" or values[-1] != count[0]:
        die(f"{name}{labels}: +Inf bucket {values[-1]} != count {count[0]}")
    return count[0]


def plain(fams, name, kind):
    f = fams.get(name)
    if f is None or f.type != kind or len(f.samples) != 1:
        die(f"no single {kind} {name}")
    return f.samples[0].value


def check_memory(u, f):
    """The request and response budgets (issue 19): one of each per node."""
    for c in ("kq_request_memory_waits", "kq_client_turns_full",
              "kq_response_memory_reads_refused", "kq_response_memory_fetch_grants_cut"):
        if plain(f, c, "counter") < 0:
            die(f"{u}: {c} negative")
    for side in ("request", "response"):
        top = plain(f, f"kq_{side}_memory_max_bytes", "gauge")
        peak = plain(f, f"kq_{side}_memory_peak_bytes", "gauge")
        if not 0 < peak <= 2 * top:
            die(f"{u}: {side} memory peak {peak} of {top}: nothing ever held, or far past it")
    used = plain(f, "kq_request_memory_used_bytes", "gauge")
    plain(f, "kq_request_memory_waiting_connections", "gauge")
    if used > plain(f, "kq_request_memory_peak_bytes", "gauge"):
        die(f"{u}: request memory used {used} above its peak")
    fam = f.get("kq_response_memory_used_bytes")
    classes = sorted(s.labels.get("class") for s in fam.samples) if fam else []
    if fam is None or fam.type != "gauge" or classes != ["client", "quorum"]:
        die(f"{u}: kq_response_memory_used_bytes by class: {classes}")


def cmd_scrape(min_hw, urls):
    nodes = [scrape(u) for u in urls]
    roles = [states(f) for f in nodes]
    if roles.count("leader") != 1:
        die(f"not exactly one leader: {roles}")
    leaders = {gauge(f, "current_leader") for f in nodes}
    epochs = {gauge(f, "current_epoch") for f in nodes}
    if len(leaders) != 1 or len(epochs) != 1 or -1 in leaders:
        die(f"nodes disagree: leaders {leaders}, epochs {epochs}")
    leader = nodes[roles.index("leader")]
    for u, f in zip(urls, nodes):
        if gauge(f, "number_of_voters") != 3:
            die(f"{u}: number_of_voters {gauge(f, 'number_of_voters')}")
        for n in ("current_vote", "log_end_offset", "log_end_epoch", "number_of_observers",
                  "number_unknown_voter_connections", "commit_latency_avg",
                  "commit_latency_max", "election_latency_avg", "election_latency_max",
                  "append_records_rate", "fetch_records_rate", "poll_idle_ratio_avg"):
            gauge(f, n)
        if check_histogram(f, "kq_log_fsync_seconds") <= 0:
            die(f"{u}: no fsync observed")
        check_histogram(f, "kq_log_flush_batch_bytes")
        check_memory(u, f)
        for c in ("kq_listener_received_bytes", "kq_listener_sent_bytes"):
            fam = f.get(c)
            if fam is None or fam.type != "counter" or not fam.samples:
                die(f"{u}: no counter {c}")
    hw = gauge(leader, "high_watermark")
    if hw < min_hw:
        die(f"leader high_watermark {hw} < {min_hw}")
    if check_histogram(leader, "kq_request_latency_seconds", {"api": "Produce"}) <= 0:
        die("leader: no Produce request latency")
    if gauge(leader, "append_records_rate") <= 0:
        die("leader: append_records_rate is 0")
    if gauge(leader, "commit_latency_max") != gauge(leader, "commit_latency_max"):
        die("leader: commit_latency_max is NaN after appends")
    followers = [f for f, r in zip(nodes, roles) if r == "follower"]
    if len(followers) != 2 or any(gauge(f, "fetch_records_rate") <= 0 for f in followers):
        die("followers: no fetch_records_rate")
    rx = sum(s.value for s in leader["kq_listener_received_bytes"].samples)
    print(f"metrics_check: leader {int(leaders.pop())} epoch {int(epochs.pop())} hw {int(hw)} "
          f"append {gauge(leader, 'append_records_rate'):.1f}/s commit-latency avg "
          f"{gauge(leader, 'commit_latency_avg'):.2f} ms max "
          f"{gauge(leader, 'commit_latency_max'):.0f} ms, idle "
          f"{gauge(leader, 'poll_idle_ratio_avg'):.3f}, leader rx {int(rx)} bytes")


def raw(host, port, data, timeout=5):
    """Sends data, returns everything the server answers until it closes."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            out += chunk
        return out


def status_of(answer):
    line = answer.split(b"\r\n", 1)[0]
    parts = line.split(b" ")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def expect(host, port, data, want, what):
    got = status_of(raw(host, port, data))
    if got != want:
        die(f"{what}: status {got}, expected {want}")


def cmd_abuse(url):
    u = urllib.parse.urlparse(url)
    host, port = u.hostname, u.port
    base = f"{u.scheme}://{u.netloc}"
    if get(base + "/other")[0] != 404:
        die("/other is not 404")
    expect(host, port, b"POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 405, "POST")
    expect(host, port, b"GARBAGE\r\n\r\n", 400, "garbage request line")
    expect(host, port, b"GET /metrics HTTP/1.1\r\nbad header\r\n\r\n", 400, "bad header")
    expect(host, port, b"GET /metrics HTTP/1.1\r\nX: \x00\x01\xff\r\n\r\n", 400, "binary")
    expect(host, port, b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 10000 + b"\r\n\r\n", 400,
           "oversized head")
    expect(host, port, b"GET /metrics HTTP/1.0\r\n\r\n", 200, "HTTP/1.0 GET")
    # A flood: many more connections than slots, all held open and silent.
    flood = []
    for _ in range(4 * CONNS_MAX):
        try:
            flood.append(socket.create_connection((host, port), timeout=5))
        except OSError:
            pass
    time.sleep(0.5)
    # The silent ones holding slots are closed by the idle timeout.
    time.sleep(IDLE_MS / 1000 + 1.5)
    closed = 0
    for s in flood:
        s.settimeout(0.5)
        try:
            if s.recv(1) == b"":
                closed += 1
        except (ConnectionResetError, BrokenPipeError):
            closed += 1
        except socket.timeout:
            pass
    if closed != len(flood):
        die(f"only {closed} of {len(flood)} flood connections were closed by the server")
    fams = scrape(base + "/metrics")  # answers while the flood's sockets are still open
    refused = fams["kq_metrics_http_refused_connections"].samples[0].value
    evicted = fams["kq_metrics_http_evicted_connections"].samples[0].value
    # one address holds CONNS_PER_IP_MAX slots; each further one closed the
    # oldest (or was refused when none could be closed)
    if refused + evicted < len(flood) - CONNS_PER_IP_MAX:
        die(f"refused {refused} + evicted {evicted} < {len(flood) - CONNS_PER_IP_MAX}")
    for s in flood:
        s.close()
    print(f"metrics_check: 404/405/400 answered, flood of {len(flood)} connections "
          f"survived ({int(refused)} refused at accept, {int(evicted)} closed for room, "
          f"the rest closed idle)")


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "scrape" and sys.argv[2] == "--min-hw":
        cmd_scrape(int(sys.argv[3]), sys.argv[4:])
    elif len(sys.argv) == 3 and sys.argv[1] == "abuse":
        cmd_abuse(sys.argv[2])
    else:
        die(__doc__)


if __name__ == "__main__":
    main()
