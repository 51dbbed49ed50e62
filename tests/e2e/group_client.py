#!/usr/bin/python3
"""One producer or group-consumer run for the consumer-group tests, with
kafka-python (Debian python3-kafka) or confluent-kafka (librdkafka).

usage:
  group_client.py LIB produce BOOTSTRAP TOPIC PREFIX COUNT
  group_client.py LIB consume BOOTSTRAP TOPIC GROUP PREFIX COUNT [TIMEOUT_S]
  group_client.py kafka-python committed BOOTSTRAP TOPIC GROUP

LIB is kafka-python, confluent or (consume only) confluent-consumer:
confluent-kafka with group.protocol=consumer (KIP-848). produce writes PREFIX-0..PREFIX-(COUNT-1)
to partition 0 with acks=all and prints "ack<TAB>offset<TAB>value" per
acknowledged record. consume subscribes (a consumer group, earliest reset,
no auto-commit), reads until it has seen COUNT distinct values starting with
PREFIX- (or the timeout), commits synchronously, reads the committed offset
back and leaves the group; it prints "assigned<TAB>partitions",
"rec<TAB>offset<TAB>value" for every record and "committed<TAB>offset".
committed prints "committed<TAB>offset" (-1: none) without joining the group.
Exit status 0 unless the client failed; the caller checks the contents.
"""
import sys
import time


def out(*fields):
    print("\t".join(str(f) for f in fields), flush=True)


def kp_produce(bootstrap, topic, prefix, count):
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5,
                      request_timeout_ms=30000)
    futs = [(f"{prefix}-{i}", p.send(topic, value=f"{prefix}-{i}".encode(), partition=0))
            for i in range(count)]
    for v, f in futs:
        md = f.get(timeout=60)
        out("ack", md.offset, v)
    p.close(timeout=30)


def kp_consume(bootstrap, topic, group, prefix, count, timeout_s):
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                      auto_offset_reset="earliest", enable_auto_commit=False,
                      session_timeout_ms=10000, heartbeat_interval_ms=1000,
                      consumer_timeout_ms=1000)
    seen = set()
    deadline = time.time() + timeout_s
    assigned = None
    while len(seen) < count and time.time() < deadline:
        for msg in c:
            v = msg.value.decode(errors="replace")
            out("rec", msg.offset, v)
            if v.startswith(prefix + "-"):
                seen.add(v)
            if len(seen) >= count:
                break
        a = sorted(f"{tp.topic}:{tp.partition}" for tp in c.assignment())
        if a != assigned:
            assigned = a
            out("assigned", ",".join(a))
    c.commit()
    tp = TopicPartition(topic, 0)
    out("committed", c.committed(tp))
    c.close()


def kp_committed(bootstrap, topic, group):
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    off = c.committed(TopicPartition(topic, 0))
    out("committed", -1 if off is None else off)
    c.close()


def ck_produce(bootstrap, topic, prefix, count):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                  "enable.idempotence": False})
    errors = []

    def cb(err, msg):
        if err is not None:
            errors.append(str(err))
        else:
            out("ack", msg.offset(), msg.value().decode())

    for i in range(count):
        p.produce(topic, value=f"{prefix}-{i}".encode(), partition=0, on_delivery=cb)
        p.poll(0)
    left = p.flush(60)
    if left or errors:
        sys.exit(f"confluent producer: {left} undelivered, errors {errors[:3]}")


def ck_consume(bootstrap, topic, group, prefix, count, timeout_s, protocol="classic"):
    from confluent_kafka import Consumer, TopicPartition
    assigned = []

    def on_assign(consumer, parts):
        assigned[:] = [f"{p.topic}:{p.partition}" for p in parts]
        out("assigned", ",".join(sorted(assigned)))

    conf = {"bootstrap.servers": bootstrap, "group.id": group,
            "auto.offset.reset": "earliest", "enable.auto.commit": False}
    if protocol == "consumer":
        # KIP-848: the broker sets the session and heartbeat intervals.
        conf["group.protocol"] = "consumer"
    else:
        conf.update({"session.timeout.ms": 10000, "heartbeat.interval.ms": 1000})
    c = Consumer(conf)
    c.subscribe([topic], on_assign=on_assign)
    seen = set()
    deadline = time.time() + timeout_s
    while len(seen) < count and time.time() < deadline:
        msg = c.poll(1.0)
        if msg is None:
            continue
        if msg.error():
            out("error", msg.error())
            continue
        v = msg.value().decode(errors="replace")
        out("rec", msg.offset(), v)
        if v.startswith(prefix + "-"):
            seen.add(v)
    c.commit(asynchronous=False)
    got = c.committed([TopicPartition(topic, 0)], timeout=30)
    out("committed", got[0].offset)
    c.close()


def main(argv):
    lib, mode = argv[1], argv[2]
    if mode == "produce":
        f = kp_produce if lib == "kafka-python" else ck_produce
        f(argv[3], argv[4], argv[5], int(argv[6]))
    elif mode == "consume" and lib == "confluent-consumer":
        ck_consume(argv[3], argv[4], argv[5], argv[6], int(argv[7]),
                   float(argv[8]) if len(argv) > 8 else 60.0, protocol="consumer")
    elif mode == "consume":
        f = kp_consume if lib == "kafka-python" else ck_consume
        f(argv[3], argv[4], argv[5], argv[6], int(argv[7]),
          float(argv[8]) if len(argv) > 8 else 60.0)
    elif mode == "committed":
        kp_committed(argv[3], argv[4], argv[5])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
