#!/usr/bin/env python3
"""Thumbnail batches as users run them: a folder of camera JPEGs into thumbnails, the whole
process timed (start-up, decode, resize, encode, files written), images per second, tessera beside
the tools people use for it, in one run.

Inputs: --count JPEGs (default 200) of --size (default 6000x4000, 24 Mpx), quality 90, made once
with /usr/bin/python3's cv2 from ../shared/data/images/desert_mesa_4611x8192.jpg: each a different
3:2 crop (60-100 % of the widest), resized to --size (INTER_CUBIC), flipped one of four ways and
its gain changed by a few percent, so no two files decode alike. They are kept in --inputs DIR
(default: a folder in the system's temporary directory, reused while count and size match).

Every tool writes a JPEG thumbnail --thumb wide (default 256, the height keeping the aspect ratio)
at quality 95 (tessera's default) into an empty folder, with --threads workers (default: every
core):
  tessera cpu    tessera resize IN... OUT/ --size 256x --interp area --backend cpu --threads N
  tessera cuda   the same with --backend cuda (when tessera has CUDA and a GPU answers)
  tessera cuda-nvjpeg  the same with --backend cuda --jpeg-decoder nvjpeg: the JPEGs decoded on
                 the GPU by nvJPEG (its hardware decoders) and resized there (when libnvjpeg
                 loads). nvJPEG's pixels are not libjpeg-turbo's (another IDCT and chroma
                 upsampling), so its thumbnails are not OpenCV-exact: the check below says by
                 how much.
  vipsthumbnail  one process per N-th of the files (xargs -P N), `-s 256x -o OUT/%s.jpg[Q=95]`;
                 libvips' own threads left at their default. Its JPEG shrink-on-load decodes at
                 1/2, 1/4 or 1/8 scale first and resizes from there (with its own kernel), so its
                 thumbnails are a different image: the check below says how different.
  convert        ImageMagick (Debian's /usr/bin/convert), one process per image, N at a time
                 (xargs -P N): `convert IN -resize 256x -quality 95 OUT`; its OpenMP threads left
                 at their default.
  opencv         one Python process with a multiprocessing Pool of N workers, each
                 cv2.imread, cv2.resize(INTER_AREA), cv2.imwrite(IMWRITE_JPEG_QUALITY 95), with
                 cv2.setNumThreads(1) in the workers (the pool is the parallelism).
After an untimed warm-up of every tool on a few files, --rounds rounds (default 3) run each tool
once, in an order rotated every round; the table gives the median images/s, the spread (min-max)
and the ratio of each tool to tessera (a ratio above 1: tessera is faster).

Exactness: tessera's thumbnails of every input, written as PNG in a separate untimed run (per
backend), are compared pixel for pixel with cv2.resize(cv2.imread(IN), INTER_AREA). Every timed
run's JPEG thumbnails are decoded and compared with that reference (JPEG's own loss included)
and with the OpenCV loop's JPEG thumbnails, decoded: identical there means the same JPEG pixels
as the OpenCV loop writes. Each cell gives the images identical of all, else the largest
difference of a sample and the PSNR over all images.

usage: bench_thumbs.py TESSERA [--count 200] [--size 6000x4000] [--thumb 256] [--threads N]
                              [--rounds 3] [--backends cpu,cuda,cuda-nvjpeg]
                              [--inputs DIR] [--md out.md]
                              [--python /usr/bin/python3] [--source IMAGE]
"""
import argparse
import math
import multiprocessing
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.environ.get("TSR_DATA", os.path.join(HERE, "..", "..", "shared", "data")),
                      "images", "desert_mesa_4611x8192.jpg")
PY = "/usr/bin/python3"  # Debian's, with cv2 and numpy (--python names another)

MAKE_INPUTS = r"""
import sys, os, random, cv2, numpy as np
from multiprocessing import Pool
src_path, out_dir, count, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
src = cv2.imread(src_path, cv2.IMREAD_COLOR)
def make(i):
    rng = random.Random(i)
    sh, sw = src.shape[:2]
    cw = min(sw, sh * w // h)
    scale = rng.uniform(0.6, 1.0)
    cw = int(cw * scale); ch = cw * h // w
    x, y = rng.randint(0, sw - cw), rng.randint(0, sh - ch)
    img = cv2.resize(src[y:y + ch, x:x + cw], (w, h), interpolation=cv2.INTER_CUBIC)
    flip = rng.choice([None, 0, 1, -1])
    if flip is not None:
        img = cv2.flip(img, flip)
    img = cv2.convertScaleAbs(img, alpha=rng.uniform(0.94, 1.06), beta=rng.uniform(-6, 6))
    path = os.path.join(out_dir, "cam%04d.jpg" % i)
    cv2.imwrite(path + ".part.jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    os.rename(path + ".part.jpg", path)
cv2.setNumThreads(1)
with Pool() as p:
    p.map(make, range(count))
"""

OPENCV_LOOP = r"""
import sys, os, cv2
from multiprocessing import Pool
out_dir, width, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
files = sys.argv[4:]
def init():
    cv2.setNumThreads(1)
def one(path):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    h, w = img.shape[:2]
    th = max(1, (2 * h * width + w) // (2 * w))  # round(h * width / w), halves up
    small = cv2.resize(img, (width, th), interpolation=cv2.INTER_AREA)
    cv2.imwrite(os.path.join(out_dir, os.path.basename(path)), small, [cv2.IMWRITE_JPEG_QUALITY, 95])
with Pool(threads, initializer=init) as p:
    p.map(one, files, chunksize=1)
"""

COMPARE = r"""
import sys, os, cv2, numpy as np
from multiprocessing import Pool
width, cv_dir, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
# lines of "DIR EXT" on stdin: thumbnails to compare with cv2.resize(INTER_AREA) of each input
# (in memory) and with the OpenCV loop's JPEG of it (decoded)
dirs = [l.split() for l in sys.stdin.read().splitlines() if l.strip()]
def add(s, got, want):  # s: identical, max diff, squared error, samples, missing
    if got is None or want is None or got.shape != want.shape:
        s[4] += 1
        return
    diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
    s[0] += int(not diff.any())
    s[1] = max(s[1], int(diff.max()))
    s[2] += float((diff.astype(np.float64) ** 2).sum())
    s[3] += diff.size
def one(f):
    cv2.setNumThreads(1)
    img = cv2.imread(f, cv2.IMREAD_COLOR)
    h, w = img.shape[:2]
    th = max(1, (2 * h * width + w) // (2 * w))
    raw = cv2.resize(img, (width, th), interpolation=cv2.INTER_AREA)
    base = os.path.splitext(os.path.basename(f))[0]
    cvjpeg = cv2.imread(os.path.join(cv_dir, base + ".jpg"), cv2.IMREAD_COLOR)
    out = {}
    for d, ext in dirs:
        got = cv2.imread(os.path.join(d, base + ext), cv2.IMREAD_COLOR)
        for r, want in (("raw", raw), ("jpeg", cvjpeg)):
            out[(d, r)] = [0, 0, 0.0, 0, 0]
            add(out[(d, r)], got, want)
    return out
stats = {}
with Pool() as p:
    for out in p.imap_unordered(one, files):
        for k, (e, m, se, n, miss) in out.items():
            t = stats.setdefault(k, [0, 0, 0.0, 0, 0])
            t[0] += e; t[1] = max(t[1], m); t[2] += se; t[3] += n; t[4] += miss
for (d, r), (e, m, se, n, miss) in stats.items():
    psnr = "inf" if se == 0 and n else ("%.1f" % (10 * np.log10(255.0 ** 2 * n / se)) if n else "-")
    print(d, r, e, m, psnr, miss)
"""


def sh(cmd, env=None, stdin=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       input=stdin)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd[:6]), p.returncode,
                                                   p.stderr.strip()[-2000:]))
    return p.stdout


def make_inputs(folder, count, w, h):
    """--count camera-like JPEGs in folder (kept; remade when count or size differ)."""
    stamp = os.path.join(folder, "inputs.txt")
    want = "%d %dx%d\n" % (count, w, h)
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    t0 = time.perf_counter()
    sh([PY, "-c", MAKE_INPUTS, SOURCE, folder, str(count), str(w), str(h)])
    open(stamp, "w").write(want)
    print("made %d inputs %dx%d in %.0f s" % (count, w, h, time.perf_counter() - t0),
          file=sys.stderr)


# a --backends entry -> tessera's options for it
BACKEND_ARGS = {"cpu": ["--backend", "cpu"], "cuda": ["--backend", "cuda"],
                "cuda-nvjpeg": ["--backend", "cuda", "--jpeg-decoder", "nvjpeg"],
                "reference": ["--backend", "reference"], "opencl": ["--backend", "opencl"]}


def tools(args, files):
    """name -> (how it runs, a function(out_dir) that runs it once over files)."""
    n = args.threads
    per = max(1, math.ceil(len(files) / n))
    t = {}
    for b in args.backends:
        t["tessera " + b] = (
            "`tessera resize IN... OUT/ --size %dx --interp area %s --threads %d`"
            % (args.thumb, " ".join(BACKEND_ARGS[b]), n),
            lambda out, b=b, fl=files: sh([args.tessera, "resize"] + fl + [
                out, "--size", "%dx" % args.thumb, "--interp", "area"] + BACKEND_ARGS[b] + [
                "--threads", str(n), "--quiet"]))
    if shutil.which("vipsthumbnail"):
        t["vipsthumbnail"] = (
            "`xargs -P %d -n %d vipsthumbnail -s %dx -o OUT/%%s.jpg[Q=95]` (shrink-on-load)"
            % (n, per, args.thumb),
            lambda out, fl=files: sh(["xargs", "-0", "-P", str(n), "-n", str(per),
                                      "vipsthumbnail", "-s", "%dx" % args.thumb, "-o",
                                      os.path.join(out, "%s.jpg[Q=95]")],
                                     stdin="\0".join(fl)))
    convert = "/usr/bin/convert" if os.path.exists("/usr/bin/convert") else shutil.which("convert")
    if convert:
        t["convert"] = (
            "`xargs -P %d -n 2 convert IN -resize %dx -quality 95 OUT` (a process per image)"
            % (n, args.thumb),
            lambda out, fl=files: sh(
                ["xargs", "-0", "-P", str(n), "-n", "2", "sh", "-c",
                 convert + ' "$1" -resize %dx -quality 95 "$2"' % args.thumb, "sh"],
                stdin="\0".join(x for f in fl for x in (f, os.path.join(
                    out, os.path.basename(f))))))
    t["opencv"] = (
        "Python multiprocessing Pool(%d): cv2.imread, resize INTER_AREA, imwrite q 95" % n,
        lambda out, fl=files: sh([PY, "-c", OPENCV_LOOP, out, str(args.thumb), str(n)] + fl))
    return t


def timed(fn, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    t0 = time.perf_counter()
    fn(out)
    return time.perf_counter() - t0


def machine():
    cpu = platform.processor() or "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = ""
    if shutil.which("nvidia-smi"):
        try:
            gpu = sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
            gpu = gpu.strip().replace("\n", "; ")
        except RuntimeError:
            gpu = ""
    return "%s, %d cores%s" % (cpu, os.cpu_count(), (", GPU " + gpu) if gpu else ", no GPU")


def versions(args):
    v = [sh([args.tessera, "--version"]).splitlines()[0]]
    if shutil.which("vipsthumbnail"):
        v.append("vipsthumbnail " + sh(["vipsthumbnail", "--vips-version"]).strip())
    if os.path.exists("/usr/bin/convert"):
        v.append(sh(["/usr/bin/convert", "-version"]).splitlines()[0].replace("Version: ", ""))
    v.append("OpenCV " + sh([PY, "-c", "import cv2; print(cv2.__version__)"]).strip())
    return "; ".join(v)


def backend_works(tessera, one_file, b):
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([tessera, "resize", one_file, os.path.join(d, "t.png"), "--size", "8x"]
                           + BACKEND_ARGS[b] + ["--quiet"], capture_output=True)
        return p.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tessera")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--size", default="6000x4000")
    ap.add_argument("--thumb", type=int, default=256)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--backends", default="cpu,cuda,cuda-nvjpeg")
    ap.add_argument("--inputs", default=os.path.join(tempfile.gettempdir(), "tessera-bench-thumbs"))
    ap.add_argument("--md", help="write the results table here (markdown)")
    ap.add_argument("--python", default=PY, help="a Python with cv2 and numpy")
    ap.add_argument("--source", default=SOURCE, help="the image the inputs are made from")
    args = ap.parse_args()
    globals().update(PY=args.python, SOURCE=args.source)
    if not os.path.isfile(SOURCE):
        sys.exit(f"bench_thumbs: no source image {SOURCE} (set --source or TSR_DATA)")
    args.tessera = os.path.abspath(args.tessera)
    w, h = (int(x) for x in args.size.lower().split("x"))
    make_inputs(args.inputs, args.count, w, h)
    files = sorted(os.path.join(args.inputs, f) for f in os.listdir(args.inputs)
                   if f.endswith(".jpg"))[:args.count]
    args.backends = [b for b in args.backends.split(",") if b]
    for b in [b for b in args.backends if b.startswith("cuda")]:
        if not backend_works(args.tessera, files[0], b):
            print("note: tessera's %s does not run here (%s); not timed"
                  % (b, " ".join(BACKEND_ARGS[b])), file=sys.stderr)
            args.backends.remove(b)
    table = tools(args, files)
    load_before = os.getloadavg()
    work = tempfile.mkdtemp(prefix="bench-thumbs-")
    try:
        few = files[:min(len(files), 2 * args.threads)]
        for name, (_, fn) in tools(args, few).items():  # warm-up: page cache, libraries, GPU
            timed(fn, os.path.join(work, "warm"))
        times = {name: [] for name in table}
        names = list(table)
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                dt = timed(table[name][1], os.path.join(work, name.replace(" ", "_")))
                times[name].append(dt)
                print("round %d %-14s %7.2f s  %7.1f images/s" % (r + 1, name, dt,
                                                                   len(files) / dt),
                      file=sys.stderr)
        # exactness: tessera's thumbnails as PNG (links named .png to the inputs: tessera
        # reads by content and writes the format of the name), and the others' timed JPEGs
        png_cmd_dir = os.path.join(work, "tessera_png_named")
        os.makedirs(png_cmd_dir)
        links = []
        for f in files:
            base = os.path.splitext(os.path.basename(f))[0]
            links.append(os.path.join(png_cmd_dir, base + ".png"))
            os.symlink(f, links[-1])
        pngout = os.path.join(work, "tessera_png_out")
        os.makedirs(pngout)
        for b in args.backends:
            d = os.path.join(pngout, b)
            os.makedirs(d)
            sh([args.tessera, "resize"] + links + [d, "--size", "%dx" % args.thumb, "--interp",
               "area"] + BACKEND_ARGS[b] + ["--threads", str(args.threads), "--quiet"])
        dirs = [(os.path.join(pngout, b), ".png") for b in args.backends]
        dirs += [(os.path.join(work, n.replace(" ", "_")), ".jpg") for n in names]
        cmp = {}
        for line in sh([PY, "-c", COMPARE, str(args.thumb), os.path.join(work, "opencv")] + files,
                       stdin="\n".join("%s %s" % d for d in dirs)).splitlines():
            d, r, eq, mx, psnr, miss = line.split()
            cmp[(d, r)] = (int(eq), int(mx), psnr, int(miss))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def exact(d, r):
        eq, mx, psnr, miss = cmp[(d, r)]
        if miss:
            return "%d outputs missing or of another size" % miss
        if eq == len(files):
            return "identical (%d/%d)" % (eq, len(files))
        return "%d/%d identical, max diff %d, PSNR %s dB" % (eq, len(files), mx, psnr)

    load_after = os.getloadavg()
    ips = {n: len(files) / statistics.median(t) for n, t in times.items()}
    refs = ["tessera " + b for b in args.backends]
    lines = [
        "Machine: %s. %s." % (machine(), versions(args)),
        "",
        "%d JPEGs %s (q 90) -> JPEG thumbnails %d wide (q 95), %d threads/processes, median of "
        "%d rounds (whole process, files written). Load average (1 min) %.1f before, %.1f after."
        % (len(files), args.size, args.thumb, args.threads, args.rounds, load_before[0],
           load_after[0]),
        "",
        "| tool | how it runs | images/s (median) | spread (min-max) | %s | "
        "thumbnails vs cv2.resize INTER_AREA | JPEG vs the OpenCV loop's JPEG |"
        % " | ".join("%s / tool" % r for r in refs),
        "|---|---|---:|---:|%s---|---|" % ("---:|" * len(refs)),
    ]
    for n in names:
        spread = "%.1f-%.1f" % (len(files) / max(times[n]), len(files) / min(times[n]))
        d = os.path.join(work, n.replace(" ", "_"))
        check = "JPEG: " + exact(d, "raw")
        if n.startswith("tessera "):
            check = "PNG run: " + exact(os.path.join(pngout, n.split()[1]), "raw") + "; " + check
        ratios = " | ".join("%.2f" % (ips[r] / ips[n]) for r in refs)
        lines.append("| %s | %s | %.2f | %s | %s | %s | %s |" % (
            n, table[n][0], ips[n], spread, ratios, check, exact(d, "jpeg")))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
