#!/usr/bin/python3
"""Prints the compression codecs of the record batches stored in a
partition directory's *.log segments, e.g. "none gzip lz4".

usage: logcodecs.py PARTITION_DIR
"""
import glob
import os
import struct
import sys

NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}


def main(d):
    seen = set()
    for path in sorted(glob.glob(os.path.join(d, "*.log"))):
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        # batch header: baseOffset i64, length i32, leaderEpoch i32, magic i8,
        # crc u32, attributes i16
        while pos + 23 <= len(data):
            length = struct.unpack_from(">i", data, pos + 8)[0]
            if length <= 0:
                break  # preallocated tail or garbage
            attrs = struct.unpack_from(">h", data, pos + 21)[0]
            seen.add(NAMES.get(attrs & 7, f"codec{attrs & 7}"))
            pos += 12 + length
    print(" ".join(sorted(seen)))


if __name__ == "__main__":
    main(sys.argv[1])
