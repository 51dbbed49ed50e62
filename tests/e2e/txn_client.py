#!/usr/bin/env python3
"""confluent-kafka (librdkafka) side of tests/e2e/test_txn_clients.sh.

  txn_client.py produce BOOT TOPIC TXID PREFIX NTXNS K
      NTXNS transactions of K records; every third (i % 3 == 2) is flushed
      and aborted on purpose, the others committed. Errors are handled as
      confluent-kafka documents: retriable() -> retry the call,
      txn_requires_abort() -> abort_transaction() and retry the transaction
      with new values, fatal() -> a new producer. Prints per value
      "<committed|aborted|aborted-err|unknown>\\t<tag>\\t<value>" (as
      TxnClient.java) and "error\\t<kind>\\t<error>" per handled error.
  txn_client.py consume BOOT TOPIC ISOLATION PREFIX MARKER TIMEOUT_S
      Reads partition 0 from the start (assign, no group membership) until
      the value MARKER; prints "rec\\t<offset>\\t<value>" for PREFIX values.
  txn_client.py fence BOOT TOPIC TXID PREFIX
      Producer A begins a transaction and flushes 3 records, producer B (same
      TXID) init_transactions(), which fences A; A's commit must fail with a
      fatal error (_FENCED / PRODUCER_FENCED / INVALID_PRODUCER_EPOCH).
      Prints "zombie\\ta\\t<value>", "committed\\tb\\t<value>" and
      "fenced\\t<error>" or "notfenced\\t<what happened>".
"""
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition


def out(line):
    print(line, flush=True)


def new_producer(boot, txid):
    return Producer({
        "bootstrap.servers": boot,
        "transactional.id": txid,
        "enable.idempotence": True,
        "acks": "all",
        "transaction.timeout.ms": 15000,
        "socket.timeout.ms": 5000,
        "message.timeout.ms": 15000,
        "linger.ms": 0,
        "reconnect.backoff.max.ms": 1000,
    })


def err_of(e):
    return e.args[0] if e.args and isinstance(e.args[0], KafkaError) else None


def init(boot, txid, deadline):
    p = new_producer(boot, txid)
    while True:
        try:
            p.init_transactions(15)
            return p
        except KafkaException as e:
            ke = err_of(e)
            out(f"error\tinit\t{e}")
            if time.time() > deadline:
                raise
            if ke is None or ke.fatal() or not ke.retriable():
                p = new_producer(boot, txid)
            time.sleep(0.2)


def retrying(call, what, tries=5):
    """Calls call(); a retriable() error is retried (confluent-kafka's docs)."""
    for t in range(tries):
        try:
            return call()
        except KafkaException as e:
            ke = err_of(e)
            if ke is None or not ke.retriable() or t == tries - 1:
                raise
            out(f"error\tretriable\t{what}: {e}")


def produce(boot, topic, txid, prefix, ntxns, k):
    deadline = time.time() + 60
    p = init(boot, txid, deadline)
    out("init\tok")
    i = attempt = 0
    while i < ntxns:
        if time.time() > deadline:
            sys.exit("deadline passed")
        tag = f"t{i}a{attempt}"
        values = [f"{prefix}-{tag}-r{j}" for j in range(k)]
        on_purpose = i % 3 == 2
        commit_tried = False
        try:
            p.begin_transaction()
            for v in values:
                p.produce(topic, value=v.encode(), partition=0)
            if on_purpose:
                if p.flush(15) != 0:
                    raise KafkaException(KafkaError(KafkaError._TIMED_OUT, "flush"))
                retrying(lambda: p.abort_transaction(15), "abort")
                for v in values:
                    out(f"aborted\t{tag}\t{v}")
            else:
                commit_tried = True
                retrying(lambda: p.commit_transaction(15), "commit")
                for v in values:
                    out(f"committed\t{tag}\t{v}")
            i += 1
            attempt = 0
            continue
        except KafkaException as e:
            ke = err_of(e)
            fatal = ke is None or ke.fatal()
            out(f"error\t{'fatal' if fatal else 'abortable'}\t{tag} {e}")
            if not fatal and ke.txn_requires_abort():
                try:
                    retrying(lambda: p.abort_transaction(15), "abort")
                    for v in values:
                        out(f"aborted-err\t{tag}\t{v}")
                    attempt += 1
                    continue
                except KafkaException as e2:
                    out(f"error\tfatal\t{tag} abort_transaction: {e2}")
        for v in values:
            out(f"{'unknown' if commit_tried else 'aborted-err'}\t{tag}\t{v}")
        attempt += 1
        p = init(boot, txid, deadline)
        out(f"recreated\t{tag}")
    p.flush(10)
    out(f"done\t{i}")


def consume(boot, topic, iso, prefix, marker, timeout_s):
    c = Consumer({
        "bootstrap.servers": boot,
        "group.id": f"unused-{uuid.uuid4()}",
        "enable.auto.commit": False,
        "isolation.level": iso,
        "fetch.wait.max.ms": 200,
    })
    c.assign([TopicPartition(topic, 0, -2)])  # OFFSET_BEGINNING
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() != KafkaError._PARTITION_EOF:
                print(f"consume error: {m.error()}", file=sys.stderr)
            continue
        v = (m.value() or b"").decode(errors="replace")
        if v == marker:
            out(f"marker\t{m.offset()}")
            c.close()
            return
        if v.startswith(prefix):
            out(f"rec\t{m.offset()}\t{v}")
    sys.exit(f"timeout before the marker {marker}")


def fence(boot, topic, txid, prefix):
    deadline = time.time() + 60
    a = init(boot, txid, deadline)
    zv = [f"{prefix}-a-z-{j}" for j in range(3)]
    a.begin_transaction()
    for v in zv:
        a.produce(topic, value=v.encode(), partition=0)
        out(f"zombie\ta\t{v}")
    if a.flush(15) != 0:
        sys.exit("A's records were not delivered")
    b = init(boot, txid, deadline)
    last = f"{prefix}-a-z-3"
    out(f"zombie\ta\t{last}")
    try:
        a.produce(topic, value=last.encode(), partition=0)
        a.commit_transaction(15)
        out("notfenced\tthe zombie's commit succeeded")
    except KafkaException as e:
        ke = err_of(e)
        codes = (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)
        if ke is not None and ke.code() in codes:
            out(f"fenced\t{ke.name()} fatal={ke.fatal()}")
        else:
            out(f"notfenced\t{e}")
    bv = [f"{prefix}-b-0", f"{prefix}-b-1"]
    b.begin_transaction()
    for v in bv:
        b.produce(topic, value=v.encode(), partition=0)
    b.commit_transaction(15)
    for v in bv:
        out(f"committed\tb\t{v}")


def main():
    a = sys.argv[1:]
    if len(a) == 7 and a[0] == "produce":
        produce(a[1], a[2], a[3], a[4], int(a[5]), int(a[6]))
    elif len(a) == 7 and a[0] == "consume":
        consume(a[1], a[2], a[3], a[4], a[5], float(a[6]))
    elif len(a) == 5 and a[0] == "fence":
        fence(a[1], a[2], a[3], a[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
