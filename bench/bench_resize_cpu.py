#!/usr/bin/python3
"""CPU resize benchmark: tessera's cpu backend (ctypes, TSR_LIBRARY) beside cv2.resize, same
inputs, same run, same thread count (cv2.setNumThreads). Both write into an output allocated
once per case (cv2.resize(..., dst=out)), so that page faults of a fresh output do not blur the
kernels' times. The two libraries are interleaved in rounds (a short pause, a warm-up call, then
--per-round timed calls of one library, then of the other) so that a machine shared with other
work loads both alike; min and median are over all timed calls.

Usage: bench_resize_cpu.py [--threads 2] [--rounds 8] [--per-round 5]
                           [--interp linear,nearest,cubic,area] [--pairs 4K-1080p,...]
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
from test_resize_opencv import (BACKENDS, CV_INTERP, INTERPS, CtxOptions, Image,  # noqa: E402
                                ResizeOptions, Tessera, load_library)

SIZES = {"8K": (7680, 4320), "4K": (3840, 2160), "1080p": (1920, 1080), "720p": (1280, 720)}
PAIRS = [("4K", "1080p"), ("1080p", "720p"), ("1080p", "4K"), ("8K", "4K"), ("4K", "8K")]


def rounds(fns, n_rounds, per_round):
    """Times each of fns in interleaved rounds; returns [(min ms, median ms)] in fns' order."""
    times = [[] for _ in fns]
    for _ in range(n_rounds):
        for fn, ts in zip(fns, times):
            # The other library's worker threads spin for a while after its last call; on a
            # machine with as many cores as threads they would steal the cores, so let them
            # fall asleep first.
            time.sleep(0.05)
            fn()  # warm-up
            for _ in range(per_round):
                t0 = time.perf_counter()
                fn()
                ts.append((time.perf_counter() - t0) * 1e3)
    return [(min(ts), statistics.median(ts)) for ts in times]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--per-round", type=int, default=5)
    ap.add_argument("--interp", default="linear,nearest,cubic,area")
    ap.add_argument("--pairs", default=",".join(f"{a}-{b}" for a, b in PAIRS))
    ap.add_argument("--channels", type=int, default=3)
    args = ap.parse_args()

    lib = load_library()
    opt = CtxOptions()
    lib.tsr_ctx_options_init(ctypes.byref(opt))
    opt.backend = BACKENDS["cpu"]
    opt.threads = args.threads
    ctx = ctypes.c_void_p()
    if lib.tsr_ctx_create(ctypes.byref(opt), ctypes.byref(ctx)) != 0:
        print("cannot create a cpu context")
        return 1
    cv2.setNumThreads(args.threads)
    cv2.setUseOptimized(True)
    n = args.rounds * args.per_round
    print(f"cv2 {cv2.__version__} threads={args.threads}; tessera cpu threads={args.threads}; "
          f"u8 x{args.channels}; {args.rounds} interleaved rounds of {args.per_round} "
          f"(min and median of {n} calls each)")
    print(f"{'interp':9} {'resize':13} {'ocv min':>8} {'tsr min':>8} {'ratio':>6}  "
          f"{'ocv med':>8} {'tsr med':>8} {'ratio':>6}   (ratio = opencv / tessera; >= 1: "
          f"tessera as fast or faster)")
    rng = np.random.default_rng(1)
    srcs = {}
    for interp in args.interp.split(","):
        for pair in args.pairs.split(","):
            a, b = pair.split("-")
            if a not in srcs:
                w, h = SIZES[a]
                srcs[a] = rng.integers(0, 256, (h, w, args.channels), dtype=np.uint8)
            src = srcs[a]
            dsize = SIZES[b]
            ocv_out = np.empty((dsize[1], dsize[0], args.channels), np.uint8)
            tsr_out = np.full_like(ocv_out, 0xA5)
            si, di = Tessera._image(src), Tessera._image(tsr_out)
            ropt = ResizeOptions(INTERPS.index(interp), 0, 0)
            refs = (ctypes.byref(si), ctypes.byref(di), ctypes.byref(ropt))

            def run_ocv():
                cv2.resize(src, dsize, dst=ocv_out, interpolation=CV_INTERP[interp])

            def run_tsr():
                if lib.tsr_resize(ctx, *refs) != 0:
                    raise RuntimeError(lib.tsr_ctx_last_error(ctx).decode())

            run_ocv()
            run_tsr()
            same = "" if np.array_equal(tsr_out, ocv_out) else "  MISMATCH"
            (o_min, o_med), (t_min, t_med) = rounds([run_ocv, run_tsr], args.rounds,
                                                    args.per_round)
            print(f"{interp:9} {a + '->' + b:13} {o_min:8.2f} {t_min:8.2f} {o_min / t_min:5.2f}x"
                  f"  {o_med:8.2f} {t_med:8.2f} {o_med / t_med:5.2f}x{same}", flush=True)
    lib.tsr_ctx_destroy(ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
