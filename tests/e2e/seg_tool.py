#!/usr/bin/python3
"""Segment files of a partition directory, for the on-disk damage tests.

usage:
  seg_tool.py batches PART_DIR     one line per batch of every *.log, in
                                   offset order: "FILE POS BASE LAST LEN
                                   EPOCH ATTRS" (LEN = the batchLength field;
                                   the batch is 12 + LEN bytes at POS)
  seg_tool.py flip FILE POS BIT    flips bit BIT (0 = least significant) of
                                   the byte at POS; prints "OLD NEW"
  seg_tool.py sha PART_DIR         "FILE SHA256 SIZE" of every *.log
                                   (sorted by name)
  seg_tool.py kept SAVED_DIR PART_DIR
                                   whether every *.log of SAVED_DIR (a copy)
                                   is still a prefix of the same file in
                                   PART_DIR (bytes appended since are fine):
                                   prints "kept" or what changed, exits 1

Record batch v2 header (Kafka's DefaultRecordBatch, big-endian): baseOffset
int64 @0, batchLength int32 @8, partitionLeaderEpoch int32 @12, magic int8
@16, crc uint32 @17 (CRC-32C of attributes..end), attributes int16 @21,
lastOffsetDelta int32 @23, baseTimestamp int64 @27, maxTimestamp int64 @35,
producerId int64 @43, producerEpoch int16 @51, baseSequence int32 @53,
recordsCount int32 @57, records @61.
"""
import glob
import hashlib
import os
import struct
import sys


def cmd_batches(d):
    for path in sorted(glob.glob(os.path.join(d, "*.log"))):
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        while pos + 61 <= len(data):
            base, length, epoch = struct.unpack_from(">qii", data, pos)
            if length < 49 or pos + 12 + length > len(data):
                break
            attrs, = struct.unpack_from(">h", data, pos + 21)
            delta, = struct.unpack_from(">i", data, pos + 23)
            print(f"{os.path.basename(path)} {pos} {base} {base + delta} {length} {epoch} {attrs}")
            pos += 12 + length
    return 0


def cmd_flip(path, pos, bit):
    with open(path, "r+b") as f:
        f.seek(pos)
        old = f.read(1)[0]
        new = old ^ (1 << bit)
        f.seek(pos)
        f.write(bytes([new]))
        f.flush()
        os.fsync(f.fileno())
    print(f"{old} {new}")
    return 0


def cmd_sha(d):
    for path in sorted(glob.glob(os.path.join(d, "*.log"))):
        with open(path, "rb") as f:
            data = f.read()
        print(f"{os.path.basename(path)} {hashlib.sha256(data).hexdigest()} {len(data)}")
    return 0


def cmd_kept(saved, d):
    changes = []
    for path in sorted(glob.glob(os.path.join(saved, "*.log"))):
        name = os.path.basename(path)
        with open(path, "rb") as f:
            old = f.read()
        try:
            with open(os.path.join(d, name), "rb") as f:
                now = f.read()
        except FileNotFoundError:
            changes.append(f"{name} deleted")
            continue
        if now[:len(old)] == old:
            continue
        if old.startswith(now):
            changes.append(f"{name} cut from {len(old)} to {len(now)} bytes")
        else:
            at = next(i for i in range(min(len(old), len(now))) if old[i] != now[i])
            changes.append(f"{name} differs from position {at} on ({len(old)} bytes before,"
                           f" {len(now)} now)")
    print("; ".join(changes) if changes else "kept")
    return 1 if changes else 0


def main(argv):
    if len(argv) == 2 and argv[0] == "batches":
        return cmd_batches(argv[1])
    if len(argv) == 4 and argv[0] == "flip":
        return cmd_flip(argv[1], int(argv[2]), int(argv[3]))
    if len(argv) == 3 and argv[0] == "kept":
        return cmd_kept(argv[1], argv[2])
    if len(argv) == 2 and argv[0] == "sha":
        return cmd_sha(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
