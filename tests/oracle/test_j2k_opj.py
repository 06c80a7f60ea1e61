"""Cross-check of `tessera j2k decode` against OpenJPEG's opj_decompress (Debian libopenjp2-tools)
on streams made by opj_compress from ../shared/data/images with many option combinations:
tiles, precincts, code-block sizes and every code-block style, the five progressions and POC,
layers, resolutions, SOP/EPH, tile-parts, image and tile offsets, subsampling, 8 and 16 bits,
1 to 4 components, JP2, reduced resolution and layers at decode time.

Reversible streams must decode identically. Irreversible (9/7) ones within peak 1 per sample up
to 12 bits, 2 above: both decoders run the lifting in float32 and round once at the end, but
OpenJPEG folds the high-pass gain into its step sizes (2/K scaling) where tessera follows the
standard (1/K), so the float operations differ by a few ulp. float32 has 24 bits; a 16-bit
sample leaves 8 fractional bits, and the ~6 lifting steps per dimension and level, amplified by
the synthesis gain (< 2 per level), can move a result by more than half a unit there.

Prints PASS/FAIL per case; exits 1 on any failure, 77 when the tools or the data are absent.
TSR_J2K_CROSS_QUICK=1 runs every fourth case."""
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
OPJ_C = shutil.which("opj_compress")
OPJ_D = shutil.which("opj_decompress")


def pgx_set(prefix):
    d = os.path.dirname(prefix)
    stem = os.path.basename(prefix)
    files = sorted(f for f in os.listdir(d) if f.startswith(stem) and f.endswith(".pgx"))
    if files == [stem + ".pgx"]:
        return [read_pgx(os.path.join(d, files[0]))]
    files = sorted((f for f in files if f[len(stem):].startswith("_")),
                   key=lambda f: int(f[len(stem) + 1:-4]))
    return [read_pgx(os.path.join(d, f)) for f in files]


def make_inputs(tmp):
    src = os.path.join(DATA, "images")
    imgs = {}
    a = cv2.imread(os.path.join(src, "astronaut.png"), cv2.IMREAD_COLOR)
    c = cv2.imread(os.path.join(src, "coffee.png"), cv2.IMREAD_COLOR)
    rgb = a[40:40 + 203, 17:17 + 187]
    imgs["rgb"] = os.path.join(tmp, "rgb.ppm")
    cv2.imwrite(imgs["rgb"], rgb)
    imgs["gray"] = os.path.join(tmp, "gray.pgm")
    cv2.imwrite(imgs["gray"], cv2.cvtColor(c[100:100 + 150, 200:200 + 171], cv2.COLOR_BGR2GRAY))
    g16 = (cv2.cvtColor(a[:160, :144], cv2.COLOR_BGR2GRAY).astype(np.uint16) * 257
           + np.arange(144, dtype=np.uint16)[None, :])
    imgs["gray16"] = os.path.join(tmp, "gray16.pgm")
    cv2.imwrite(imgs["gray16"], g16)
    rgba = cv2.cvtColor(c[:97, :130], cv2.COLOR_BGR2BGRA)
    rgba[:, :, 3] = np.arange(130, dtype=np.uint8)[None, :]
    imgs["rgba"] = os.path.join(tmp, "rgba.png")
    cv2.imwrite(imgs["rgba"], rgba)
    # planar raw with odd subsamplings (1x1, 3x2, 2x3) for opj_compress -F
    w, h = 90, 66
    p0 = c[:h, :w, 0]
    p1 = cv2.resize(c[:h, :w, 1], (w // 3, h // 2), interpolation=cv2.INTER_AREA)
    p2 = cv2.resize(c[:h, :w, 2], (w // 2, h // 3), interpolation=cv2.INTER_AREA)
    imgs["sub"] = os.path.join(tmp, "sub.raw")
    with open(imgs["sub"], "wb") as f:
        f.write(p0.tobytes() + p1.tobytes() + p2.tobytes())
    big = c[:, :]
    imgs["big"] = os.path.join(tmp, "big.ppm")
    cv2.imwrite(imgs["big"], big)
    return imgs


# (name, input, opj_compress options, tessera decode options, opj_decompress options, reversible)
CASES = [
    ("default", "rgb", [], [], [], True),
    ("gray", "gray", [], [], [], True),
    ("16bit", "gray16", [], [], [], True),
    ("rgba", "rgba", [], [], [], True),
    ("tiles", "rgb", ["-t", "64,48"], [], [], True),
    ("tiles-offset", "rgb", ["-t", "50,50", "-T", "3,7", "-d", "5,9"], [], [], True),
    ("image-offset", "gray", ["-d", "13,4"], [], [], True),
    ("precincts", "rgb", ["-c", "[64,64],[32,32],[16,16]"], [], [], True),
    ("precincts-tiles", "rgb", ["-c", "[32,32],[16,16]", "-t", "96,80"], [], [], True),
    ("cblk-16x16", "gray", ["-b", "16,16"], [], [], True),
    ("cblk-64x16", "rgb", ["-b", "64,16"], [], [], True),
    ("cblk-4x1024", "gray", ["-b", "4,1024"], [], [], True),
    ("lrcp", "rgb", ["-p", "LRCP", "-r", "40,10,1"], [], [], True),
    ("rlcp", "rgb", ["-p", "RLCP", "-r", "30,1"], [], [], True),
    ("rpcl", "rgb", ["-p", "RPCL", "-c", "[32,32]", "-r", "20,1"], [], [], True),
    ("pcrl", "rgb", ["-p", "PCRL", "-c", "[32,32]", "-t", "100,100"], [], [], True),
    ("cprl", "rgb", ["-p", "CPRL", "-c", "[64,64],[32,32]"], [], [], True),
    ("poc", "rgb", ["-POC", "T0=0,0,1,3,2,CPRL/T0=0,0,3,6,3,LRCP"], [], [], True),
    ("bypass", "rgb", ["-M", "1", "-r", "20,5,1"], [], [], True),
    ("reset", "gray", ["-M", "2"], [], [], True),
    ("termall", "gray", ["-M", "4", "-r", "10,1"], [], [], True),
    ("vcausal", "rgb", ["-M", "8"], [], [], True),
    ("pterm", "gray", ["-M", "16"], [], [], True),
    ("segsym", "gray", ["-M", "32"], [], [], True),
    ("all-styles", "rgb", ["-M", "63", "-r", "30,8,1"], [], [], True),
    ("bypass-termall", "gray16", ["-M", "5"], [], [], True),
    ("sop-eph", "rgb", ["-SOP", "-EPH", "-r", "20,1"], [], [], True),
    ("tileparts-R", "rgb", ["-t", "64,64", "-TP", "R"], [], [], True),
    ("tileparts-C", "rgb", ["-t", "100,64", "-TP", "C"], [], [], True),
    ("plt-tlm", "rgb", ["-PLT", "-TLM", "-t", "64,64"], [], [], True),
    ("levels-1", "rgb", ["-n", "2"], [], [], True),
    ("levels-8", "big", ["-n", "8"], [], [], True),
    ("no-mct", "rgb", ["-mct", "0"], [], [], True),
    ("subsampled", "rgb", ["-s", "2,2"], [], [], True),
    ("sub-3x2-rpcl", "sub", ["-F", "90,66,3,8,u@1x1:3x2:2x3", "-p", "RPCL", "-c", "[16,16]",
                             "-n", "3"], [], [], True),
    ("sub-3x2-pcrl", "sub", ["-F", "90,66,3,8,u@1x1:3x2:2x3", "-p", "PCRL", "-c",
                             "[32,32],[16,16]", "-t", "40,30", "-n", "3"], [], [], True),
    ("sub-3x2-cprl", "sub", ["-F", "90,66,3,8,u@1x1:3x2:2x3", "-p", "CPRL", "-n", "2", "-t",
                             "33,27", "-d", "2,1"], [], [], True),
    ("sub-3x2-97", "sub", ["-F", "90,66,3,8,u@1x1:3x2:2x3", "-I", "-p", "RPCL", "-n", "3"], [],
     [], False),
    ("jp2", "rgb", [], [], [], True),
    ("odd-geometry-1", "rgb", ["-d", "7,7", "-t", "64,64", "-T", "5,5"], [], [], True),
    ("odd-geometry-2", "gray", ["-p", "RPCL", "-c", "[32,32]", "-t", "50,60", "-d", "1,1"], [],
     [], True),
    ("odd-geometry-3", "rgb", ["-p", "PCRL", "-c", "[32,32],[16,16]", "-n", "4", "-t", "41,53",
                               "-d", "3,2"], [], [], True),
    ("many-tileparts", "rgb", ["-c", "[128,128]", "-p", "RPCL", "-t", "100,100", "-TP", "R",
                               "-SOP", "-EPH"], [], [], True),
    ("reduce-1", "rgb", ["-t", "64,64"], ["--reduce", "1"], ["-r", "1"], True),
    ("reduce-3", "big", ["-c", "[32,32]"], ["--reduce", "3"], ["-r", "3"], True),
    ("layers-1", "rgb", ["-r", "40,10,1"], ["--layers", "1"], ["-l", "1"], True),
    ("layers-2-rpcl", "rgb", ["-r", "40,10,1", "-p", "RPCL"], ["--layers", "2"], ["-l", "2"], True),
    ("region", "rgb", ["-t", "64,64"], ["--region", "30,40,100,70"], ["-d", "30,40,130,110"],
     True),
    ("region-prec", "big", ["-c", "[32,32]", "-b", "16,16"], ["--region", "301,17,150,220"],
     ["-d", "301,17,451,237"], True),
    ("region-reduce", "big", ["-t", "128,128"], ["--region", "64,64,256,128", "--reduce", "1"],
     ["-d", "64,64,320,192", "-r", "1"], True),
    ("components", "rgb", ["-mct", "0"], ["--components", "1"], ["-c", "1"], True),
    ("97", "rgb", ["-I"], [], [], False),
    ("97-region", "big", ["-I", "-t", "256,256"], ["--region", "100,50,200,150"],
     ["-d", "100,50,300,200"], False),
    ("97-layers", "rgb", ["-I", "-r", "50,10,2"], [], [], False),
    ("97-tiles-prec", "big", ["-I", "-t", "200,150", "-c", "[64,64]", "-p", "RPCL"], [], [], False),
    ("97-gray16", "gray16", ["-I", "-q", "40,60"], [], [], False),
    ("97-offset", "rgb", ["-I", "-d", "7,3", "-T", "2,1", "-t", "80,80"], [], [], False),
    ("97-reduce", "big", ["-I"], ["--reduce", "2"], ["-r", "2"], False),
]


# HTJ2K streams made by OpenJPH (ojph_compress), decoded by both (opj_decompress 2.5 reads HT).
HT_CASES = [
    ("ht-rev", "rgb", ["-reversible", "true"], True),
    ("ht-rev-gray16", "gray16", ["-reversible", "true"], True),
    ("ht-rev-tiles", "big", ["-reversible", "true", "-tile_size", "{128,96}",
                             "-prog_order", "LRCP"], True),
    ("ht-rev-prec", "big", ["-reversible", "true", "-precincts", "{64,64},{32,32}",
                            "-block_size", "{32,32}", "-prog_order", "CPRL"], True),
    ("ht-rev-offset", "rgb", ["-reversible", "true", "-image_offset", "{5,3}",
                              "-tile_offset", "{2,1}", "-tile_size", "{100,100}"], True),
    ("ht-irr", "rgb", ["-qstep", "0.01"], False),
    ("ht-irr-gray", "gray", ["-qstep", "0.002", "-num_decomps", "3"], False),
]
OJPH_C = shutil.which("ojph_compress")


def main():
    if not (TOOL and OPJ_C and OPJ_D and cv2 is not None):
        print("SKIP: needs TSR_TOOL, opj_compress, opj_decompress and cv2")
        return 77
    if not os.path.isdir(os.path.join(DATA, "images")):
        print("SKIP: ../shared/data/images is absent")
        return 77
    quick = os.environ.get("TSR_J2K_CROSS_QUICK") == "1"
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        imgs = make_inputs(tmp)
        for k, (name, src, copt, topt, dopt, rev) in enumerate(CASES):
            if quick and k % 4:
                continue
            ext = ".jp2" if name == "jp2" else ".j2k"
            stream = os.path.join(tmp, name + ext)
            r = subprocess.run([OPJ_C, "-i", imgs[src], "-o", stream] + copt,
                               capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(stream):
                print("FAIL %-16s opj_compress %s: %s" % (name, " ".join(copt),
                                                        r.stdout[-200:] + r.stderr[-200:]))
                failures += 1
                continue
            a = os.path.join(tmp, name + "_t")
            b = os.path.join(tmp, name + "_o")
            os.makedirs(a)
            os.makedirs(b)
            r1 = subprocess.run([TOOL, "j2k", "decode", stream, os.path.join(a, "x.pgx"),
                                 "--quiet"] + topt, capture_output=True, text=True)
            r2 = subprocess.run([OPJ_D, "-i", stream, "-o", os.path.join(b, "x.pgx")] + dopt,
                                capture_output=True, text=True)
            if r1.returncode != 0:
                print("FAIL %-16s tessera: %s" % (name, r1.stderr.strip()[-300:]))
                failures += 1
                continue
            if r2.returncode != 0:
                print("SKIP %-16s opj_decompress failed: %s" % (name, r2.stderr.strip()[-200:]))
                continue
            ta = pgx_set(os.path.join(a, "x"))
            ob = pgx_set(os.path.join(b, "x"))
            why = []
            if len(ta) != len(ob):
                why.append("%d components, opj %d" % (len(ta), len(ob)))
            peak = 0
            for c, (x, y) in enumerate(zip(ta, ob)):
                if x[0] != y[0] or x[1] != y[1]:
                    why.append("c%d depth/sign %s vs %s" % (c, x[:2], y[:2]))
                if x[2].shape != y[2].shape:
                    why.append("c%d size %s vs %s" % (c, x[2].shape, y[2].shape))
                    continue
                d = int(np.abs(x[2] - y[2]).max()) if x[2].size else 0
                peak = max(peak, d)
            maxdepth = max([x[0] for x in ta] or [8])
            limit = 0 if rev else (1 if maxdepth <= 12 else 2)
            if peak > limit:
                why.append("peak difference %d (limit %d)" % (peak, limit))
            status = "FAIL" if why else "PASS"
            failures += bool(why)
            print("%s %-16s %s%s" % (status, name, " ".join(copt + topt),
                                     "" if not why else "  <- " + "; ".join(why)))
            sys.stdout.flush()
        for name, src, copt, rev in HT_CASES:
            if not OJPH_C:
                print("SKIP %-16s ojph_compress absent" % name)
                continue
            stream = os.path.join(tmp, name + ".j2c")
            r = subprocess.run([OJPH_C, "-i", imgs[src] if not imgs[src].endswith(".png")
                                else imgs["rgb"], "-o", stream] + copt,
                               capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL %-16s ojph_compress: %s" % (name, r.stderr.strip()[-200:]))
                failures += 1
                continue
            a = os.path.join(tmp, name + "_t")
            b = os.path.join(tmp, name + "_o")
            os.makedirs(a)
            os.makedirs(b)
            r1 = subprocess.run([TOOL, "j2k", "decode", stream, os.path.join(a, "x.pgx"),
                                 "--quiet"], capture_output=True, text=True)
            if r1.returncode != 0 and "code-block" in r1.stderr and "unsupported" in r1.stderr:
                print("SKIP %-16s HT code-block decoder unavailable in this build" % name)
                continue
            r2 = subprocess.run([OPJ_D, "-i", stream, "-o", os.path.join(b, "x.pgx")],
                                capture_output=True, text=True)
            if r1.returncode != 0:
                print("FAIL %-16s tessera: %s" % (name, r1.stderr.strip()[-300:]))
                failures += 1
                continue
            if r2.returncode != 0:
                print("SKIP %-16s opj_decompress failed" % name)
                continue
            ta = pgx_set(os.path.join(a, "x"))
            ob = pgx_set(os.path.join(b, "x"))
            peak = max([int(np.abs(x[2] - y[2]).max()) for x, y in zip(ta, ob)
                        if x[2].shape == y[2].shape and x[2].size] or [0])
            shapes_ok = len(ta) == len(ob) and all(x[2].shape == y[2].shape
                                                   for x, y in zip(ta, ob))
            maxdepth = max([x[0] for x in ta] or [8])
            limit = 0 if rev else (1 if maxdepth <= 12 else 2)
            ok = shapes_ok and peak <= limit
            # and against OpenJPH's own decoder (PPM/PGM output, unsigned components)
            ojph_x = shutil.which("ojph_expand")
            if ojph_x and ok and len(ta) in (1, 3) and not any(x[1] for x in ta):
                o = os.path.join(tmp, name + ("_j.ppm" if len(ta) == 3 else "_j.pgm"))
                r3 = subprocess.run([ojph_x, "-i", stream, "-o", o], capture_output=True)
                im = cv2.imread(o, cv2.IMREAD_UNCHANGED) if r3.returncode == 0 else None
                if im is not None:
                    im = im[:, :, ::-1] if im.ndim == 3 else im[:, :, None]
                    pk = max(int(np.abs(x[2] - im[:, :, c].astype(np.int64)).max())
                             for c, x in enumerate(ta)) if im.shape[:2] == ta[0][2].shape else 99
                    if pk > limit:
                        ok = False
                        print("     %s: ojph_expand differs by %d" % (name, pk))
            failures += not ok
            print("%s %-16s %s%s" % ("PASS" if ok else "FAIL", name, " ".join(copt),
                                     "" if ok else "  <- peak %d, shapes %s" % (peak, shapes_ok)))
        # With a colour transform, one component alone is still the transformed one: tessera
        # decodes the three together (OpenJPEG skips the transform when asked for a subset).
        full = os.path.join(tmp, "mct_full")
        one = os.path.join(tmp, "mct_one")
        os.makedirs(full)
        os.makedirs(one)
        stream = os.path.join(tmp, "default.j2k")
        subprocess.run([TOOL, "j2k", "decode", stream, os.path.join(full, "x.pgx"), "--quiet"])
        subprocess.run([TOOL, "j2k", "decode", stream, os.path.join(one, "x.pgx"), "--quiet",
                        "--components", "1"])
        fa = pgx_set(os.path.join(full, "x"))
        oa = pgx_set(os.path.join(one, "x"))
        same = len(fa) == 3 and len(oa) == 1 and np.array_equal(fa[1][2], oa[0][2])
        print("%s components-mct   --components 1 equals component 1 of the full decode" %
              ("PASS" if same else "FAIL"))
        failures += not same
    print("cross-check: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
