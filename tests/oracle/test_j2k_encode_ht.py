"""`tessera j2k encode --ht` (HTJ2K, one cleanup pass per code-block) checked by independent
decoders: OpenJPH's ojph_expand (the HT reference) and OpenJPEG's opj_decompress, beside
`tessera j2k decode`. Lossless streams must give back every input sample exactly through all
three; lossy ones (--qstep) the same samples through ojph_expand and opj_decompress as through
tessera within the 9/7 float tolerance of test_j2k_encode_opj.check_lossy.

Inputs: random, smooth, flat and sparse images (gray, gray+alpha, RGB, RGBA; 8 and 16 bits) of
odd shapes (1x1, 17x3, 3x17, 5x257, ...), code-blocks from 4x4 to 64x64 and 1024x4 / 4x1024,
every progression order, tiles and precincts, .j2k and .jph; the shared images (cropped). OpenJPH
output is read through TIFF with cv2, which keeps only the first component of a two-component
image: ojph_expand checks that one there.

Prints PASS/FAIL per case; exits 1 on any failure, 77 when the tools are absent."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from test_j2k_encode_opj import DATA, OPJ_D, ORDERS, TOOL, check, check_lossy, planes, write_png

try:
    import cv2
except ImportError:  # pragma: no cover
    cv2 = None

OJPH_X = shutil.which("ojph_expand")


def ojph_planes(stream, n, tmp):
    """ojph_expand's decode of stream as a list of planes (all n, or the first when n == 2)."""
    d = tempfile.mkdtemp(dir=tmp)
    out = os.path.join(d, "x.tif")
    r = subprocess.run([OJPH_X, "-i", stream, "-o", out], capture_output=True, text=True)
    if r.returncode != 0 or "error" in (r.stdout + r.stderr).lower():
        raise RuntimeError("ojph_expand failed: " + (r.stdout + r.stderr).strip()[-300:])
    t = cv2.imread(out, cv2.IMREAD_UNCHANGED)
    if t is None:
        raise RuntimeError("ojph_expand wrote no readable TIFF")
    if t.ndim == 2:
        return [t.astype(np.int64)]
    t = t.astype(np.int64)
    chans = [t[:, :, 2], t[:, :, 1], t[:, :, 0]] + ([t[:, :, 3]] if t.shape[2] == 4 else [])
    return chans[:n]


def check_ojph(name, a, stream, tmp, lossy):
    """ojph_expand against a (lossless) or against tessera's own decode (lossy, within the
    tolerance check_lossy derives)."""
    n = a.shape[2]
    try:
        got = ojph_planes(stream, n, tmp)
    except RuntimeError as e:
        return "%s: %s" % (name, e)
    want = [a[:, :, i].astype(np.int64) for i in range(n)]
    tol = 0
    if lossy:
        d = tempfile.mkdtemp(dir=tmp)
        r = subprocess.run([TOOL, "j2k", "decode", stream, os.path.join(d, "x.pgx")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return "%s: tessera failed: %s" % (name, r.stderr.strip()[-300:])
        want = planes(d, "x", n)
        tol = 1 if a.dtype == np.uint8 else 1 << (16 - 12)
    for i, g in enumerate(got):
        if g.shape != a.shape[:2]:
            return "%s: ojph_expand component %d is %s" % (name, i, g.shape)
        diff = int(np.abs(g - want[i]).max())
        if diff > tol:
            return "%s: ojph_expand component %d differs by %d (%d samples)" % (
                name, i, diff, int(np.count_nonzero(np.abs(g - want[i]) > tol)))
    return None


def image(rng, h, w, c, depth, kind):
    top = 255 if depth == 8 else 65535
    if kind == 0:
        a = rng.integers(0, top + 1, size=(h, w, c))
    elif kind == 1:
        yy, xx = np.mgrid[0:h, 0:w]
        a = ((xx * 5 + yy * 3)[:, :, None] * (1 if depth == 8 else 251)
             + np.arange(c)[None, None, :] * 40 + rng.integers(0, 4, size=(h, w, c))) % (top + 1)
    elif kind == 2:
        a = np.full((h, w, c), [0, top, top // 2][(h + w) % 3])
    else:
        a = np.where(rng.integers(0, 30, size=(h, w, c)) == 0,
                     rng.integers(0, top + 1, size=(h, w, c)), 0)
    return a.astype(np.uint8 if depth == 8 else np.uint16)


def run_case(name, a, opts, ext, tmp, lossy, ojph=True):
    png = os.path.join(tmp, "in.png")
    write_png(png, a)
    stream = os.path.join(tmp, "out" + ext)
    if os.path.exists(stream):
        os.remove(stream)
    r = subprocess.run([TOOL, "j2k", "encode", png, stream, "--ht"] + opts, capture_output=True,
                       text=True)
    if r.returncode != 0:
        return "%s: encode failed: %s" % (name, r.stderr.strip()[-300:])
    err = check_lossy(name, a, stream, tmp) if lossy else check(name, a, stream, tmp)
    return err or (check_ojph(name, a, stream, tmp, lossy) if ojph else None)


def main():
    if not (TOOL and OPJ_D and OJPH_X and cv2 is not None):
        print("SKIP: needs TSR_TOOL, opj_decompress, ojph_expand and cv2")
        return 77
    rng = np.random.default_rng(0x4854)
    tmp = tempfile.mkdtemp(prefix="tsr_j2k_ht_")
    cases = fails = 0
    try:
        shapes = [(1, 1), (3, 17), (17, 3), (5, 257), (2, 2), (31, 33), (64, 64), (65, 127),
                  (130, 9), (4, 300)]
        cblks = ["64x64", "4x4", "8x16", "32x32", "1024x4", "4x1024", "16x64", "64x8"]
        tiles = [[], [], ["--tiles", "16x16"], [], ["--tiles", "64x32"]]
        precs = [[], ["--precincts", "32x32,16x16"], ["--precincts", "16x16,8x8"],
                 ["--precincts", "16x16,8x8,2x2"]]
        k = 0
        for (h, w) in shapes:
            for c in (1, 2, 3, 4):
                for depth in (8, 16):
                    k += 1
                    a = image(rng, h, w, c, depth, k % 4)
                    lossy = k % 5 == 4
                    opts = ["--qstep", "0.004"] if lossy else ["--lossless"]
                    opts += ["--cblk", cblks[k % len(cblks)]] + tiles[k % 5] + precs[k % 4]
                    if k % 3:
                        opts += ["--order", ORDERS[k % 5]]
                    if k % 7 == 0:
                        opts += ["--levels", "0"]
                    ext = ".jph" if k % 3 == 0 else ".j2k"
                    name = "%dx%dx%d/%d %s%s" % (h, w, c, depth, " ".join(opts), ext)
                    # ojph_expand (OpenJPH 0.9.0) is left out where cv2 cannot read its TIFF
                    # (two 16-bit components) and for precincts of 2x2 and 4x4: on e.g. 130x9
                    # at 2 levels with 4x4 precincts it stops ("missing msbs are larger or
                    # equal to Kmax") on its own ojph_compress stream as on tessera's, both of
                    # which opj_decompress and tessera decode exactly
                    ojph = not (c == 2 and depth == 16) and k % 4 != 3
                    err = run_case(name, a, opts, ext, tmp, lossy, ojph)
                    cases += 1
                    if err:
                        fails += 1
                        print("FAIL", err)
        for f in ("astronaut.png", "chelsea.png", "coffee.png"):
            p = os.path.join(DATA, "images", f)
            if not os.path.exists(p):
                print("note: %s absent" % p)
                continue
            img = cv2.imread(p, cv2.IMREAD_UNCHANGED)[:257, :301]
            a = img[:, :, ::-1].copy() if img.ndim == 3 else img[:, :, None]
            for lossy, opts in ((False, ["--lossless"]), (True, ["--qstep", "0.002"]),
                                (False, ["--lossless", "--cblk", "32x32", "--tiles", "128x128",
                                         "--precincts", "64x64,32x32"])):
                name = "%s %s" % (f, " ".join(opts))
                err = run_case(name, a, opts, ".jph", tmp, lossy)
                cases += 1
                if err:
                    fails += 1
                    print("FAIL", err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("test_j2k_encode_ht: %d cases, %d failed" % (cases, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
