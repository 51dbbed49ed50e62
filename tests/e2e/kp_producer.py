#!/usr/bin/python3
"""A kafka-python 2.0.2 producer (acks=all, retries) that writes "PREFIX-<n>"
values to partition 0 of __cluster_metadata at about RATE records a second
until the file STOP exists (sending nothing while the file PAUSE exists),
and logs each acknowledgement or failure with
the time it was received, as JSON lines (VerifiableProducer's event names,
so tests/e2e/verify.py reads them too):

  {"name": "producer_send_success", "value": V, "offset": O, "t": MS}
  {"name": "producer_send_error", "value": V, "error": E, "t": MS}

usage: kp_producer.py BOOTSTRAP OUT STOP [RATE] [PREFIX] [PAUSE] [PAD]

PAUSE "-" for none; PAD appends "-" and PAD "x" characters to every value.

kafka-python 2.0.2 has no idempotent producer: a retried batch that the
first attempt had already stored is stored twice (tests report duplicates,
they do not fail on them).
"""
import json
import os
import sys
import threading
import time

from kafka import KafkaProducer

TOPIC = "__cluster_metadata"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bootstrap, out_path, stop_path = argv[0], argv[1], argv[2]
    rate = float(argv[3]) if len(argv) > 3 else 500.0
    prefix = argv[4] if len(argv) > 4 else "v"
    pause_path = argv[5] if len(argv) > 5 and argv[5] != "-" else None
    pad = "-" + "x" * int(argv[6]) if len(argv) > 6 and int(argv[6]) > 0 else ""
    out = open(out_path, "a", buffering=1, encoding="utf-8")
    lock = threading.Lock()

    def emit(ev):
        ev["t"] = int(time.time() * 1000)
        with lock:
            out.write(json.dumps(ev) + "\n")

    p = KafkaProducer(bootstrap_servers=bootstrap.split(","), acks="all", retries=50,
                      retry_backoff_ms=200, request_timeout_ms=10000, linger_ms=5,
                      max_block_ms=30000, metadata_max_age_ms=2000,
                      reconnect_backoff_max_ms=500)
    n = n0 = 0
    t0 = time.monotonic()
    while not os.path.exists(stop_path):
        if pause_path and os.path.exists(pause_path):
            time.sleep(0.05)
            t0, n0 = time.monotonic(), n
            continue
        value = f"{prefix}-{n}{pad}"
        n += 1
        try:
            fut = p.send(TOPIC, value=value.encode(), partition=0)
        except Exception as e:  # buffer full / metadata timeout
            emit({"name": "producer_send_error", "value": value, "error": repr(e)})
            continue
        fut.add_callback(lambda md, v=value: emit(
            {"name": "producer_send_success", "value": v, "offset": md.offset}))
        fut.add_errback(lambda e, v=value: emit(
            {"name": "producer_send_error", "value": v, "error": repr(e)}))
        ahead = (n - n0) / rate - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
    p.flush(timeout=60)
    p.close(timeout=30)
    emit({"name": "producer_done", "sent": n})
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
