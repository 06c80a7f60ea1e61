"""HTJ2K round trip: images from ../shared/data/images (and synthetic noise, which drives the HT
cleanup pass to large exponents and U-VLC residuals) are compressed LOSSLESSLY by OpenJPH's
ojph_compress (Debian openjph-tools) and decoded by `tessera j2k decode`; every sample must equal
the original exactly. Cases cover code-block sizes from 4x4 to 128x32 (odd widths and heights, so
padded quads), 0 to 5 decomposition levels, with and without the colour transform, tiles,
precincts, progressions, image offsets, 8, 12 and 16-bit samples, 1 and 3 components.
Signed samples are not covered: this ojph_compress (Debian openjph-tools 0.9.0-3+b1) mis-encodes signed raw input
(its own ojph_expand, OpenJPEG and Grok then all disagree with the original and each other).

Prints PASS/FAIL per case; exits 1 on any failure, 77 (skip) when ojph_compress, tessera
(TSR_TOOL), cv2 or the image data are absent."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from pgx import read_pgx

try:
    import cv2
except ImportError:  # pragma: no cover
    cv2 = None

TOOL = os.environ.get("TSR_TOOL")
DATA = os.environ.get("TSR_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data"))
OJPH_C = shutil.which("ojph_compress")


def decoded(tmp, name, ncomp):
    base = os.path.join(tmp, name + "_t")
    if ncomp == 1 and os.path.exists(base + ".pgx"):
        return [read_pgx(base + ".pgx")[2]]
    return [read_pgx("%s_%d.pgx" % (base, c))[2] for c in range(ncomp)]


def inputs(tmp):
    """name -> (path, list of original planes as int64 arrays, extra ojph_compress options)"""
    src = os.path.join(DATA, "images")
    a = cv2.imread(os.path.join(src, "astronaut.png"), cv2.IMREAD_COLOR)
    c = cv2.imread(os.path.join(src, "coffee.png"), cv2.IMREAD_COLOR)
    out = {}
    rgb = np.ascontiguousarray(a[33:33 + 201, 11:11 + 187])  # odd sizes
    p = os.path.join(tmp, "rgb.ppm")
    cv2.imwrite(p, rgb)
    out["rgb"] = (p, [rgb[:, :, 2 - k].astype(np.int64) for k in range(3)], [])
    gray = cv2.cvtColor(np.ascontiguousarray(c[90:90 + 157, 201:201 + 243]), cv2.COLOR_BGR2GRAY)
    p = os.path.join(tmp, "gray.pgm")
    cv2.imwrite(p, gray)
    out["gray"] = (p, [gray.astype(np.int64)], [])
    g16 = (cv2.cvtColor(a[:161, :145], cv2.COLOR_BGR2GRAY).astype(np.uint16) * 257
           + np.arange(145, dtype=np.uint16)[None, :])
    p = os.path.join(tmp, "gray16.pgm")
    cv2.imwrite(p, g16)
    out["gray16"] = (p, [g16.astype(np.int64)], [])
    rng = np.random.default_rng(7)
    # 16-bit noise: large magnitudes in every sub-band
    n16 = rng.integers(0, 65536, size=(67, 93), dtype=np.uint16)
    p = os.path.join(tmp, "noise16.pgm")
    cv2.imwrite(p, n16)
    out["noise16"] = (p, [n16.astype(np.int64)], [])
    # sparse noise: mostly zero with isolated peaks (AZC quads, MEL runs, large u after zeros)
    sp = np.zeros((75, 131), dtype=np.uint16)
    m = rng.random(sp.shape) < 0.03
    sp[m] = rng.integers(1, 4096, size=int(m.sum()), dtype=np.uint16)
    p = os.path.join(tmp, "sparse12.raw")
    sp.astype("<u2").tofile(p)
    out["sparse12"] = (p, [sp.astype(np.int64)],
                       ["-dims", "{131,75}", "-num_comps", "1", "-signed", "false",
                        "-bit_depth", "12", "-downsamp", "{1,1}"])
    return out


CASES = [
    ("rgb", "rgb", []),
    ("rgb-nomct-cb4", "rgb", ["-colour_trans", "false", "-block_size", "{4,4}"]),
    ("rgb-cb8x64", "rgb", ["-block_size", "{8,64}", "-num_decomps", "2"]),
    ("rgb-tiles-lrcp", "rgb", ["-tile_size", "{64,48}", "-prog_order", "LRCP"]),
    ("rgb-offset-prec", "rgb", ["-image_offset", "{3,5}", "-tile_offset", "{1,2}",
                                "-tile_size", "{90,70}", "-precincts", "{32,32}",
                                "-block_size", "{16,16}", "-prog_order", "PCRL"]),
    ("gray", "gray", []),
    ("gray-d0", "gray", ["-num_decomps", "0"]),
    ("gray-cb128x32", "gray", ["-block_size", "{32,128}", "-num_decomps", "4"]),
    ("gray-cb16x4", "gray", ["-block_size", "{4,16}", "-num_decomps", "1"]),
    ("gray16", "gray16", []),
    ("gray16-cb32", "gray16", ["-block_size", "{32,32}", "-num_decomps", "3"]),
    ("noise16", "noise16", []),
    ("noise16-d0-cb8", "noise16", ["-num_decomps", "0", "-block_size", "{8,8}"]),
    ("sparse12", "sparse12", []),
    ("sparse12-d0", "sparse12", ["-num_decomps", "0", "-block_size", "{16,32}"]),
]


def main():
    if not (TOOL and OJPH_C and cv2 is not None):
        print("SKIP: needs TSR_TOOL, ojph_compress (Debian openjph-tools, scripts/deps.sh) and cv2")
        return 77
    if not os.path.isdir(os.path.join(DATA, "images")):
        print("SKIP: ../shared/data/images is absent")
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        imgs = inputs(tmp)
        for name, src, opts in CASES:
            path, planes, extra = imgs[src]
            stream = os.path.join(tmp, name + ".j2c")
            r = subprocess.run([OJPH_C, "-i", path, "-o", stream, "-reversible", "true"] + extra
                               + opts, capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(stream):
                print("FAIL %-20s ojph_compress: %s" % (name, (r.stdout + r.stderr).strip()[-200:]))
                failures += 1
                continue
            r = subprocess.run([TOOL, "j2k", "decode", stream,
                                os.path.join(tmp, name + "_t.pgx"), "--quiet"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL %-20s tessera: %s" % (name, r.stderr.strip()[-300:]))
                failures += 1
                continue
            got = decoded(tmp, name, len(planes))
            why = []
            for c, (g, o) in enumerate(zip(got, planes)):
                if g.shape != o.shape:
                    why.append("c%d shape %s, original %s" % (c, g.shape, o.shape))
                elif not np.array_equal(g, o):
                    why.append("c%d: %d samples differ (peak %d)"
                               % (c, int((g != o).sum()), int(np.abs(g - o).max())))
            failures += bool(why)
            print("%s %-20s %s%s" % ("FAIL" if why else "PASS", name, " ".join(opts),
                                     "  <- " + "; ".join(why) if why else ""))
            sys.stdout.flush()
    print("ht round trip: %d of %d cases failed" % (failures, len(CASES)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
