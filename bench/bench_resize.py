#!/usr/bin/env python3
"""bench_resize.py: tessera's bench_resize and OpenCV's cv2.resize on the same cases, one table.

Runs the bench_resize program (tessera CPU, CUDA, OpenCL and NPP columns; writes JSON), then
times cv2.resize in this process on the same sizes, interpolations and kind of data (3-channel
u8, random, never zero) with cv2.setNumThreads(--threads), warm-up, repeats, median, inputs
rotated among copies larger than the caches. Prints one table with ratios and writes the merged
JSON.

usage: bench_resize.py --bench PATH/bench_resize [--threads N] [--repeats N] [--json FILE]
                       [--cases LIST] [--interps LIST] [extra args for bench_resize after --]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

CASES = {"4k-1080p": (3840, 2160, 1920, 1080), "1080p-720p": (1920, 1080, 1280, 720),
         "1080p-4k": (1920, 1080, 3840, 2160), "8k-4k": (7680, 4320, 3840, 2160),
         "4k-8k": (3840, 2160, 7680, 4320)}


def time_cv2(cv2, interp, sw, sh, dw, dh, repeats, warmup):
    flag = {"linear": cv2.INTER_LINEAR, "nearest": cv2.INTER_NEAREST, "cubic": cv2.INTER_CUBIC,
            "area": cv2.INTER_AREA}[interp]
    rng = np.random.default_rng(1)
    nsets = max(2, min(8, (256 << 20) // (sw * sh * 3 + dw * dh * 3) + 1))
    srcs = [rng.integers(1, 256, size=(sh, sw, 3), dtype=np.uint8) for _ in range(nsets)]
    dsts = [np.empty((dh, dw, 3), np.uint8) for _ in range(nsets)]
    for i in range(warmup):
        cv2.resize(srcs[i % nsets], (dw, dh), dst=dsts[i % nsets], interpolation=flag)
    t = []
    for i in range(repeats):
        k = i % nsets
        t0 = time.perf_counter()
        cv2.resize(srcs[k], (dw, dh), dst=dsts[k], interpolation=flag)
        t.append((time.perf_counter() - t0) * 1e6)
    t.sort()
    return t[len(t) // 2], t[0], t[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--json")
    ap.add_argument("--cases")
    ap.add_argument("--interps")
    ap.add_argument("rest", nargs="*")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as td:
        jpath = os.path.join(td, "b.json")
        cmd = [a.bench, "--json", jpath, "--threads", str(a.threads), "--repeats", str(a.repeats)]
        if a.cases:
            cmd += ["--cases", a.cases]
        if a.interps:
            cmd += ["--interps", a.interps]
        cmd += a.rest
        print("running:", " ".join(cmd), flush=True)
        r = subprocess.run(cmd)
        if r.returncode != 0:
            print("bench_resize failed", r.returncode)
            return r.returncode
        data = json.load(open(jpath))
    try:
        import cv2
    except ImportError:
        cv2 = None
        print("note: cv2 not importable; OpenCV column empty")
    if cv2 is not None:
        cv2.setNumThreads(a.threads)
        print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads, "
              f"optimized={cv2.useOptimized()}")
    rows = data["tables"][0]["rows"]
    out = []
    for row in rows:
        sw, sh, dw, dh = CASES[row["case"]]
        cv = time_cv2(cv2, row["interp"], sw, sh, dw, dh, min(a.repeats, 20), 2) if cv2 else None
        row["opencv_us"] = round(cv[0], 1) if cv else None
        row["opencv_spread"] = f"{cv[1]:.1f}-{cv[2]:.1f}" if cv else None
        out.append(row)

    def num(v):
        return v if isinstance(v, (int, float)) else None

    hdr = ["case", "interp", "opencv us", "tsr cpu us", "tsr cuda us", "npp us", "tsr opencl us",
           "cuda GB/s", "of copy", "opencv/cuda", "opencv/tsr cpu", "npp/cuda"]
    lines = []
    for r in out:
        cv, cpu, cu = r["opencv_us"], num(r.get("cpu us")), num(r.get("cuda us"))
        npp, ocl = num(r.get("npp us")), num(r.get("opencl us"))
        f = lambda v, p=1: "-" if v is None else f"{v:.{p}f}"
        lines.append([r["case"], r["interp"], f(cv), f(cpu), f(cu), f(npp), f(ocl),
                      str(r.get("cuda GB/s", "-")), str(r.get("of copy bw", "-")),
                      f(cv / cu if cv and cu else None, 1), f(cv / cpu if cv and cpu else None, 2),
                      f(npp / cu if npp and cu else None, 2)])
    w = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(hdr)]
    print("\ntessera vs OpenCV (cv2.resize) and NPP, 3-channel u8, median us")
    print("| " + " | ".join(h.ljust(w[i]) for i, h in enumerate(hdr)) + " |")
    print("|" + "|".join("-" * (x + 2) for x in w) + "|")
    for l in lines:
        print("| " + " | ".join(c.rjust(w[i]) if i > 1 else c.ljust(w[i]) for i, c in enumerate(l))
              + " |")
    m = data["machine"]
    print(f"\nmachine: {m}")
    if a.json:
        data["tables"][0]["rows"] = out
        data["opencv"] = {"version": cv2.__version__ if cv2 else None, "threads": a.threads}
        json.dump(data, open(a.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
