#!/usr/bin/python3
"""Oracle test: tsr_resize against cv2.resize, byte for byte.

Loads libtessera through ctypes (TSR_LIBRARY), resizes random images (random sizes, ratios,
channels 1-4, u8/u16/f32, every interpolation, the size-given and the scale-given forms) and the
sample photographs in $TSR_DATA/images, and compares with cv2.resize run in the same process, once
with cv2.setUseOptimized(False) and once with the default. Every backend must give exactly
OpenCV's output: 0 mismatching samples for u8, u16 and f32 alike (f32 is compared exactly too:
the plan reproduces OpenCV's float operation order, including its SIMD loops, so no tolerance
is needed; -0.0 == +0.0 is the only liberty taken).

Usage: test_resize_opencv.py [--backend reference,cpu] [--cases N] [--seed S] [--no-images]
Backends also come from TSR_TEST_BACKEND. Exit 0 = all equal, 1 = mismatches, 77 = skipped
(no numpy/cv2, or no library).
"""
import argparse
import ctypes
import glob
import os
import sys
import time

try:
    import numpy as np
    import cv2
except ImportError as e:  # pragma: no cover
    print(f"skip: needs numpy and cv2 ({e}); run with Debian's /usr/bin/python3")
    sys.exit(77)

# ---- ctypes mirror of include/tessera/core.h and resize.h -------------------------------------
TSR_OK = 0
BACKENDS = {"auto": 0, "cpu": 1, "reference": 2, "cuda": 3, "opencl": 4}
DEPTHS = {"u8": (1, np.uint8), "u16": (2, np.uint16), "f32": (4, np.float32)}
INTERPS = ["nearest", "linear", "cubic", "area", "lanczos4", "linear-exact"]
CV_INTERP = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR, "cubic": cv2.INTER_CUBIC,
             "area": cv2.INTER_AREA, "lanczos4": cv2.INTER_LANCZOS4,
             "linear-exact": cv2.INTER_LINEAR_EXACT}


class Allocator(ctypes.Structure):
    _fields_ = [("alloc", ctypes.c_void_p), ("free", ctypes.c_void_p), ("user", ctypes.c_void_p)]


class CtxOptions(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_int), ("device", ctypes.c_int), ("threads", ctypes.c_int),
                ("cuda_stream", ctypes.c_void_p), ("allocator", Allocator),
                ("max_image_pixels", ctypes.c_uint64), ("max_memory", ctypes.c_uint64),
                ("progress", ctypes.c_void_p), ("progress_user", ctypes.c_void_p)]


class Image(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int32), ("height", ctypes.c_int32),
                ("channels", ctypes.c_int32), ("depth", ctypes.c_int), ("stride", ctypes.c_size_t),
                ("data", ctypes.c_void_p), ("memory", ctypes.c_int)]


class ResizeOptions(ctypes.Structure):
    _fields_ = [("interp", ctypes.c_int), ("scale_x", ctypes.c_double),
                ("scale_y", ctypes.c_double)]


def load_library():
    path = os.environ.get("TSR_LIBRARY")
    if not path or not os.path.exists(path):
        print(f"skip: TSR_LIBRARY ({path}) not found")
        sys.exit(77)
    lib = ctypes.CDLL(path)
    lib.tsr_ctx_options_init.argtypes = [ctypes.POINTER(CtxOptions)]
    lib.tsr_ctx_create.argtypes = [ctypes.POINTER(CtxOptions), ctypes.POINTER(ctypes.c_void_p)]
    lib.tsr_ctx_destroy.argtypes = [ctypes.c_void_p]
    lib.tsr_ctx_last_error.argtypes = [ctypes.c_void_p]
    lib.tsr_ctx_last_error.restype = ctypes.c_char_p
    lib.tsr_status_name.argtypes = [ctypes.c_int]
    lib.tsr_status_name.restype = ctypes.c_char_p
    lib.tsr_resize.argtypes = [ctypes.c_void_p, ctypes.POINTER(Image), ctypes.POINTER(Image),
                               ctypes.POINTER(ResizeOptions)]
    lib.tsr_resize_size.argtypes = [ctypes.c_int32, ctypes.c_int32, ctypes.c_double,
                                    ctypes.c_double, ctypes.POINTER(ctypes.c_int32),
                                    ctypes.POINTER(ctypes.c_int32)]
    lib.tsr_backend_available.argtypes = [ctypes.c_int]
    return lib


class Tessera:
    def __init__(self, lib, backend):
        self.lib = lib
        opt = CtxOptions()
        lib.tsr_ctx_options_init(ctypes.byref(opt))
        opt.backend = BACKENDS[backend]
        ctx = ctypes.c_void_p()
        st = lib.tsr_ctx_create(ctypes.byref(opt), ctypes.byref(ctx))
        if st != TSR_OK:
            msg = lib.tsr_ctx_last_error(ctx).decode() if ctx.value else ""
            if ctx.value:
                lib.tsr_ctx_destroy(ctx)
            raise RuntimeError(f"backend {backend}: {lib.tsr_status_name(st).decode()} {msg}")
        self.ctx = ctx

    def close(self):
        self.lib.tsr_ctx_destroy(self.ctx)

    @staticmethod
    def _image(arr):
        h, w = arr.shape[:2]
        cn = 1 if arr.ndim == 2 else arr.shape[2]
        depth = {np.uint8: 1, np.uint16: 2, np.float32: 4}[arr.dtype.type]
        return Image(w, h, cn, depth, arr.strides[0], arr.ctypes.data, 0)

    def resize(self, src, dsize, fx, fy, interp, poison=True):
        """dsize (w, h) given: fx = fy = 0; else dsize from tsr_resize_size(fx, fy)."""
        h, w = src.shape[:2]
        if fx:
            ow, oh = ctypes.c_int32(), ctypes.c_int32()
            st = self.lib.tsr_resize_size(w, h, fx, fy, ctypes.byref(ow), ctypes.byref(oh))
            if st != TSR_OK:
                raise RuntimeError("tsr_resize_size failed")
            dsize = (ow.value, oh.value)
        shape = (dsize[1], dsize[0]) + src.shape[2:]
        dst = np.empty(shape, src.dtype)
        if poison:
            dst.view(np.uint8)[...] = 0xA5
        opt = ResizeOptions(INTERPS.index(interp), fx, fy)
        si, di = self._image(src), self._image(dst)
        st = self.lib.tsr_resize(self.ctx, ctypes.byref(si), ctypes.byref(di), ctypes.byref(opt))
        if st != TSR_OK:
            raise RuntimeError(f"tsr_resize: {self.lib.tsr_status_name(st).decode()}: "
                               f"{self.lib.tsr_ctx_last_error(self.ctx).decode()}")
        return dst


# ---- cases --------------------------------------------------------------------------------------
def random_image(rng, w, h, cn, depth):
    shape = (h, w) if cn == 1 else (h, w, cn)
    if depth == "u8":
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if depth == "u16":
        return rng.integers(0, 65536, shape, dtype=np.uint16)
    return (rng.random(shape, dtype=np.float32) * 2 - 0.5).astype(np.float32)


def random_cases(rng, n):
    """(w, h, cn, depth, interp, dsize or None, fx, fy); a mix of the shapes that exercise
    OpenCV's special paths: exact 2x/3x decimation, upscales, one axis, 1-pixel results, odd
    widths that leave SIMD tails, exact 3:2 downscales, and random ratios in both forms."""
    out = []
    kinds = ["random", "random", "size2x", "int", "up", "one_axis", "tiny", "scale", "three_halves"]
    for i in range(n):
        interp = INTERPS[i % len(INTERPS)]
        depth = ["u8", "u16", "f32"][(i // len(INTERPS)) % 3]
        cn = int(rng.integers(1, 5))
        kind = kinds[int(rng.integers(0, len(kinds)))]
        w, h = int(rng.integers(1, 160)), int(rng.integers(1, 120))
        dsize, fx, fy = None, 0.0, 0.0
        if kind == "random":
            dsize = (int(rng.integers(1, 200)), int(rng.integers(1, 160)))
        elif kind == "size2x":
            w, h = 2 * int(rng.integers(1, 80)), 2 * int(rng.integers(1, 60))
            if rng.integers(0, 2):
                w += 1  # odd source: OpenCV rounds the size, the last cell is partial
            dsize = (int(round(w / 2)), int(round(h / 2)))
        elif kind == "int":
            f = int(rng.integers(2, 6))
            fx = fy = 1.0 / f
        elif kind == "up":
            fx, fy = float(rng.choice([2.0, 3.0, 1.5, 4.0, 2.5])), float(rng.choice([2.0, 1.25, 3.0]))
        elif kind == "one_axis":
            dsize = (w, int(rng.integers(1, 200))) if rng.integers(0, 2) else (int(rng.integers(1, 200)), h)
        elif kind == "three_halves":
            a, b = int(rng.integers(1, 60)), int(rng.integers(1, 40))
            w, h, dsize = 3 * a, 3 * b, (2 * a, 2 * b)
        elif kind == "tiny":
            dsize = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        else:
            fx, fy = float(rng.uniform(0.1, 3.0)), float(rng.uniform(0.1, 3.0))
        if fx:
            if round(w * fx) < 1 or round(h * fy) < 1:
                fx, fy = 1.0, 1.0
                dsize = (max(1, w // 2), h)
                fx = fy = 0.0
        if dsize == (w, h) and kind != "one_axis":
            dsize = (w + 1, h)
        out.append((w, h, cn, depth, interp, dsize, fx, fy))
    return out


def compare(ours, ref):
    """Number of mismatching samples (exact; -0.0 equals +0.0) and the largest difference."""
    if ours.shape != ref.shape:
        return ours.size, float("inf")
    if ours.dtype == np.float32:
        bad = ~((ours == ref) | (np.isnan(ours) & np.isnan(ref)))
    else:
        bad = ours != ref
    n = int(np.count_nonzero(bad))
    diff = float(np.max(np.abs(ours.astype(np.float64) - ref.astype(np.float64)))) if n else 0.0
    return n, diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default=os.environ.get("TSR_TEST_BACKEND", "reference,cpu"))
    ap.add_argument("--cases", type=int, default=int(os.environ.get("TSR_RESIZE_CASES", "600")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("TSR_SEED", "20240601")))
    ap.add_argument("--no-images", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()

    lib = load_library()
    print(f"cv2 {cv2.__version__}, numpy {np.__version__}, seed {args.seed}, cases {args.cases}")
    backends = []
    for name in args.backend.split(","):
        name = name.strip()
        if name not in BACKENDS:
            print(f"unknown backend {name}")
            return 2
        if not lib.tsr_backend_available(BACKENDS[name]):
            print(f"note: backend {name} is not available here; skipped")
            continue
        backends.append((name, Tessera(lib, name)))
    if not backends:
        print("skip: no requested backend is available")
        return 77

    rng = np.random.default_rng(args.seed)
    stats = {}  # (backend, optimized, interp, depth) -> [cases, bad cases, bad samples, max diff]
    failures = []

    def run_one(label, src, dsize, fx, fy, interp):
        for optimized in (False, True):
            cv2.setUseOptimized(optimized)
            if fx:
                want = cv2.resize(src, (0, 0), fx=fx, fy=fy, interpolation=CV_INTERP[interp])
            else:
                want = cv2.resize(src, dsize, interpolation=CV_INTERP[interp])
            depth = {np.uint8: "u8", np.uint16: "u16", np.float32: "f32"}[src.dtype.type]
            for name, t in backends:
                try:
                    got = t.resize(src, dsize, fx, fy, interp)
                    n, diff = compare(got, want)
                except RuntimeError as e:
                    n, diff = -1, float("nan")
                    print(f"ERROR {label}: {e}")
                key = (name, "opt" if optimized else "plain", interp, depth)
                s = stats.setdefault(key, [0, 0, 0, 0.0])
                s[0] += 1
                if n != 0:
                    s[1] += 1
                    s[2] += max(n, 0)
                    s[3] = max(s[3], diff)
                    failures.append(f"{name} {'opt' if optimized else 'plain'} {label}: "
                                    f"{n} samples differ, max |diff| {diff:g}")

    t0 = time.time()
    for (w, h, cn, depth, interp, dsize, fx, fy) in random_cases(rng, args.cases):
        src = random_image(rng, w, h, cn, depth)
        form = f"fx={fx!r} fy={fy!r}" if fx else f"dsize={dsize}"
        run_one(f"{interp} {depth} c{cn} {w}x{h} {form}", src, dsize, fx, fy, interp)

    data = os.environ.get("TSR_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data"))
    images = sorted(glob.glob(os.path.join(data, "images", "*.png")) +
                    glob.glob(os.path.join(data, "images", "*.jpg")))
    if args.no_images:
        images = []
    elif not images:
        print(f"note: no sample images under {data}/images; the real-image part is skipped")
    for path in images[:4]:
        img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        if img is None:
            print(f"note: cv2 cannot read {path}; skipped")
            continue
        if img.dtype != np.uint8:
            img = (img >> 8).astype(np.uint8) if img.dtype == np.uint16 else img.astype(np.uint8)
        # keep CI time bounded: large photographs are cropped to at most 1200x900
        img = np.ascontiguousarray(img[:900, :1200])
        h, w = img.shape[:2]
        base = os.path.basename(path)
        for interp in INTERPS:
            for (dsize, fx, fy) in [((w // 2, h // 2), 0, 0), (None, 0.3, 0.3),
                                    ((int(w * 1.7), int(h * 1.7)), 0, 0), ((w * 2 // 3, h * 3 // 5), 0, 0)]:
                form = f"fx={fx}" if fx else f"dsize={dsize}"
                run_one(f"image {base} {interp} {form}", img, dsize, fx, fy, interp)
                if interp in ("linear", "cubic", "area"):
                    f = img.astype(np.float32) / 255.0
                    run_one(f"image {base} f32 {interp} {form}", f, dsize, fx, fy, interp)
    cv2.setUseOptimized(True)

    print(f"\n{'backend':10} {'cv2':5} {'interp':13} {'depth':5} {'cases':>6} {'failed':>6} "
          f"{'bad samples':>12} {'max|diff|':>10}")
    total_bad = 0
    for key in sorted(stats):
        s = stats[key]
        total_bad += s[1]
        print(f"{key[0]:10} {key[1]:5} {key[2]:13} {key[3]:5} {s[0]:6d} {s[1]:6d} {s[2]:12d} "
              f"{s[3]:10.3g}")
    for f in failures[:40]:
        print("FAIL", f)
    if len(failures) > 40:
        print(f"... and {len(failures) - 40} more")
    ncmp = sum(s[0] for s in stats.values())
    print(f"\n{ncmp} comparisons, {total_bad} with mismatches, {time.time() - t0:.1f} s")
    for _, t in backends:
        t.close()
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
