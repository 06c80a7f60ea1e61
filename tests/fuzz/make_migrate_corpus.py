#!/usr/bin/python3
"""Writes the seed corpus for fuzz_migrate_read (fuzz_migrate_body.h): tiny SEG-Y files (a 0
byte, then the file) in every sample format the reader takes (IBM and IEEE floats, 1-, 2- and
4-byte integers), both byte orders, several shots, a delay time and coordinate scalars, 3D
positions (sy, gy); and grid inputs (a 1 byte, the JSON sidecar, a NUL, the float32 data), 2D and
3D (ny, dy, oy). Run from anywhere; writes
corpus/migrate_read/seed_*."""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "migrate_read")


def ibm(v):
    """IEEE double -> IBM System/360 single (big-endian bytes)."""
    if v == 0:
        return b"\0\0\0\0"
    sign = 0x80 if v < 0 else 0
    v = abs(v)
    e = 64
    while v >= 1:
        v /= 16
        e += 1
    while v < 1 / 16:
        v *= 16
        e -= 1
    return bytes([sign | e]) + int(v * (1 << 24)).to_bytes(3, "big")


def segy(fmt, little=False, shots=2, traces=3, ns=8, dt_us=2000, scalar=-100, delay=0, y3d=False):
    o = "<" if little else ">"
    text = b"C 1 tessera fuzz seed".ljust(3200, b" ")
    binh = bytearray(400)
    struct.pack_into(o + "h", binh, 3216 - 3200, dt_us)
    struct.pack_into(o + "h", binh, 3220 - 3200, ns)
    struct.pack_into(o + "h", binh, 3224 - 3200, fmt)
    struct.pack_into(o + "H", binh, 3500 - 3200, 0x0100)
    struct.pack_into(o + "h", binh, 3504 - 3200, 0)  # no extended textual headers
    out = bytearray(text + bytes(binh))
    k = 0
    for s in range(shots):
        for t in range(traces):
            th = bytearray(240)
            struct.pack_into(o + "i", th, 0, k + 1)
            struct.pack_into(o + "h", th, 70, scalar)
            struct.pack_into(o + "i", th, 72, 1000 * s)
            struct.pack_into(o + "i", th, 80, 1000 * s + 500 * t)
            if y3d:  # sy at 77 (shots on two lines), gy at 85
                struct.pack_into(o + "i", th, 76, 2000 * (s % 2))
                struct.pack_into(o + "i", th, 84, 700 * t - 300)
            struct.pack_into(o + "h", th, 108, delay)
            struct.pack_into(o + "h", th, 114, ns)
            struct.pack_into(o + "h", th, 116, dt_us)
            vals = [((i * 7 + k * 3) % 11 - 5) / 4 for i in range(ns)]
            if fmt == 1:
                data = b"".join(ibm(v) for v in vals)
                if little:
                    data = b"".join(data[i:i + 4][::-1] for i in range(0, len(data), 4))
            elif fmt == 5:
                data = struct.pack(o + "%df" % ns, *vals)
            elif fmt == 2:
                data = struct.pack(o + "%di" % ns, *[int(v * 1000) for v in vals])
            elif fmt == 3:
                data = struct.pack(o + "%dh" % ns, *[int(v * 100) for v in vals])
            else:  # 8: one-byte integers
                data = struct.pack("%db" % ns, *[int(v * 20) for v in vals])
            out += th + data
            k += 1
    return bytes(out)


def grid(nx, nz, extra=None, data_count=None):
    sc = {"file": "grid.f32", "nx": nx, "nz": nz, "dx": 10.0, "dz": 5.0, "ox": 0.0, "oz": 0.0}
    if extra:
        sc.update(extra)
    n = nx * nz * (sc.get("ny", 1) if isinstance(sc.get("ny", 1), int) else 1) \
        if data_count is None else data_count
    data = struct.pack("<%df" % n, *[1500.0 + 10 * i for i in range(n)])
    return b"\x01" + json.dumps(sc).encode() + b"\0" + data


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "segy_ieee_be": segy(5),
        "segy_ieee_le": segy(5, little=True),
        "segy_ibm": segy(1),
        "segy_int32": segy(2, shots=1),
        "segy_int16": segy(3, scalar=10),
        "segy_int8": segy(8, delay=-4),
        "segy_one_trace": segy(5, shots=1, traces=1, ns=2),
        "grid_4x3": grid(4, 3),
        "grid_units": grid(2, 2, {"units": "m/s", "comment": "seed"}),
        "grid_short_data": grid(3, 3, data_count=5),
        "segy_3d": segy(5, shots=3, y3d=True),
        "grid3d_4x2x3": grid(4, 3, {"ny": 2, "dy": 20.0, "oy": -10.0}),
        "grid3d_ny1": grid(2, 2, {"ny": 1, "dy": 3.0}),
        "grid3d_no_dy": grid(2, 2, {"ny": 3}, data_count=12),
        "grid3d_bad_dy": grid(2, 2, {"ny": 2, "dy": -1.0}, data_count=8),
        "grid3d_short_data": grid(2, 2, {"ny": 3, "dy": 5.0}, data_count=8),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, "seed_" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
