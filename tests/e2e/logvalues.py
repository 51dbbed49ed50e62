#!/usr/bin/python3
"""Prints "offset<TAB>value" for every data record stored in a partition
directory's *.log segments (control batches are skipped; uncompressed and
gzip batches are decoded, other codecs print "<codec batch>"). Used to
compare replicas byte-for-byte at the record level.

usage: logvalues.py PARTITION_DIR
"""
import glob
import os
import struct
import sys
import zlib


def varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
    return (result >> 1) ^ -(result & 1), pos


def records(data, count):
    pos = 0
    for _ in range(count):
        length, pos = varint(data, pos)
        end = pos + length
        pos += 1  # attributes
        _, pos = varint(data, pos)  # timestamp delta
        odelta, pos = varint(data, pos)
        klen, pos = varint(data, pos)
        pos += max(klen, 0)
        vlen, pos = varint(data, pos)
        value = data[pos:pos + vlen] if vlen >= 0 else None
        yield odelta, value
        pos = end


def main(d):
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.log"))):
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        while pos + 61 <= len(data):
            base, length = struct.unpack_from(">qi", data, pos)
            if length <= 0 or pos + 12 + length > len(data):
                break
            attrs = struct.unpack_from(">h", data, pos + 21)[0]
            count = struct.unpack_from(">i", data, pos + 57)[0]
            body = data[pos + 61:pos + 12 + length]
            pos += 12 + length
            if attrs & 0x20:
                continue  # control batch
            codec = attrs & 7
            if codec == 1:
                body = zlib.decompress(body, 47)
            elif codec != 0:
                out.append(f"{base}\t<codec {codec} batch of {count}>")
                continue
            for odelta, value in records(body, count):
                v = "<null>" if value is None else value.decode("utf-8", "replace")
                out.append(f"{base + odelta}\t{v}")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
