#!/usr/bin/python3
"""CPU resize benchmark: tessera's cpu backend (ctypes, TSR_LIBRARY) beside cv2.resize, same
inputs, same run, same thread count (cv2.setNumThreads). Prints median ms, spread and the ratio.

Usage: bench_resize_cpu.py [--threads 2] [--repeats 15] [--interp linear,nearest,cubic,area]
Run with Debian's /usr/bin/python3 (numpy, cv2)."""
import argparse
import ctypes
import os
import statistics
import sys
import time

import numpy as np
import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "oracle"))
from test_resize_opencv import BACKENDS, CV_INTERP, CtxOptions, Tessera, load_library  # noqa: E402

SIZES = {"8K": (7680, 4320), "4K": (3840, 2160), "1080p": (1920, 1080), "720p": (1280, 720)}
PAIRS = [("4K", "1080p"), ("1080p", "720p"), ("1080p", "4K"), ("8K", "4K"), ("4K", "8K")]


def timed(fn, repeats):
    # Both libraries keep worker threads that spin for a while after a call; on a machine with
    # as many cores as threads the other library's spinning threads would steal the cores, so
    # let them fall asleep before timing.
    time.sleep(0.3)
    fn()  # warm-up
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts), min(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--interp", default="linear,nearest,cubic,area")
    ap.add_argument("--channels", type=int, default=3)
    args = ap.parse_args()

    lib = load_library()
    opt = CtxOptions()
    lib.tsr_ctx_options_init(ctypes.byref(opt))
    opt.backend = BACKENDS["cpu"]
    opt.threads = args.threads
    t = Tessera.__new__(Tessera)
    t.lib = lib
    ctx = ctypes.c_void_p()
    if lib.tsr_ctx_create(ctypes.byref(opt), ctypes.byref(ctx)) != 0:
        print("cannot create a cpu context")
        return 1
    t.ctx = ctx
    cv2.setNumThreads(args.threads)
    cv2.setUseOptimized(True)
    print(f"cv2 {cv2.__version__} threads={args.threads}; tessera cpu threads={args.threads}; "
          f"u8 x{args.channels}; median of {args.repeats}")
    print(f"{'interp':9} {'resize':16} {'opencv ms':>10} {'tessera ms':>11} {'ratio':>7}  "
          f"{'min ocv/tsr ms':>16} {'ratio':>6}   (ratio = opencv / tessera; > 1: tessera faster)")
    rng = np.random.default_rng(1)
    srcs = {}
    for interp in args.interp.split(","):
        for a, b in PAIRS:
            if a not in srcs:
                w, h = SIZES[a]
                srcs[a] = rng.integers(0, 256, (h, w, args.channels), dtype=np.uint8)
            src = srcs[a]
            dsize = SIZES[b]
            ocv_out = cv2.resize(src, dsize, interpolation=CV_INTERP[interp])
            ours = t.resize(src, dsize, 0, 0, interp)
            same = "" if np.array_equal(ours, ocv_out) else "  MISMATCH"
            o_ms, o_min = timed(lambda: cv2.resize(src, dsize, interpolation=CV_INTERP[interp]),
                               args.repeats)
            t_ms, t_min = timed(lambda: t.resize(src, dsize, 0, 0, interp, poison=False), args.repeats)
            print(f"{interp:9} {a + '->' + b:16} {o_ms:10.2f} {t_ms:11.2f} {o_ms / t_ms:7.2f}x "
                  f" {o_min:7.2f}/{t_min:<7.2f} {o_min / t_min:6.2f}x{same}", flush=True)
    t.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
