#!/usr/bin/python3
"""Lag 0 and no idle appends (issue 24), with confluent-kafka (librdkafka).

usage: group_lag_idle.py BOOTSTRAP TOPIC GROUP IDLE_S [AUTO_COMMIT_MS]

A group consumer with auto-commit (every AUTO_COMMIT_MS, default 5000, as
Java's and librdkafka's default) reads partition 0 to the log end, then
keeps polling, idle, for IDLE_S seconds. Printed, one per line:
  caught_up<TAB>position<TAB>high_watermark    once it has read everything
  idle_start<TAB>high_watermark<TAB>committed  after two auto-commits
  idle_end<TAB>high_watermark<TAB>committed    IDLE_S seconds later
  lag<TAB>high_watermark - committed           at the end
Nothing else writes to the topic meanwhile, so the high watermark (the
log end Kafka's tools show) must not move while the consumer is idle, and
the lag must be 0. Exit status 0 when both hold, 1 otherwise, 2 when the
client failed.
"""
import sys
import time

from confluent_kafka import Consumer, TopicPartition


def out(*fields):
    print("\t".join(str(f) for f in fields), flush=True)


def committed(c, tp):
    return c.committed([tp], timeout=10)[0].offset


def poll_for(c, seconds):
    end = time.time() + seconds
    while time.time() < end:
        m = c.poll(0.2)
        if m is not None and m.error():
            raise RuntimeError(str(m.error()))


def main():
    bootstrap, topic, group, idle_s = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    auto_ms = int(sys.argv[5]) if len(sys.argv) > 5 else 5000
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                  "auto.offset.reset": "earliest", "enable.auto.commit": True,
                  "auto.commit.interval.ms": auto_ms, "session.timeout.ms": 10000})
    c.subscribe([topic])
    tp = TopicPartition(topic, 0)
    deadline = time.time() + 60
    while time.time() < deadline:
        poll_for(c, 1)
        if not c.assignment():
            continue
        hw = c.get_watermark_offsets(tp, timeout=10)[1]
        pos = c.position([tp])[0].offset
        if pos >= hw:
            out("caught_up", pos, hw)
            break
    else:
        out("error", "not caught up in 60 s")
        return 2
    poll_for(c, 2 * auto_ms / 1000 + 1)  # its commit of the log end, then one of the new end
    hw0 = c.get_watermark_offsets(tp, timeout=10)[1]
    out("idle_start", hw0, committed(c, tp))
    poll_for(c, idle_s)
    hw1 = c.get_watermark_offsets(tp, timeout=10)[1]
    got = committed(c, tp)
    out("idle_end", hw1, got)
    out("lag", hw1 - got)
    c.close()
    return 0 if hw1 == hw0 and hw1 == got else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # the client failed: not a verdict on the server
        out("error", repr(e))
        sys.exit(2)
