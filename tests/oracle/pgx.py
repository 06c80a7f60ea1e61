"""PGX reading for the JPEG 2000 oracle tests (the conformance format: one component per file,
header `PG ML|LM [+|-] depth width height`, then the raster, 1, 2 or 4 bytes per sample)."""
import numpy as np


def read_pgx(path):
    """(depth, signed, samples as an int64 array of height x width) of one PGX file."""
    with open(path, "rb") as f:
        b = f.read()
    i = b.index(b"\n")
    head = b[:i].decode().replace("+", " + ").replace("-", " - ").split()
    signed = "-" in head
    nums = [int(t) for t in head if t.isdigit()]
    depth, w, h = nums[-3], nums[-2], nums[-1]
    bps = 1 if depth <= 8 else 2 if depth <= 16 else 4
    dt = (">" if head[1] == "ML" else "<") + {1: "u1", 2: "u2", 4: "u4"}[bps]
    a = np.frombuffer(b[i + 1:i + 1 + w * h * bps], dtype=dt).astype(np.int64)
    if signed:
        a = np.where(a >= (1 << (8 * bps - 1)), a - (1 << (8 * bps)), a)
    return depth, signed, a.reshape(h, w)
