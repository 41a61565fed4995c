#!/usr/bin/env python3
"""Writes a gzip bomb for the OTLP fault test (faults_net_otlp.sh):

    faults_net_bomb.py OUT [MIB]

The member inflates to a valid OTLP protobuf prefix, an unknown field 15
announcing MIB MiB (default 1024), and that many MiB of zeros, so only a
decompression cap can refuse it. Built in well under a second instead of
deflating 1 GiB: one 1 MiB block of zeros is compressed once after a full
flush (which resets the compressor's history, so every such block is the
same bytes) and repeated; the CRC-32 and size of the trailer are computed
over the inflated bytes. About 1 KiB per MiB on the wire."""
import struct
import sys
import zlib

out = sys.argv[1]
mib = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
size = mib << 20


def varint(n):
    b = bytearray()
    while True:
        c = n & 0x7F
        n >>= 7
        if n:
            b.append(c | 0x80)
        else:
            b.append(c)
            return bytes(b)


prefix = b"\x7a" + varint(size)  # field 15, wire type 2 (LEN)
comp = zlib.compressobj(9, zlib.DEFLATED, -15)
head = comp.compress(prefix) + comp.flush(zlib.Z_FULL_FLUSH)
zeros = bytes(1 << 20)
block = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
tail = comp.flush(zlib.Z_FINISH)
crc = zlib.crc32(prefix)
for _ in range(mib):
    crc = zlib.crc32(zeros, crc)
with open(out, "wb") as f:
    f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")  # gzip header, no name
    f.write(head)
    for _ in range(mib):
        f.write(block)
    f.write(tail)
    f.write(struct.pack("<II", crc, (len(prefix) + size) & 0xFFFFFFFF))
