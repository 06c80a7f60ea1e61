"""`tessera j2k encode` checked by an independent decoder, OpenJPEG's opj_decompress (Debian
libopenjp2-tools): lossless streams must give back every input sample exactly, lossy ones
(--qstep) the same samples as tessera's decoder within the 9/7 float tolerance; rate-controlled
ones (--rate, the shared images at 0.25-2 bpp) must be within 1% below the byte target and at
1 bpp at least as good as opj_compress -r at the same rate (the table and BD-rate printed);
layered ones (--layers, --rate R1,R2,..) decode alike through opj_decompress -l k and tessera
--layers k, the error falling layer by layer, each layer prefix the stream of its rates.

Inputs: fresh random images (PNG written here, so every channel count and depth is covered:
gray, gray+alpha, RGB, RGBA, 8 and 16 bits) of many shapes (1x1, 1xN, Nx1, 17x3, odd sizes,
a long thin one), contents from full-range noise to constants, with every progression order,
several level counts and code-block sizes, as raw codestreams and JP2; and the shared images
(../shared/data/images). Each stream also decodes exactly through `tessera j2k decode`.

Prints PASS/FAIL per case; exits 1 on any failure, 77 when the tools or the data are absent."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

from pgx import read_pgx

try:
    import cv2
except ImportError:  # pragma: no cover
    cv2 = None

TOOL = os.environ.get("TSR_TOOL")
DATA = os.environ.get("TSR_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data"))
OPJ_D = shutil.which("opj_decompress")
ORDERS = ["LRCP", "RLCP", "RPCL", "PCRL", "CPRL"]


def write_png(path, a):
    """a: height x width x channels (1-4), uint8 or uint16 -> a PNG of colour type 0/4/2/6."""
    h, w, c = a.shape
    depth = 16 if a.dtype == np.uint16 else 8
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    raw = a.astype(">u2").tobytes() if depth == 16 else a.tobytes()
    row = w * c * depth // 8
    data = b"".join(b"\0" + raw[y * row:(y + 1) * row] for y in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype,
                                                                   0, 0, 0))
                + chunk(b"IDAT", zlib.compress(data)) + chunk(b"IEND", b""))


def planes(folder, stem, n):
    """The n decoded planes of a PGX decode into folder/stem.pgx (one component: that file, or
    stem_0.pgx as opj_decompress names it; several: stem_0.pgx, stem_1.pgx, ...)."""
    if n == 1 and os.path.exists(os.path.join(folder, stem + ".pgx")):
        return [read_pgx(os.path.join(folder, stem + ".pgx"))[2]]
    return [read_pgx(os.path.join(folder, "%s_%d.pgx" % (stem, i)))[2] for i in range(n)]


def check(name, a, stream, tmp):
    """Decodes stream with opj_decompress and tessera; both must equal a (h x w x c)."""
    n = a.shape[2]
    for who in ("opj", "tessera"):
        d = tempfile.mkdtemp(dir=tmp)
        if who == "opj":
            r = subprocess.run([OPJ_D, "-i", stream, "-o", os.path.join(d, "x.pgx")],
                               capture_output=True, text=True)
        else:
            r = subprocess.run([TOOL, "j2k", "decode", stream, os.path.join(d, "x.pgx")],
                               capture_output=True, text=True)
        if r.returncode != 0 or "error" in (r.stdout + r.stderr).lower():
            return "%s: %s failed: %s" % (name, who, (r.stdout + r.stderr).strip()[-300:])
        try:
            got = planes(d, "x", n)
        except (OSError, ValueError) as e:
            return "%s: %s wrote no planes (%s)" % (name, who, e)
        for i in range(n):
            if got[i].shape != a.shape[:2] or not np.array_equal(got[i], a[:, :, i]):
                bad = int(np.count_nonzero(got[i] != a[:, :, i])) if got[i].shape == a.shape[:2] \
                    else -1
                return "%s: %s component %d differs (%d samples)" % (name, who, i, bad)
    return None


def check_lossy(name, a, stream, tmp):
    """Lossy streams: opj_decompress and tessera agree within max(1, 2^(depth - 12)) per sample,
    and both stay near the input (PSNR above 20 dB). Both run the 9/7 lifting in float32 with
    different but equivalent scalings (test_j2k_opj.py): float32 keeps 24 significant bits, of
    which a sample of `depth` bits uses depth; the lifting's growth over the levels and the
    roundings of its ~12 operations per level and dimension take about 12 more, so the two
    results agree to 2^(depth - 12) units (1 at 8 bits, 16 at 16 bits; up to 4 is seen)."""
    n = a.shape[2]
    got = {}
    for who in ("opj", "tessera"):
        d = tempfile.mkdtemp(dir=tmp)
        cmd = [OPJ_D, "-i", stream, "-o", os.path.join(d, "x.pgx")] if who == "opj" else \
            [TOOL, "j2k", "decode", stream, os.path.join(d, "x.pgx")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0 or "error" in (r.stdout + r.stderr).lower():
            return "%s: %s failed: %s" % (name, who, (r.stdout + r.stderr).strip()[-300:])
        got[who] = planes(d, "x", n)
    tol = 1 if a.dtype == np.uint8 else 1 << (16 - 12)
    top = 255.0 if a.dtype == np.uint8 else 65535.0
    for i in range(n):
        o, t = got["opj"][i], got["tessera"][i]
        if o.shape != a.shape[:2] or t.shape != a.shape[:2]:
            return "%s: component %d has the wrong size" % (name, i)
        if np.abs(o - t).max() > tol:
            return "%s: component %d: decoders differ by %d" % (name, i, np.abs(o - t).max())
        mse = float(((t - a[:, :, i].astype(np.int64)) ** 2).mean())
        if mse > 0 and 10 * np.log10(top * top / mse) < 20:
            return "%s: component %d: PSNR %.1f dB" % (name, i, 10 * np.log10(top * top / mse))
    return None


def psnr(a, b):
    mse = float(((a.astype(np.float64) - b.astype(np.float64)) ** 2).mean())
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def bd_rate(r1, p1, r2, p2):
    """Bjontegaard delta rate (%) of curve 2 against curve 1 (VCEG-M33): cubic fits of log rate
    over PSNR, integrated over the PSNR range both cover; negative means curve 2 needs fewer
    bytes for the same PSNR."""
    l1, l2 = np.log(r1), np.log(r2)
    f1, f2 = np.polyfit(p1, l1, 3), np.polyfit(p2, l2, 3)
    lo, hi = max(min(p1), min(p2)), min(max(p1), max(p2))
    i1 = np.polyval(np.polyint(f1), hi) - np.polyval(np.polyint(f1), lo)
    i2 = np.polyval(np.polyint(f2), hi) - np.polyval(np.polyint(f2), lo)
    return (np.exp((i2 - i1) / (hi - lo)) - 1) * 100


def rate_table(tmp):
    """--rate on the shared images (as PPM, which both tools read alike) at 0.25-2 bpp against
    opj_compress -r: tessera's file at most the target and within 1% of it, decoding alike with
    opj_decompress; its PSNR at 1 bpp at least OpenJPEG's. Prints the table and the BD-rate.
    Returns the failures."""
    opj_c = shutil.which("opj_compress")
    src = os.path.join(DATA, "images")
    if cv2 is None or opj_c is None or not os.path.isdir(src):
        print("note: cv2, opj_compress or the shared images absent; no rate table")
        return 0
    fails = 0
    rates = [0.25, 0.5, 1.0, 2.0]
    print("| image | bpp | tessera bytes | tessera PSNR | opj bytes | opj PSNR |")
    print("|---|---|---|---|---|---|")
    for f in ("astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"):
        img = cv2.imread(os.path.join(src, f), cv2.IMREAD_COLOR)
        if img is None:
            continue
        ppm = os.path.join(tmp, "r.ppm")
        cv2.imwrite(ppm, img)
        h, w = img.shape[:2]
        curves = {"t": ([], []), "o": ([], [])}
        for bpp in rates:
            target = bpp * w * h / 8
            ts, os_ = os.path.join(tmp, "t.j2k"), os.path.join(tmp, "o.j2k")
            r = subprocess.run([TOOL, "j2k", "encode", ppm, ts, "--rate", str(bpp)],
                               capture_output=True, text=True)
            r2 = subprocess.run([opj_c, "-i", ppm, "-o", os_, "-r", str(24.0 / bpp)],
                                capture_output=True, text=True)
            if r.returncode or r2.returncode:
                print("FAIL rate %s %g: encode failed: %s" % (f, bpp, (r.stderr + r2.stderr)[-200:]))
                fails += 1
                continue
            got = {}
            for who, stream in (("t", ts), ("o", os_)):
                out = os.path.join(tmp, who + ".ppm")
                subprocess.run([OPJ_D, "-i", stream, "-o", out], capture_output=True)
                got[who] = cv2.imread(out, cv2.IMREAD_COLOR)
            tb, ob = os.path.getsize(ts), os.path.getsize(os_)
            tp, op = psnr(img, got["t"]), psnr(img, got["o"])
            d = os.path.join(tmp, "td.ppm")
            subprocess.run([TOOL, "j2k", "decode", ts, d], capture_output=True)
            mine = cv2.imread(d, cv2.IMREAD_COLOR)
            print("| %s | %g | %d | %.2f | %d | %.2f |" % (f, bpp, tb, tp, ob, op))
            curves["t"][0].append(tb)
            curves["t"][1].append(tp)
            curves["o"][0].append(ob)
            curves["o"][1].append(op)
            if tb > target or tb < 0.99 * target:
                print("FAIL rate %s %g: %d bytes for a target of %.0f" % (f, bpp, tb, target))
                fails += 1
            if mine is None or np.abs(mine.astype(int) - got["t"].astype(int)).max() > 1:
                print("FAIL rate %s %g: tessera and opj_decompress decode it differently" % (f, bpp))
                fails += 1
            if bpp == 1.0 and tp < op:
                print("FAIL rate %s 1 bpp: PSNR %.2f below OpenJPEG's %.2f" % (f, tp, op))
                fails += 1
        if len(curves["t"][0]) == 4:
            print("BD-rate %s (tessera against OpenJPEG, 0.25-2 bpp): %+.1f%%"
                  % (f, bd_rate(curves["o"][0], curves["o"][1], curves["t"][0], curves["t"][1])))
    return fails


def decode_planes(who, stream, n, tmp, layers=None):
    """The n planes of stream decoded by opj_decompress or tessera (its first `layers` quality
    layers when given), or an error string."""
    d = tempfile.mkdtemp(dir=tmp)
    out = os.path.join(d, "x.pgx")
    if who == "opj":
        cmd = [OPJ_D, "-i", stream, "-o", out] + (["-l", str(layers)] if layers else [])
    else:
        cmd = [TOOL, "j2k", "decode", stream, out] + (["--layers", str(layers)] if layers else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or "error" in (r.stdout + r.stderr).lower():
        return "%s failed: %s" % (who, (r.stdout + r.stderr).strip()[-300:])
    try:
        return planes(d, "x", n)
    except (OSError, ValueError) as e:
        return "%s wrote no planes (%s)" % (who, e)


def check_layered(name, a, stream, nlayers, tmp, prefixes=None):
    """A layered stream: each layer prefix (opj_decompress -l k, tessera --layers k) decodes
    through both decoders to the same samples (lossless: exactly; lossy: within check_lossy's
    9/7 tolerance), the error against a falls strictly from layer to layer, and, with prefixes
    (the streams of the first k rates), opj_decompress -l k of the stream equals its decode of
    prefix k exactly: the layer prefix is those packets, so within that rate."""
    n = a.shape[2]
    tol = 1 if a.dtype == np.uint8 else 1 << (16 - 12)
    last = None
    for k in range(1, nlayers + 1):
        got = {who: decode_planes(who, stream, n, tmp, k) for who in ("opj", "tessera")}
        for who, g in got.items():
            if isinstance(g, str):
                return "%s: layer %d: %s" % (name, k, g)
        o = np.stack(got["opj"], axis=2).astype(np.int64)
        t = np.stack(got["tessera"], axis=2).astype(np.int64)
        if o.shape != a.shape or t.shape != a.shape:
            return "%s: layer %d: wrong size" % (name, k)
        if np.abs(o - t).max() > tol:
            return "%s: layer %d: decoders differ by %d" % (name, k, np.abs(o - t).max())
        se = float(((o - a.astype(np.int64)) ** 2).sum())
        if last is not None and not se < last:
            return "%s: layer %d: squared error %g, not below layer %d's %g" % (name, k, se, k - 1,
                                                                               last)
        last = se
        if prefixes:
            pre = decode_planes("opj", prefixes[k - 1], n, tmp)
            if isinstance(pre, str) or not np.array_equal(np.stack(pre, axis=2), o):
                return "%s: layer %d differs from the %d-layer stream" % (name, k, k)
    return None


def layer_cases(rng, tmp):
    """Quality layers through opj_decompress: lossless streams of --layers N and --lossless
    --rate R1,R2 on random images of odd shapes, every order, exact in their last layer; lossy
    --rate R1,..,R4 on the shared images, each prefix as the stream of its first rates.
    Returns (cases, failures)."""
    cases = fails = 0
    k = 0
    for (h, w) in [(1, 1), (3, 17), (17, 3), (33, 31), (64, 64), (151, 200)]:
        for c in (1, 2, 3, 4):
            for depth in (8, 16):
                k += 1
                top = 255 if depth == 8 else 65535
                yy, xx = np.mgrid[0:h, 0:w]
                a = ((xx * 5 + yy * 3)[:, :, None] * (1 if depth == 8 else 251)
                     + np.arange(c)[None, None, :] * 40
                     + rng.integers(0, 9, size=(h, w, c))) % (top + 1)
                a = a.astype(np.uint8 if depth == 8 else np.uint16)
                png = os.path.join(tmp, "in.png")
                write_png(png, a)
                stream = os.path.join(tmp, "y.jp2" if k % 3 == 0 else "y.j2k")
                if k % 2:
                    opts, nl = ["--lossless", "--layers", str(2 + k % 4)], 2 + k % 4
                else:  # rates at 1/16 and 1/4 of the lossless file's, then the lossless layer
                    subprocess.run([TOOL, "j2k", "encode", png, stream], capture_output=True)
                    bpp = 8.0 * os.path.getsize(stream) / (w * h)
                    opts, nl = ["--lossless", "--rate", "%g,%g" % (bpp / 16, bpp / 4)], 3
                opts += ["--order", ORDERS[k % 5]]
                name = "layers %dx%d c%d %d-bit %s" % (w, h, c, depth, " ".join(opts))
                cases += 1
                r = subprocess.run([TOOL, "j2k", "encode", png, stream] + opts,
                                   capture_output=True, text=True)
                err = ("encode failed: " + r.stderr.strip()) if r.returncode else \
                    check(name, a, stream, tmp)
                if not err and w * h >= 64 * 64:  # smaller ones: layers may not differ
                    err = check_layered(name, a, stream, nl, tmp)
                print("FAIL" if err else "PASS", name, err or "")
                fails += bool(err)
    src = os.path.join(DATA, "images")
    if cv2 is None or not os.path.isdir(src):
        return cases, fails
    rates = ["0.25", "0.5", "1", "2"]
    for f in ("astronaut.png", "rocket.jpg"):
        img = cv2.imread(os.path.join(src, f), cv2.IMREAD_COLOR)
        if img is None:
            continue
        a = np.ascontiguousarray(img[:, :, ::-1])
        for order in ("LRCP", "RPCL", "CPRL"):
            stream = os.path.join(tmp, "z.j2k")
            name = "layers %s --rate %s --order %s" % (f, ",".join(rates), order)
            cases += 1
            r = subprocess.run([TOOL, "j2k", "encode", os.path.join(src, f), stream, "--rate",
                                ",".join(rates), "--order", order], capture_output=True, text=True)
            prefixes = []
            for i in range(1, len(rates) + 1):
                pre = os.path.join(tmp, "p%d.j2k" % i)
                r2 = subprocess.run([TOOL, "j2k", "encode", os.path.join(src, f), pre, "--rate",
                                     ",".join(rates[:i]), "--order", order],
                                    capture_output=True, text=True)
                target = float(rates[i - 1]) * a.shape[0] * a.shape[1] / 8
                if r2.returncode or not 0.99 * target <= os.path.getsize(pre) <= target:
                    r = r2 if r2.returncode else r
                    print("FAIL", name, "prefix %d: %s bytes for %.0f" % (
                        i, os.path.getsize(pre) if not r2.returncode else "?", target))
                    fails += 1
                prefixes.append(pre)
            err = ("encode failed: " + r.stderr.strip()) if r.returncode else \
                check_layered(name, a, stream, len(rates), tmp, prefixes)
            print("FAIL" if err else "PASS", name, err or "")
            fails += bool(err)
    return cases, fails


def main():
    if not (TOOL and OPJ_D):
        print("SKIP: needs TSR_TOOL and opj_decompress")
        return 77
    rng = np.random.default_rng(0x0E2C)
    tmp = tempfile.mkdtemp(prefix="tsr_j2k_enc_opj_")
    fails = 0
    cases = 0
    try:
        shapes = [(1, 1), (1, 23), (23, 1), (3, 17), (17, 3), (2, 2), (5, 7), (31, 33), (64, 64),
                  (65, 127), (130, 9), (4, 300), (200, 151)]
        cblks = ["64x64", "4x4", "8x16", "32x32", "1024x4", "4x1024", "16x64"]
        k = 0
        for (h, w) in shapes:
            for c in (1, 2, 3, 4):
                for depth in (8, 16):
                    k += 1
                    top = 255 if depth == 8 else 65535
                    dt = np.uint8 if depth == 8 else np.uint16
                    kind = k % 4
                    if kind == 0:
                        a = rng.integers(0, top + 1, size=(h, w, c))
                    elif kind == 1:
                        yy, xx = np.mgrid[0:h, 0:w]
                        base = (xx * 5 + yy * 3)[:, :, None] * (1 if depth == 8 else 251)
                        a = (base + np.arange(c)[None, None, :] * 40
                             + rng.integers(0, 4, size=(h, w, c))) % (top + 1)
                    elif kind == 2:
                        a = np.full((h, w, c), [0, top, top // 2][k % 3])
                    else:
                        a = np.where(rng.integers(0, 30, size=(h, w, c)) == 0,
                                     rng.integers(0, top + 1, size=(h, w, c)), 0)
                    a = a.astype(dt)
                    png = os.path.join(tmp, "in.png")
                    write_png(png, a)
                    order = ORDERS[k % 5]
                    ext = ".jp2" if k % 3 == 0 else ".j2k"
                    opts = ["--lossless", "--order", order, "--cblk", cblks[k % len(cblks)]]
                    if k % 4 == 1:
                        opts += ["--levels", str(k % 7)]
                    stream = os.path.join(tmp, "s" + ext)
                    name = "%dx%d c%d %d-bit %s %s" % (w, h, c, depth, ext, " ".join(opts))
                    cases += 1
                    r = subprocess.run([TOOL, "j2k", "encode", png, stream] + opts,
                                       capture_output=True, text=True)
                    err = ("encode failed: " + r.stderr.strip()) if r.returncode else \
                        check(name, a, stream, tmp)
                    if err:
                        print("FAIL", name, err)
                        fails += 1
                    else:
                        print("PASS", name)
        # lossy: ICT + 9/7 + quantisation, decoded alike by both
        for (h, w) in [(1, 1), (17, 3), (33, 31), (64, 64), (130, 9), (200, 151)]:
            for c in (1, 3, 4):
                for depth in (8, 16):
                    k += 1
                    top = 255 if depth == 8 else 65535
                    yy, xx = np.mgrid[0:h, 0:w]
                    a = ((xx * 5 + yy * 3)[:, :, None] * (1 if depth == 8 else 251)
                         + np.arange(c)[None, None, :] * 40
                         + rng.integers(0, 9, size=(h, w, c))) % (top + 1)
                    a = a.astype(np.uint8 if depth == 8 else np.uint16)
                    png = os.path.join(tmp, "in.png")
                    write_png(png, a)
                    q = ["0.001", "0.004", "0.03"][k % 3]
                    opts = ["--qstep", q, "--order", ORDERS[k % 5]]
                    stream = os.path.join(tmp, "l.j2k" if k % 2 else "l.jp2")
                    name = "lossy %dx%d c%d %d-bit %s" % (w, h, c, depth, " ".join(opts))
                    cases += 1
                    r = subprocess.run([TOOL, "j2k", "encode", png, stream] + opts,
                                       capture_output=True, text=True)
                    err = ("encode failed: " + r.stderr.strip()) if r.returncode else \
                        check_lossy(name, a, stream, tmp)
                    print("FAIL" if err else "PASS", name, err or "")
                    fails += bool(err)
        src = os.path.join(DATA, "images")
        if cv2 is None or not os.path.isdir(src):
            print("note: shared images or cv2 absent; random cases only")
        else:
            for f in ("astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"):
                img = cv2.imread(os.path.join(src, f), cv2.IMREAD_UNCHANGED)
                if img is None:
                    continue
                rgb = img[:, :, ::-1] if img.ndim == 3 else img[:, :, None]
                for order in ("LRCP", "RPCL", "CPRL"):
                    stream = os.path.join(tmp, "s.jp2")
                    cases += 1
                    name = "%s %s" % (f, order)
                    r = subprocess.run([TOOL, "j2k", "encode", os.path.join(src, f), stream,
                                        "--order", order], capture_output=True, text=True)
                    err = ("encode failed: " + r.stderr.strip()) if r.returncode else \
                        check(name, np.ascontiguousarray(rgb), stream, tmp)
                    print("FAIL" if err else "PASS", name, err or "")
                    fails += bool(err)
        lc, lf = layer_cases(rng, tmp)
        cases += lc
        fails += lf
        fails += rate_table(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d cases, %d failed" % (cases, fails))
    return 1 if fails or cases < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
