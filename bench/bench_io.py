#!/usr/bin/env python3
"""bench_io.py: tessera's image I/O (bench_io) beside OpenCV's imdecode / imencode, one table.

Runs the bench_io program on IMAGE (decode; PNG levels 1, 3, 6; JPEG q95; 1 thread and all),
then times cv2.imdecode of the same file and cv2.imencode of the decoded image with the same
settings (IMWRITE_PNG_COMPRESSION, IMWRITE_JPEG_QUALITY; cv2.setNumThreads(--threads)) in this
process: warm-up, repeats, median. Prints the merged table with tessera's speedup over OpenCV
and the file sizes of both.

usage: bench_io.py --bench PATH/bench_io IMAGE [--threads N] [--repeats N] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def median_ms(fn, repeats):
    fn()
    t = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        t.append((time.perf_counter() - t0) * 1e3)
    t.sort()
    return t[len(t) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("image")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    import cv2
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench_io.json")
        subprocess.run([a.bench, a.image, "--repeats", str(a.repeats), "--threads",
                        str(a.threads), "--json", out, "--out", tmp], check=True)
        with open(out) as f:
            tsr = json.load(f)
    rows = tsr["tables"][0]["rows"]
    cv2.setNumThreads(a.threads)
    data = np.fromfile(a.image, dtype=np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    peers = {"decode input": (lambda: cv2.imdecode(data, cv2.IMREAD_UNCHANGED), None)}
    for lv in (1, 3, 6):
        prm = [cv2.IMWRITE_PNG_COMPRESSION, lv]
        peers["PNG level %d" % lv] = (lambda prm=prm: cv2.imencode(".png", img, prm),
                                      len(cv2.imencode(".png", img, prm)[1]))
    prm = [cv2.IMWRITE_JPEG_QUALITY, 95]
    peers["JPEG q95"] = (lambda: cv2.imencode(".jpg", img, prm),
                         len(cv2.imencode(".jpg", img, prm)[1]))
    print("\ntessera vs OpenCV %s (%d threads; median ms; speedup > 1: tessera faster)"
          % (cv2.__version__, a.threads))
    print("| step | tessera 1 thread | tessera all | OpenCV | OpenCV/tessera | tessera bytes | OpenCV bytes |")
    print("|---|---|---|---|---|---|---|")
    merged = []
    for r in rows:
        name = r["step"]
        fn, size = peers[name]
        ms = median_ms(fn, a.repeats)
        merged.append(dict(r, opencv_ms=ms, opencv_bytes=size))
        print("| %s | %.1f | %.1f | %.1f | %.2f | %s | %s |" % (
            name, r["1 thread ms"], r["all ms"], ms, ms / r["all ms"], r["file bytes"],
            size if size is not None else "-"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"benchmark": "bench_io", "tessera": tsr, "rows": merged}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
