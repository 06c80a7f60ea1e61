#!/usr/bin/python3
"""Hostile-input suite for the tessera CLI: a corpus crafted here from a seed (no files kept in
the repository) and every reader of the tool run over it.

The corpus: for each input kind, valid seeds made by Python or by the tool (PNG, PNM, PAM, PFM,
BMP, TIFF and, where cv2 imports, JPEG and WebP; JPEG 2000 codestreams and JP2 files from
`tessera j2k encode`; contest JSON, GraphML, DOT, CSV and edge-list graphs; SEG-Y shots from
`tessera migrate model` and model grids), then mutations of them: truncations (in the header,
mid-data, the last byte), random bit flips (several a file, from a seeded RNG; in PNG also with
the chunk CRCs fixed so the decoder gets past them), header lies (sizes, depths, component and
trace counts set huge, zero or inconsistent) and bombs (compressed data that inflates far past
its file, nesting, entity expansion, huge attribute values).

Every file goes through every command that reads it, outputs into a fresh empty folder, and
each run must:
  - exit 0 or 1 (never a signal, never 2: that is the usage-error code, and a hostile file is no
    usage error);
  - on exit 1, print exactly one line on stderr (the commands run with --quiet, which drops
    notes and progress, so what is left is the error); `layout check` may instead exit 1 with
    an INVALID report on stdout and nothing on stderr: that is its answer for a drawing that
    breaks the rules;
  - on failure leave the output folder empty (no output, no temporary file); on exit 0 leave
    exactly the expected outputs, complete (PNG chunks and CRCs through IEND; JSON that parses;
    a grid sidecar whose raw file has nx x nz floats);
  - finish within the wall-time bound and stay under the peak-RSS bound.

Bounds: 10 s and 512 MB per run in a normal build. Every seed is at most a few kilobytes and
tiny in pixels, nodes or samples, so an honest reader finishes in milliseconds; a file that
keeps a reader busy for seconds or takes hundreds of megabytes does so because of a lie it
tells, and 512 MB is a quarter of what a small CI runner has. A bomb, though, can be an honest
image: a few kilobytes of deflate that inflate to the largest image --max-pixels allows, which
the commands then hold and work on (carve keeps about 12 bytes a pixel: the image, its energy,
cost and index maps). That is what --max-pixels bounds, so the image commands run here with
--max-pixels 2^25 (32 Mpx: at most ~400 MB for carve), and the limit's default (2^28) is the
user's memory policy, tested in tests/cli/test_pixel_limit_cli.sh. With sanitizers (detected when the binary links libasan, or
when TSR_HOSTILE_SANITIZED=1 or --sanitized is given) the bounds are 30 s and 2 GB: ASan's
shadow memory, redzones and quarantine roughly triple memory, and the instrumented code runs
2-5x slower. A run is killed at 3x the bounds (a watchdog samples its RSS).

Exit status: 0 when every run kept the rules, 1 when any broke one (one line per violation:
file, command, what broke, then a total), 77 when the tool is missing.
"""
import argparse
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

W, H = 40, 32  # seed image size
# The pixel limit the image commands run under (see Bounds in the docstring).
MAX_PIXELS = 1 << 25


# --- small writers ---------------------------------------------------------------------------


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_file(w, h, depth, ctype, raw, ihdr_extra=b"\0\0\0", plte=None, level=6, interlace=0):
    ihdr = struct.pack(">IIBB", w, h, depth, ctype) + ihdr_extra[:2] + bytes([interlace])
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
    if plte is not None:
        out += png_chunk(b"PLTE", plte)
    return out + png_chunk(b"IDAT", zlib.compress(raw, level)) + png_chunk(b"IEND", b"")


def png_rows(rng, w, h, bpp):
    return b"".join(b"\0" + bytes(rng.randrange(256) for _ in range(w * bpp)) for _ in range(h))


def png_fix_crcs(data):
    """Recomputes every chunk CRC that lies inside the file."""
    b = bytearray(data)
    at = 8
    while at + 12 <= len(b):
        n = struct.unpack(">I", b[at : at + 4])[0]
        end = at + 8 + n
        if end + 4 > len(b):
            break
        b[end : end + 4] = struct.pack(">I", zlib.crc32(bytes(b[at + 4 : end])))
        at = end + 4
    return bytes(b)


def bmp_file(w, h, rows_bgr, bpp=24, height_field=None, offset=None, compression=0):
    stride = (w * 3 + 3) & ~3
    pix = b"".join(r + b"\0" * (stride - len(r)) for r in rows_bgr)
    off = 54 if offset is None else offset
    hf = h if height_field is None else height_field
    info = struct.pack("<IiiHHIIiiII", 40, w, hf, 1, bpp, compression, len(pix), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(pix), 0, 0, off) + info + pix


def tiff_file(w, h, spp, bits, strip, compression=1, strip_count=None, strip_offset=None, next_ifd=0, photometric=None):
    """Little-endian baseline TIFF with one strip. Entries: (tag, type, count, value)."""
    entries = [
        (256, 4, 1, w),
        (257, 4, 1, h),
        (258, 3, 1, bits),
        (259, 3, 1, compression),
        (262, 3, 1, (2 if spp >= 3 else 1) if photometric is None else photometric),
        (273, 4, 1, None),
        (277, 3, 1, spp),
        (278, 4, 1, h),
        (279, 4, 1, len(strip) if strip_count is None else strip_count),
    ]
    ifd_at = 8
    ifd_len = 2 + 12 * len(entries) + 4
    data_at = ifd_at + ifd_len
    ifd = struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        if value is None:
            value = data_at if strip_offset is None else strip_offset
        fmt = "<HHIHH" if typ == 3 else "<HHII"
        ifd += struct.pack(fmt, tag, typ, count, value, 0) if typ == 3 else struct.pack(fmt, tag, typ, count, value)
    nxt = ifd_at if next_ifd == "self" else next_ifd
    ifd += struct.pack("<I", nxt)
    return b"II*\0" + struct.pack("<I", ifd_at) + ifd + strip


# --- the corpus ------------------------------------------------------------------------------


class Corpus:
    def __init__(self, root, rng, quick):
        self.root, self.rng, self.quick = root, rng, quick
        self.files = []  # (path, kind, extra dict)

    def add(self, name, data, kind, **extra):
        path = os.path.join(self.root, name)
        with open(path, "wb") as f:
            f.write(data)
        self.files.append((path, kind, extra))
        return path

    def mutate(self, name, data, kind, header=64, **extra):
        """Truncations and bit flips of a valid seed (which is added too)."""
        base, ext = os.path.splitext(name)
        self.add(name, data, kind, **extra)
        n = len(data)
        cuts = {1, 8, min(header, n - 1) // 2, min(header, n - 1), n // 2, n - 1}
        if not self.quick:
            cuts |= {n // 3, 3 * n // 4, n - 2}
        for c in sorted(x for x in cuts if 0 < x < n):
            self.add("%s.cut%d%s" % (base, c, ext), data[:c], kind, **extra)
        for i in range(3 if self.quick else 8):
            b = bytearray(data)
            # half of the flips in the header, where a lie does the most harm
            for _ in range(self.rng.randint(1, 8)):
                at = self.rng.randrange(min(n, header)) if self.rng.random() < 0.5 else self.rng.randrange(n)
                b[at] ^= 1 << self.rng.randrange(8)
            out = bytes(b)
            if ext == ".png":
                out = png_fix_crcs(out)
            self.add("%s.flip%d%s" % (base, i, ext), out, kind, **extra)


def make_images(c, tool, work):
    rng = c.rng
    rgb = png_rows(rng, W, H, 3)
    c.mutate("rgb8.png", png_file(W, H, 8, 2, rgb), "image", header=41, width=W)
    g16 = png_rows(rng, W, H, 2)
    c.mutate("gray16.png", png_file(W, H, 16, 0, g16), "image", header=41, width=W)
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    adam7 = b"".join(png_rows(rng, (W - x + dx - 1) // dx, (H - y + dy - 1) // dy, 4) for x, y, dx, dy in passes)
    c.mutate("rgba8_adam7.png", png_file(W, H, 8, 6, adam7, interlace=1), "image", header=41, width=W)
    pal = bytes(rng.randrange(256) for _ in range(48))
    c.mutate("palette.png", png_file(W, H, 8, 3, png_rows(rng, W, H, 1).translate(bytes(i % 16 for i in range(256))), plte=pal),
             "image", header=41, width=W)
    # PNG header lies (CRC fixed): sizes, depth, colour type.
    for tag, w, h, d, t in [
        ("w1g30", 1 << 30, H, 8, 2), ("h1g30", W, 1 << 30, 8, 2), ("wmax", 0x7FFFFFFF, 1, 8, 2),
        ("wffff", 0xFFFFFFFF, 0xFFFFFFFF, 8, 2), ("w0", 0, H, 8, 2), ("h0", W, 0, 8, 2),
        ("at_limit_row", 1 << 28, 1, 16, 6), ("limit_square", 16384, 16384, 8, 2),
        ("depth3", W, H, 3, 2), ("pal16", W, H, 16, 3), ("ctype5", W, H, 8, 5), ("bigger", W * 4, H * 4, 8, 2),
    ]:
        c.add("lie_%s.png" % tag, png_file(w, h, d, t, rgb), "image", width=min(w, 1 << 16))
    # An IDAT whose length field claims 4 GB.
    good = png_file(W, H, 8, 2, rgb)
    at = good.index(b"IDAT") - 4
    c.add("lie_idat_len.png", good[:at] + b"\xff\xff\xff\xf0" + good[at + 4 :], "image", width=W)
    # Bombs: a 40x32 header over 64 MB of deflated zeros; a 16384-square (the default pixel limit)
    # gray image of zero rows in 250 KB.
    c.add("bomb_excess.png", png_file(W, H, 8, 2, bytes(64 << 20), level=9), "image", width=W)
    if not c.quick:
        c.add("bomb_limit.png", png_file(16384, 16384, 8, 0, bytes(16385 * 16384), level=9), "image", width=16384)
    # PNM, PAM, PFM.
    g8 = bytes(rng.randrange(256) for _ in range(W * H))
    c.mutate("gray.pgm", b"P5\n%d %d\n255\n" % (W, H) + g8, "image", header=16, width=W)
    c.mutate("rgb16.ppm", b"P6\n%d %d\n65535\n" % (W, H) + bytes(rng.randrange(256) for _ in range(W * H * 6)),
             "image", header=16, width=W)
    c.mutate("ascii.ppm", b"P3\n%d %d\n255\n" % (W, H) + b" ".join(b"%d" % rng.randrange(256) for _ in range(W * H * 3)),
             "image", header=16, width=W)
    c.mutate("rgba.pam", b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (W, H)
             + bytes(rng.randrange(256) for _ in range(W * H * 4)), "image", header=70, width=W)
    c.mutate("rgb.pfm", b"PF\n%d %d\n-1.0\n" % (W, H) + struct.pack("<%df" % (W * H * 3), *[rng.random() for _ in range(W * H * 3)]),
             "image", header=16, width=W)
    for tag, hdr in [
        ("huge", b"P5\n1073741824 1073741824\n255\n"), ("limit", b"P5\n16384 16384\n255\n"),
        ("wide", b"P6\n4294967295 1\n255\n"), ("zero", b"P5\n0 0\n255\n"), ("maxval0", b"P5\n40 32\n0\n"),
        ("maxval70000", b"P5\n40 32\n70000\n"), ("neg", b"P5\n-40 32\n255\n"), ("overflow", b"P5\n99999999999999999999 1\n255\n"),
    ]:
        c.add("lie_%s.pgm" % tag, hdr + g8, "image", width=W)
    c.add("lie_comments.pgm", b"P5\n" + b"# x\n" * 2500000 + b"40 32\n255\n" + g8, "image", width=W)
    for tag, hdr in [
        ("depth0", b"P7\nWIDTH 40\nHEIGHT 32\nDEPTH 0\nMAXVAL 255\nENDHDR\n"),
        ("depth1m", b"P7\nWIDTH 40\nHEIGHT 32\nDEPTH 1000000\nMAXVAL 255\nENDHDR\n"),
        ("nowidth", b"P7\nHEIGHT 32\nDEPTH 1\nMAXVAL 255\nENDHDR\n"),
        ("tupl", b"P7\nWIDTH 40\nHEIGHT 32\nDEPTH 1\nMAXVAL 255\nTUPLTYPE " + b"X" * 1000000 + b"\nENDHDR\n"),
        ("noend", b"P7\nWIDTH 40\nHEIGHT 32\nDEPTH 1\nMAXVAL 255\n"),
    ]:
        c.add("lie_%s.pam" % tag, hdr + g8, "image", width=W)
    for tag, hdr in [("scale0", b"Pf\n40 32\n0\n"), ("scalenan", b"Pf\n40 32\nnan\n"), ("huge", b"Pf\n65536 65536\n-1\n")]:
        c.add("lie_%s.pfm" % tag, hdr + g8 * 4, "image", width=W)
    # BMP.
    rows = [bytes(rng.randrange(256) for _ in range(W * 3)) for _ in range(H)]
    c.mutate("rgb.bmp", bmp_file(W, H, rows), "image", header=54, width=W)
    for tag, kw in [
        ("hneg_min", dict(height_field=-(1 << 31))), ("h_huge", dict(height_field=(1 << 31) - 1)),
        ("offset_past", dict(offset=1 << 30)), ("bpp0", dict(bpp=0)), ("bpp64", dict(bpp=64)),
        ("rle_bad", dict(compression=1, bpp=8)), ("bitfields", dict(compression=3)),
    ]:
        c.add("lie_%s.bmp" % tag, bmp_file(W, H, rows, **kw), "image", width=W)
    c.add("lie_w_huge.bmp", bmp_file(W, H, rows)[:18] + struct.pack("<i", 1 << 30) + bmp_file(W, H, rows)[22:], "image", width=W)
    # TIFF.
    strip = bytes(rng.randrange(256) for _ in range(W * H * 3))
    c.mutate("rgb.tif", tiff_file(W, H, 3, 8, strip), "image", header=128, width=W)
    for tag, kw in [
        ("w1g30", dict(w=1 << 30)), ("spp65535", dict(spp=65535)), ("bits0", dict(bits=0)), ("bits64", dict(bits=64)),
        ("strip_past", dict(strip_offset=1 << 30)), ("count_huge", dict(strip_count=0xFFFFFFFF)),
        ("ifd_loop", dict(next_ifd="self")), ("comp_unknown", dict(compression=60000)),
    ]:
        args = dict(w=W, h=H, spp=3, bits=8, strip=strip)
        args.update(kw)
        c.add("lie_%s.tif" % tag, tiff_file(**args), "image", width=W)
    # Deflate bombs: a 40x32 strip that inflates to 64 MB; a 16384-square gray image of zeros.
    c.add("bomb_excess.tif", tiff_file(W, H, 3, 8, zlib.compress(bytes(64 << 20), 9), compression=8), "image", width=W)
    if not c.quick:
        zeros = zlib.compress(bytes(16384 * 16384), 9)
        c.add("bomb_limit.tif", tiff_file(16384, 16384, 1, 8, zeros, compression=8), "image", width=16384)
        # MinIsWhite goes through libtiff's RGBA reader
        c.add("bomb_limit_white.tif", tiff_file(16384, 16384, 1, 8, zeros, compression=8, photometric=0),
              "image", width=16384)
    # JPEG and WebP through cv2, where it imports.
    try:
        import cv2
        import numpy as np

        a = np.frombuffer(rgb, np.uint8).reshape(H, W * 3 + 1)[:, 1:].reshape(H, W, 3).copy()
        jpg = cv2.imencode(".jpg", a)[1].tobytes()
        c.mutate("rgb.jpg", jpg, "image", header=200, width=W)
        sof = jpg.index(b"\xff\xc0")
        for tag, hw in [("huge", (65535, 65535)), ("zero", (0, W)), ("limit", (16384, 16384))]:
            b = bytearray(jpg)
            b[sof + 5 : sof + 9] = struct.pack(">HH", *hw)
            c.add("lie_%s.jpg" % tag, bytes(b), "image", width=W)
        b = bytearray(jpg)
        b[sof + 9] = 255  # component count
        c.add("lie_ncomp.jpg", bytes(b), "image", width=W)
        c.mutate("rgb.webp", cv2.imencode(".webp", a, [cv2.IMWRITE_WEBP_QUALITY, 80])[1].tobytes(), "image", header=40, width=W)
        c.mutate("lossless.webp", cv2.imencode(".webp", a, [cv2.IMWRITE_WEBP_QUALITY, 101])[1].tobytes(), "image", header=40, width=W)
        webp = cv2.imencode(".webp", a, [cv2.IMWRITE_WEBP_QUALITY, 101])[1].tobytes()
        c.add("lie_riff_size.webp", webp[:4] + b"\xff\xff\xff\xff" + webp[8:], "image", width=W)
        c.add("lie_chunk_size.webp", webp[:16] + b"\xff\xff\xff\x7f" + webp[20:], "image", width=W)
    except ImportError:
        print("note: no cv2: JPEG and WebP seeds skipped", file=sys.stderr)


def j2k_siz_lie(cs, xsiz=None, ysiz=None, ssiz=None, csiz=None, tile=None):
    """Rewrites the SIZ marker segment of a codestream (T.800 A.5.1)."""
    b = bytearray(cs)
    at = b.index(b"\xff\x51")
    if xsiz is not None:
        b[at + 6 : at + 14] = struct.pack(">II", xsiz, ysiz)
    if tile is not None:
        b[at + 22 : at + 30] = struct.pack(">II", tile, tile)
    if csiz is not None:
        b[at + 38 : at + 40] = struct.pack(">H", csiz)
    if ssiz is not None:
        b[at + 40] = ssiz
    return bytes(b)


def make_j2k(c, tool, work):
    src = os.path.join(work, "j2k_seed.png")
    rng = c.rng
    with open(src, "wb") as f:
        f.write(png_file(W, H, 8, 2, png_rows(rng, W, H, 3)))
    g16 = os.path.join(work, "j2k_seed16.png")
    with open(g16, "wb") as f:
        f.write(png_file(W, H, 16, 0, png_rows(rng, W, H, 2)))
    seeds = [("lossless.j2k", src, []), ("lossy.jp2", src, ["--rate", "2", "--layers", "3"]),
             ("gray16.j2k", g16, ["--levels", "3", "--cblk", "16x16"]), ("rgb.jp2", src, [])]
    made = {}
    for name, inp, opts in seeds:
        out = os.path.join(work, name)
        subprocess.run([tool, "j2k", "encode", inp, out, "--quiet"] + opts, check=True)
        with open(out, "rb") as f:
            made[name] = f.read()
        c.mutate(name, made[name], "j2k", header=120, width=W)
    cs = made["lossless.j2k"]
    for tag, kw in [
        ("60000sq", dict(xsiz=60000, ysiz=60000)), ("65535sq_16bit", dict(xsiz=65535, ysiz=65535, ssiz=15)),
        ("20000sq", dict(xsiz=16384, ysiz=16384)), ("zero", dict(xsiz=0, ysiz=0)), ("ssiz38", dict(ssiz=37)),
        ("csiz0", dict(csiz=0)), ("csiz16384", dict(csiz=16384)), ("tile1", dict(tile=1)),
        ("tile1_16384sq", dict(xsiz=16384, ysiz=16384, tile=1)),
    ]:
        c.add("lie_siz_%s.j2k" % tag, j2k_siz_lie(cs, **kw), "j2k", width=W)
    # COD: 33 decomposition levels and a 2^14 code-block exponent.
    cod = cs.index(b"\xff\x52")
    b = bytearray(cs)
    b[cod + 9] = 32
    c.add("lie_cod_levels.j2k", bytes(b), "j2k", width=W)
    b = bytearray(cs)
    b[cod + 10] = 12
    c.add("lie_cod_cblk.j2k", bytes(b), "j2k", width=W)
    # JP2 box lengths: a box of 4 GB, a 64-bit XLBox of 2^63, a zero-length jp2h.
    jp2 = made["rgb.jp2"]
    c.add("lie_box_huge.jp2", jp2[:12] + b"\xff\xff\xff\xf0" + jp2[16:], "j2k", width=W)
    h = jp2.index(b"jp2h") - 4
    c.add("lie_xlbox.jp2", jp2[:h] + b"\0\0\0\x01jp2h" + struct.pack(">Q", 1 << 63) + jp2[h + 8 :], "j2k", width=W)
    c.add("lie_jp2h_zero.jp2", jp2[: h + 8].replace(jp2[h : h + 4], b"\0\0\0\x08") + jp2[h + 8 :], "j2k", width=W)
    # Many tiny tile-parts: SOT markers without end.
    c.add("bomb_sot.j2k", cs[: cs.index(b"\xff\x90")] + b"\xff\x90\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x01" * 20000 + b"\xff\xd9",
          "j2k", width=W)


def make_graphs(c, tool, work):
    rng = c.rng
    n, m = 24, 40
    pts = [(rng.randrange(100), rng.randrange(100)) for _ in range(n)]
    edges = sorted({tuple(sorted(rng.sample(range(n), 2))) for _ in range(m)})
    contest = {"nodes": [{"id": i, "x": x, "y": y} for i, (x, y) in enumerate(pts)],
               "edges": [{"source": u, "target": v} for u, v in edges], "width": 100, "height": 100}
    c.mutate("g.json", json.dumps(contest).encode(), "graph", header=40)
    gml = ['<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
           '<key id="x" for="node" attr.name="x" attr.type="int"/><key id="y" for="node" attr.name="y" attr.type="int"/>',
           '<graph edgedefault="undirected">']
    gml += ['<node id="n%d"><data key="x">%d</data><data key="y">%d</data></node>' % (i, x, y) for i, (x, y) in enumerate(pts)]
    gml += ['<edge source="n%d" target="n%d"/>' % e for e in edges] + ["</graph></graphml>\n"]
    gml = "\n".join(gml).encode()
    c.mutate("g.graphml", gml, "graph", header=200)
    dot = "graph G {\n" + "".join('  n%d [pos="%d,%d"];\n' % (i, x, y) for i, (x, y) in enumerate(pts))
    dot += "".join("  n%d -- n%d;\n" % e for e in edges) + "}\n"
    c.mutate("g.dot", dot.encode(), "graph", header=40)
    c.mutate("g.csv", ("source,target\n" + "".join("%d,%d\n" % e for e in edges)).encode(), "graph", header=20)
    c.mutate("g.txt", "".join("%d %d\n" % e for e in edges).encode(), "graph", header=20)
    # Lies in ids, coordinates and sizes.
    def cj(**kw):
        d = json.loads(json.dumps(contest))
        for k, v in kw.items():
            if k == "node0":
                d["nodes"][0].update(v)
            elif k == "edge0":
                d["edges"][0].update(v)
            else:
                d[k] = v
        return json.dumps(d).encode()

    for tag, kw in [
        ("id_huge", dict(node0={"id": 9223372036854775807})), ("id_float", dict(node0={"id": 1e308})),
        ("x_huge", dict(node0={"x": 1 << 62})), ("x_neg", dict(node0={"x": -(1 << 62)})),
        ("width_huge", dict(width=1 << 62, height=1 << 62)), ("width_neg", dict(width=-1)),
        ("edge_missing", dict(edge0={"source": 999999})), ("edge_self", dict(edge0={"target": 0, "source": 0})),
        ("x_big_int", dict(node0={"x": 10 ** 40})),
    ]:
        c.add("lie_%s.json" % tag, cj(**kw), "graph")
    many = {"nodes": [{"id": i, "x": 0, "y": 0} for i in range(20000)],
            "edges": [{"source": i, "target": (i * 7919 + 1) % 20000} for i in range(20000)], "width": 10, "height": 10}
    c.add("lie_one_point.json", json.dumps(many).encode(), "graph")
    c.add("lie_ids.txt", b"0 2000000000\n4294967295 18446744073709551615\n-9223372036854775808 1\n", "graph")
    c.add("lie_dup_keys.json", b'{"nodes": [], "nodes": [], "edges": []}', "graph")
    c.add("lie_id_newline.json", b'{"nodes": [{"id": "a\\nb"}, {"id": "a\\nb"}], "edges": []}', "graph")
    c.add("lie_id_latin1.txt", b"a b\nb \xe9t\xe9\n", "graph")
    # Nesting and expansion.
    c.add("bomb_nest.json", b'{"nodes": ' + b"[" * 200000 + b"]" * 200000 + b', "edges": []}', "graph")
    c.add("bomb_nest.graphml", b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">' + b"<a>" * 200000 + b"</a>" * 200000
          + b"</graphml>", "graph")
    laughs = '<?xml version="1.0"?>\n<!DOCTYPE graphml [\n<!ENTITY l0 "lol">\n'
    laughs += "".join('<!ENTITY l%d "%s">\n' % (i, ("&l%d;" % (i - 1)) * 10) for i in range(1, 10))
    laughs += ']>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph><node id="&l9;"/></graph></graphml>\n'
    c.add("bomb_laughs.graphml", laughs.encode(), "graph")
    c.add("lie_external.graphml", b'<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY e SYSTEM "file:///dev/zero">]>\n'
          b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph><node id="&e;"/></graph></graphml>\n', "graph")
    c.add("lie_node_huge.graphml", gml.replace(b'<node id="n0">', b'<node id="' + b"n" * 4000000 + b'">'), "graph")
    c.add("lie_x_huge.graphml", gml.replace(b'<data key="x">', b'<data key="x">' + b"9" * 100000, 1), "graph")
    c.add("bomb_attr.dot", b'graph G { a [label="' + b"x" * 16000000 + b'"]; a -- b; }\n', "graph")
    c.add("bomb_nest.dot", b"graph G { " + b"subgraph { " * 100000 + b"a -- b; " + b"} " * 100000 + b"}\n", "graph")
    c.add("lie_pos.dot", dot.replace('pos="', 'pos="99999999999999999999,', 1).encode(), "graph")
    c.add("bomb_field.csv", b'"' + b"x" * 16000000 + b'",b\n', "graph")
    c.add("lie_unterminated.csv", b'a,"b\nc,d\n', "graph")


SEGY_MODEL = '{"file": "%s", "nx": 20, "nz": 10, "dx": 10, "dz": 10, "ox": 0, "oz": 0}\n'


def make_segy(c, tool, work):
    # The good model and shots live beside the corpus (the grid files run with these shots, the
    # shot files with this model), so a kept corpus replays.
    vel = struct.pack("<f", 2000.0) * 200
    with open(os.path.join(c.root, "model.f32"), "wb") as f:
        f.write(vel)
    c.model = os.path.join(c.root, "model.json")
    with open(c.model, "w") as f:
        f.write(SEGY_MODEL % "model.f32")
    made = os.path.join(work, "s.sgy")
    subprocess.run([tool, "migrate", "model", c.model, made, "--shots", "50:100:2", "--t", "0.2", "--quiet"], check=True)
    with open(made, "rb") as f:
        sgy = f.read()
    c.mutate("s.sgy", sgy, "segy", header=3600 + 240)
    shots = os.path.join(c.root, "s.sgy")  # the seed, as mutate wrote it

    def lie(name, *edits):
        b = bytearray(sgy)
        for at, fmt, v in edits:
            struct.pack_into(fmt, b, at, v)
        c.add("lie_%s.sgy" % name, bytes(b), "segy")

    # Binary header (1-based byte positions in the standard; 0-based here): 3216 interval, 3220
    # samples, 3224 format, 3500 revision, 3504 extended textual headers. Trace header: 114 samples,
    # 70 coordinate scalar, 72 source x.
    lie("ns0", (3220, ">H", 0)), lie("ns65535", (3220, ">H", 65535)), lie("dt0", (3216, ">H", 0))
    lie("fmt0", (3224, ">H", 0)), lie("fmt99", (3224, ">H", 99)), lie("fmt8", (3224, ">H", 8))
    lie("ext_headers", (3504, ">h", 32767)), lie("rev2_ns", (3500, ">H", 0x0200), (3268, ">I", 0x7FFFFFFF))
    lie("trace_ns", (3600 + 114, ">H", 65535)), lie("scalar", (3600 + 70, ">h", -32768), (3600 + 72, ">i", -(1 << 31)))
    lie("srcx_huge", (3600 + 72, ">i", (1 << 31) - 1)), lie("ext_neg", (3504, ">h", -5))
    c.add("lie_extra_byte.sgy", sgy + b"\0", "segy")
    c.add("lie_header_only.sgy", sgy[:3600], "segy")
    # Model grid lies (sidecar and raw file), each with the good shots.
    grid = [
        ("nx_huge", SEGY_MODEL.replace('"nx": 20', '"nx": 1000000000').replace('"nz": 10', '"nz": 1000000000'), vel),
        ("nx0", SEGY_MODEL.replace('"nx": 20', '"nx": 0'), vel), ("nx_neg", SEGY_MODEL.replace('"nx": 20', '"nx": -20'), vel),
        ("nx_frac", SEGY_MODEL.replace('"nx": 20', '"nx": 20.5'), vel), ("nx_1e300", SEGY_MODEL.replace('"nx": 20', '"nx": 1e300'), vel),
        ("dx0", SEGY_MODEL.replace('"dx": 10', '"dx": 0'), vel), ("dx_neg", SEGY_MODEL.replace('"dx": 10', '"dx": -10'), vel),
        ("dx_tiny", SEGY_MODEL.replace('"dx": 10', '"dx": 1e-300'), vel), ("dz_huge", SEGY_MODEL.replace('"dz": 10', '"dz": 1e300'), vel),
        ("short", SEGY_MODEL, vel[:-4]), ("long", SEGY_MODEL, vel + vel), ("empty", SEGY_MODEL, b""),
        ("vel0", SEGY_MODEL, bytes(800)), ("vel_neg", SEGY_MODEL, struct.pack("<f", -2000.0) * 200),
        ("vel_inf", SEGY_MODEL, struct.pack("<f", float("inf")) * 200), ("vel_tiny", SEGY_MODEL, struct.pack("<f", 1e-30) * 200),
        ("vel_huge", SEGY_MODEL, struct.pack("<f", 3e38) * 200),
        ("nest", '{"a": ' + "[" * 100000 + "]" * 100000 + ', ' + SEGY_MODEL[1:], vel),
        ("sidecar_big", SEGY_MODEL[:-2] + ', "pad": "' + "x" * (2 << 20) + '"}\n', vel),
        ("truncated", SEGY_MODEL[:30], vel), ("not_json", "nx = 20\n", vel),
        ("file_dir", SEGY_MODEL.replace('"%s"', '"."'), None), ("file_devzero", SEGY_MODEL.replace('"%s"', '"/dev/zero"'), None),
        ("file_missing", SEGY_MODEL.replace('"%s"', '"nope.f32"'), None),
        ("file_long", SEGY_MODEL.replace('"%s"', '"' + "a" * 5000 + '"'), None),
    ]
    for tag, side, raw in grid:
        rawname = "grid_%s.f32" % tag
        text = side % rawname if "%s" in side else side
        path = c.add("grid_%s.json" % tag, text.encode(), "grid")
        if raw is not None:
            with open(os.path.join(c.root, rawname), "wb") as f:
                f.write(raw)
        c.files[-1][2]["shots"] = shots


# --- running ---------------------------------------------------------------------------------


def commands(path, kind, extra, c):
    """The command lines that read `path`, each with the outputs it must leave on exit 0."""
    if kind in ("image", "j2k"):
        w = max(1, extra.get("width", W) - 2)
        lim = ["--max-pixels", str(MAX_PIXELS)]
        cmds = [(["resize", path, "OUT/r.png", "--size", "64x64"] + lim, ["r.png"]),
                (["carve", path, "OUT/c.png", "--width", str(w)] + lim, ["c.png"])]
        if kind == "j2k":
            cmds += [(["j2k", "decode", path, "OUT/d.png"] + lim, ["d.png"]), (["j2k", "info", path], [])]
        return cmds
    if kind == "graph":
        return [(["layout", "check", path], []), (["layout", "optimize", path, "OUT/o.json", "--time", "1"], ["o.json"])]
    if kind == "segy":
        return [(["migrate", "info", path], []),
                (["migrate", "image", path, c.model, "OUT/i.json", "--fmax", "20"], ["i.json", "i.f32"])]
    if kind == "grid":
        return [(["migrate", "image", extra["shots"], path, "OUT/i.json", "--fmax", "20"], ["i.json", "i.f32"]),
                (["migrate", "model", path, "OUT/s.sgy", "--shots", "50:100:1", "--t", "0.1"], ["s.sgy"])]
    raise ValueError(kind)


def png_complete(path):
    with open(path, "rb") as f:
        b = f.read()
    if b[:8] != b"\x89PNG\r\n\x1a\n":
        return "not a PNG"
    at = 8
    while at + 12 <= len(b):
        n = struct.unpack(">I", b[at : at + 4])[0]
        kind = b[at + 4 : at + 8]
        end = at + 8 + n
        if end + 4 > len(b) or struct.unpack(">I", b[end : end + 4])[0] != zlib.crc32(b[at + 4 : end]):
            return "PNG chunk %r cut or with a bad CRC" % kind
        at = end + 4
        if kind == b"IEND":
            return None if at == len(b) else "bytes after IEND"
    return "PNG without IEND"


def output_problem(outdir, name):
    path = os.path.join(outdir, name)
    if os.path.getsize(path) == 0:
        return "%s empty" % name
    if name.endswith(".png"):
        return png_complete(path)
    if name.endswith(".json"):
        try:
            with open(path) as f:
                j = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            return "%s is not JSON: %s" % (name, e)
        if "nx" in j:
            raw = os.path.join(outdir, j.get("file", ""))
            if not os.path.isfile(raw) or os.path.getsize(raw) != 4 * int(j["nx"]) * int(j["nz"]):
                return "%s: raw grid missing or not nx x nz floats" % name
    return None


def run_one(tool, argv, outdir, bounds):
    """Runs the tool; returns (status, stdout, stderr, wall, maxrss_bytes, killed_for)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([tool] + argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=outdir,
                             start_new_session=True)
        killed = []
        done = threading.Event()

        def watch():
            page = os.sysconf("SC_PAGE_SIZE")
            while not done.wait(0.02):
                over = None
                if time.monotonic() - t0 > 3 * bounds[0]:
                    over = "time"
                else:
                    try:
                        with open("/proc/%d/statm" % p.pid) as f:
                            if int(f.read().split()[1]) * page > 3 * bounds[1]:
                                over = "memory"
                    except (OSError, IndexError, ValueError):
                        pass
                if over:
                    killed.append(over)
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except OSError:
                        pass
                    return

        th = threading.Thread(target=watch, daemon=True)
        th.start()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = 0  # reaped here; keep Popen from waiting again
        done.set()
        th.join()
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read(), wall, ru.ru_maxrss * 1024, killed[0] if killed else None


def check_run(tool, path, kind, argv, expect, bounds, scratch):
    """The violations of one run, as strings."""
    outdir = tempfile.mkdtemp(dir=scratch)
    argv = [a.replace("OUT/", outdir + "/") for a in argv] + ["--quiet"]
    status, out, err, wall, rss, killed = run_one(tool, argv, outdir, bounds)
    bad = []
    if killed:
        bad.append("killed past 3x the %s bound (%.1f s, %d MB)" % (killed, wall, rss >> 20))
    elif os.WIFSIGNALED(status):
        bad.append("signal %d (%s)" % (os.WTERMSIG(status), signal.Signals(os.WTERMSIG(status)).name))
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    if code is not None and code not in (0, 1):
        bad.append("exit %d" % code)
    # lines end at '\n' only (str.splitlines would also split at the control bytes that a
    # message quoting a binary header may hold)
    lines = err.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    invalid_report = argv[:2] == ["layout", "check"] and code == 1 and b"INVALID" in out
    if code == 1 and not (invalid_report and not lines) and len(lines) != 1:
        bad.append("%d stderr lines on failure: %r" % (len(lines), lines[:3]))
    if code is not None and code not in (0, 1) or killed or os.WIFSIGNALED(status):
        if lines:
            bad.append("stderr: %r" % lines[-1][:200])
    if wall > bounds[0] and not killed:
        bad.append("wall %.1f s > %d s" % (wall, bounds[0]))
    if rss > bounds[1] and not killed:
        bad.append("peak RSS %d MB > %d MB" % (rss >> 20, bounds[1] >> 20))
    left = sorted(os.listdir(outdir))
    if code == 0:
        if left != sorted(expect):
            bad.append("exit 0 left %s, expected %s" % (left, sorted(expect)))
        else:
            for name in expect:
                p = output_problem(outdir, name)
                if p:
                    bad.append("exit 0 with an incomplete output: " + p)
    elif left:
        bad.append("failure left %s" % left)
    shutil.rmtree(outdir, ignore_errors=True)
    return bad, wall, rss, code


def sanitized_build(tool):
    if os.environ.get("TSR_HOSTILE_SANITIZED") == "1":
        return True
    try:
        libs = subprocess.run(["ldd", tool], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        libs = ""
    if "libasan" in libs:
        return True
    with open(tool, "rb") as f:
        return b"__asan_init" in f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", default=os.environ.get("TSR_TOOL", "tessera"))
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--keep", metavar="DIR", help="write the corpus to DIR and keep it")
    ap.add_argument("--kinds", default="image,j2k,graph,segy")
    ap.add_argument("--quick", action="store_true", help="fewer mutations, no pixel-limit bombs")
    ap.add_argument("--sanitized", action="store_true", help="use the sanitizer bounds")
    ap.add_argument("--verbose", action="store_true", help="print every run")
    a = ap.parse_args()
    tool = shutil.which(a.tool) or a.tool
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("hostile: no tessera tool at %s" % a.tool, file=sys.stderr)
        return 77
    tool = os.path.abspath(tool)
    san = a.sanitized or sanitized_build(tool)
    bounds = (30, 2 << 30) if san else (10, 512 << 20)
    kinds = a.kinds.split(",")
    makers = {"image": make_images, "j2k": make_j2k, "graph": make_graphs, "segy": make_segy}
    for k in kinds:
        if k not in makers:
            ap.error("unknown kind %s" % k)
    scratch = tempfile.mkdtemp(prefix="tsr-hostile-")
    try:
        root = a.keep or os.path.join(scratch, "corpus")
        os.makedirs(root, exist_ok=True)
        work = os.path.join(scratch, "work")
        os.makedirs(work)
        c = Corpus(root, random.Random(a.seed), a.quick)
        for k in kinds:
            makers[k](c, tool, work)
        t0 = time.monotonic()
        violations = runs = 0
        worst_wall = (0.0, "")
        worst_rss = (0, "")
        for path, kind, extra in c.files:
            for argv, expect in commands(path, kind, extra, c):
                bad, wall, rss, code = check_run(tool, path, kind, argv, expect, bounds, scratch)
                runs += 1
                what = "tessera " + " ".join(argv)
                worst_wall = max(worst_wall, (wall, what))
                worst_rss = max(worst_rss, (rss, what))
                if a.verbose:
                    print("%s exit %s %.2f s %d MB" % (what, code, wall, rss >> 20))
                for b in bad:
                    print("VIOLATION %s: %s" % (what, b))
                violations += len(bad)
        print("hostile: %d files, %d runs in %.0f s (%s bounds: %d s, %d MB; seed %d): %d violations; "
              "slowest %.2f s (%s), largest %d MB (%s)"
              % (len(c.files), runs, time.monotonic() - t0, "sanitizer" if san else "normal", bounds[0], bounds[1] >> 20,
                 a.seed, violations, worst_wall[0], worst_wall[1], worst_rss[0] >> 20, worst_rss[1]))
        return 1 if violations else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
