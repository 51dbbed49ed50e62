#!/usr/bin/python3
"""Helpers for test_snapshot_retention.sh (hand-encoded requests, on-disk
scans, read-back checks).

usage:
  snap_tool.py init HOST:PORT
      InitProducerId v4; prints "<producer id> <epoch>"
  snap_tool.py produce HOST:PORT PID EPOCH SEQ VALUE SAVE
      one idempotent batch (one record VALUE, acks=-1, Produce v3); the
      request body is saved to SAVE so that `resend` repeats it byte for
      byte; prints "<error> <base offset>"
  snap_tool.py resend HOST:PORT SAVE
      sends the saved Produce body again; prints "<error> <base offset>"
  snap_tool.py list-offsets HOST:PORT TIMESTAMP
      ListOffsets v1 (-2 earliest, -1 latest); prints "<error> <offset>"
  snap_tool.py fetch HOST:PORT OFFSET
      Fetch v5 at OFFSET; prints "<error> <hw> <log start> <record bytes>"
  snap_tool.py logend DIR
      end offset of the batches in DIR/*.log (the last batch's last offset
      + 1, or the last segment's base when it is empty)
  snap_tool.py logstart DIR
      the log start from DIR/log-start-offset-checkpoint (0 without the
      file); exits 1 when the file is not exactly Kafka's format
  snap_tool.py controls DIR
      offsets of every control record in DIR/*.log, one a line
  snap_tool.py parse-kcat RAW OUT
      RAW is kcat -f '%o\\t%S\\t%s\\n' output (values may hold any byte);
      writes "offset<TAB>value" lines: values shorter than 100 bytes as
      they are, longer ones (kq-load's) as "big:<first 8 bytes in hex>"
  snap_tool.py check-range CONSUMED CONTROLS START END
      the consumed offsets (CONSUMED: "offset<TAB>value" lines) are strictly
      increasing, and together with the control record offsets they are
      exactly START..END-1; prints a summary
  snap_tool.py acked-above PRODUCED START OUT
      VerifiableProducer's acknowledged records at offsets >= START, as
      "offset<TAB>value" lines (verify.py reads them); prints "kept dropped"
  snap_tool.py kp-check HOST:PORT START END
      kafka-python consumers: from earliest (auto_offset_reset='earliest',
      seek_to_beginning) the first record is at or above START and offsets
      reach END-1; a position below START with auto_offset_reset='none'
      raises OffsetOutOfRangeError; with 'earliest' it is reset to the
      first record. Prints a summary; exits 1 on a mismatch.
"""
import glob
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pid_client  # noqa: E402

TOPIC = b"__cluster_metadata"


def addr_conn(addr):
    return pid_client.Conn(addr, timeout=30.0)


def call(addr, api_key, version, flexible, body):
    c = addr_conn(addr)
    corr = c.send(api_key, version, flexible, body)
    got, payload = c.recv()
    c.close()
    if got != corr:
        raise ValueError("correlation id mismatch")
    return payload


def cmd_init(addr):
    err, pid, epoch = pid_client.parse_init_pid(call(addr, 22, 4, True, pid_client.init_pid_body()))
    if err != 0:
        print(f"InitProducerId error {err}", file=sys.stderr)
        return 1
    print(pid, epoch)
    return 0


def cmd_produce(addr, pid, epoch, seq, value, save):
    body = pid_client.produce_body(pid, epoch, seq, value.encode())
    with open(save, "wb") as f:
        f.write(body)
    err, base = pid_client.parse_produce(call(addr, 0, 3, False, body))
    print(err, base)
    return 0


def cmd_resend(addr, save):
    with open(save, "rb") as f:
        body = f.read()
    err, base = pid_client.parse_produce(call(addr, 0, 3, False, body))
    print(err, base)
    return 0


def cmd_list_offsets(addr, ts):
    body = struct.pack(">ii", -1, 1) + struct.pack(">h", len(TOPIC)) + TOPIC
    body += struct.pack(">iiq", 1, 0, ts)
    p = call(addr, 2, 1, False, body)
    pos = 4  # one topic
    tlen, = struct.unpack_from(">h", p, pos)
    pos += 2 + tlen + 4  # name, one partition
    _, err, _, off = struct.unpack_from(">ihqq", p, pos)
    print(err, off)
    return 0


def cmd_fetch(addr, offset):
    body = struct.pack(">iiiib", -1, 500, 1, 1 << 20, 0)
    body += struct.pack(">i", 1) + struct.pack(">h", len(TOPIC)) + TOPIC
    body += struct.pack(">iiqqi", 1, 0, offset, -1, 1 << 20)
    p = call(addr, 1, 5, False, body)
    pos = 4 + 4  # throttle, one topic
    tlen, = struct.unpack_from(">h", p, pos)
    pos += 2 + tlen + 4  # name, one partition
    _, err, hw, _, start = struct.unpack_from(">ihqqq", p, pos)
    pos += 4 + 2 + 24
    naborted, = struct.unpack_from(">i", p, pos)
    pos += 4 + max(naborted, 0) * 16
    nbytes, = struct.unpack_from(">i", p, pos)
    print(err, hw, start, max(nbytes, 0))
    return 0


def batches(d):
    """(base, last, attributes) of every batch in d/*.log, in file order."""
    for path in sorted(glob.glob(os.path.join(d, "*.log"))):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            continue  # deleted by retention meanwhile
        pos = 0
        while pos + 61 <= len(data):
            base, length = struct.unpack_from(">qi", data, pos)
            if length < 49 or pos + 12 + length > len(data):
                break  # preallocated zeros or a torn tail
            attrs, = struct.unpack_from(">h", data, pos + 21)
            last_delta, = struct.unpack_from(">i", data, pos + 23)
            yield base, base + last_delta, attrs
            pos += 12 + length


def cmd_logend(d):
    end = None
    for _, last, _ in batches(d):
        end = last + 1
    if end is None:
        segs = sorted(glob.glob(os.path.join(d, "*.log")))
        end = int(os.path.basename(segs[-1])[:20]) if segs else 0
    print(end)
    return 0


def cmd_logstart(d):
    path = os.path.join(d, "log-start-offset-checkpoint")
    if not os.path.exists(path):
        print(0)
        return 0
    with open(path, encoding="ascii") as f:
        text = f.read()
    lines = text.split("\n")
    if (len(lines) != 4 or lines[0] != "0" or lines[1] != "1" or lines[3] != ""
            or not lines[2].startswith("__cluster_metadata 0 ")):
        print(f"bad log-start-offset-checkpoint: {text!r}", file=sys.stderr)
        return 1
    print(int(lines[2].split()[2]))
    return 0


def cmd_controls(d):
    for base, last, attrs in batches(d):
        if attrs & 0x20:
            for o in range(base, last + 1):
                print(o)
    return 0


def cmd_parse_kcat(raw_path, out_path):
    with open(raw_path, "rb") as f:
        data = f.read()
    pos = 0
    n = 0
    with open(out_path, "w", encoding="utf-8", errors="replace") as out:
        while pos < len(data):
            t1 = data.index(b"\t", pos)
            t2 = data.index(b"\t", t1 + 1)
            off = int(data[pos:t1])
            size = int(data[t1 + 1:t2])
            size = max(size, 0)
            val = data[t2 + 1:t2 + 1 + size]
            if data[t2 + 1 + size:t2 + 2 + size] != b"\n":
                print(f"kcat output malformed at byte {pos} (offset {off})", file=sys.stderr)
                return 1
            pos = t2 + 2 + size
            v = val.decode("ascii", "replace") if size < 100 else "big:" + val[:8].hex()
            out.write(f"{off}\t{v}\n")
            n += 1
    print(n)
    return 0


def read_offsets(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip():
                out.append(int(line.split("\t", 1)[0]))
    return out


def cmd_check_range(consumed_path, controls_path, start, end):
    offs = read_offsets(consumed_path)
    ctrl = {int(line) for line in open(controls_path) if line.strip()}
    ctrl = {o for o in ctrl if start <= o < end}
    problems = []
    if any(b <= a for a, b in zip(offs, offs[1:])):
        problems.append("consumed offsets are not strictly increasing")
    got = set(offs)
    if got & ctrl:
        problems.append(f"{len(got & ctrl)} control offsets were returned as records")
    want = set(range(start, end))
    missing = sorted(want - got - ctrl)
    extra = sorted((got | ctrl) - want)
    if missing:
        problems.append(f"{len(missing)} offsets in [{start},{end}) neither consumed nor control, "
                        f"first {missing[:5]}")
    if extra:
        problems.append(f"{len(extra)} offsets outside [{start},{end}), first {extra[:5]}")
    first = offs[0] if offs else None
    print(f"records={len(offs)} controls={len(ctrl)} first={first} "
          f"last={offs[-1] if offs else None} range=[{start},{end})")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def cmd_acked_above(produced, start, out_path):
    import json
    kept = dropped = 0
    with open(produced, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for line in f:
            if '"producer_send_success"' not in line:
                continue
            ev = json.loads(line)
            if int(ev["offset"]) >= start:
                out.write(f"{ev['offset']}\t{ev['value']}\n")
                kept += 1
            else:
                dropped += 1
    print(kept, dropped)
    return 0


def cmd_kp_check(addr, start, end):
    from kafka import KafkaConsumer, TopicPartition
    from kafka.errors import OffsetOutOfRangeError
    tp = TopicPartition(TOPIC.decode(), 0)
    problems = []

    def consumer(reset):
        c = KafkaConsumer(bootstrap_servers=addr.split(","), auto_offset_reset=reset,
                          enable_auto_commit=False, group_id=None,
                          fetch_max_wait_ms=200, request_timeout_ms=30000,
                          api_version_auto_timeout_ms=30000)
        c.assign([tp])
        return c

    def read_until(c, stop, secs=60):
        offs = []
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=500).values():
                offs.extend(r.offset for r in recs)
            if offs and offs[-1] >= stop:
                break
        return offs

    # 1. From the beginning.
    c = consumer("earliest")
    c.seek_to_beginning(tp)
    offs = read_until(c, end - 1)
    beginning = c.beginning_offsets([tp])[tp]
    c.close()
    if beginning != start:
        problems.append(f"beginning_offsets {beginning}, log start {start}")
    if not offs:
        problems.append("nothing read from the beginning")
    else:
        if offs[0] < start:
            problems.append(f"first record at {offs[0]} < log start {start}")
        if offs[-1] < end - 1 - 2:  # the last offsets may be control records
            problems.append(f"read up to {offs[-1]} only, end {end}")
        if any(b <= a for a, b in zip(offs, offs[1:])):
            problems.append("offsets not increasing")
    first = offs[0] if offs else -1

    # 2. Below the log start, no reset policy: the fetch fails out of range.
    oor = "no error"
    if start > 0:
        c = consumer("none")
        c.seek(tp, start - 1)
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                got = c.poll(timeout_ms=500)
                if got:
                    oor = f"records at {[r.offset for v in got.values() for r in v][:3]}"
                    break
        except OffsetOutOfRangeError as e:
            oor = "OffsetOutOfRangeError"
            del e
        c.close()
        if oor != "OffsetOutOfRangeError":
            problems.append(f"seek to {start - 1} with auto_offset_reset='none': {oor}")

    # 3. Below the log start, reset to earliest.
    reset_first = -1
    if start > 0:
        c = consumer("earliest")
        c.seek(tp, start - 1)
        got = read_until(c, first, 30)
        c.close()
        reset_first = got[0] if got else -1
        if reset_first != first:
            problems.append(f"after the out-of-range reset the first record is at {reset_first}, "
                            f"expected {first}")
    print(f"kafka-python: beginning={beginning} first={first} last={offs[-1] if offs else -1} "
          f"records={len(offs)} below-start(none)={oor} below-start(earliest)->{reset_first}")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def main(argv):
    try:
        cmd = argv[0] if argv else ""
        if cmd == "init" and len(argv) == 2:
            return cmd_init(argv[1])
        if cmd == "produce" and len(argv) == 7:
            return cmd_produce(argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5], argv[6])
        if cmd == "resend" and len(argv) == 3:
            return cmd_resend(argv[1], argv[2])
        if cmd == "list-offsets" and len(argv) == 3:
            return cmd_list_offsets(argv[1], int(argv[2]))
        if cmd == "fetch" and len(argv) == 3:
            return cmd_fetch(argv[1], int(argv[2]))
        if cmd == "logend" and len(argv) == 2:
            return cmd_logend(argv[1])
        if cmd == "logstart" and len(argv) == 2:
            return cmd_logstart(argv[1])
        if cmd == "controls" and len(argv) == 2:
            return cmd_controls(argv[1])
        if cmd == "parse-kcat" and len(argv) == 3:
            return cmd_parse_kcat(argv[1], argv[2])
        if cmd == "check-range" and len(argv) == 5:
            return cmd_check_range(argv[1], argv[2], int(argv[3]), int(argv[4]))
        if cmd == "acked-above" and len(argv) == 4:
            return cmd_acked_above(argv[1], int(argv[2]), argv[3])
        if cmd == "kp-check" and len(argv) == 4:
            return cmd_kp_check(argv[1], int(argv[2]), int(argv[3]))
    except (OSError, ValueError, EOFError, struct.error) as e:
        print(f"{cmd}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
