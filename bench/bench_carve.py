#!/usr/bin/env python3
"""Seam carving benchmark: tessera carve (CPU parallel exact, CPU batch; CUDA where built and a GPU
is present) beside ImageMagick -liquid-rescale (liblqr), on the same inputs in one run.

Inputs: the images of ../shared/data/images (desert mesa, broadway tower by default) resized by
`tessera resize` to 1920x1080 and 3840x2160 (PNG). Each tool removes --seams vertical seams; the
time per seam excludes decoding and encoding: tessera reports the carve time itself (--json);
for ImageMagick the same command without -liquid-rescale is timed and subtracted. Median of
--repeats runs. Batch quality = removed energy in batch mode / removed energy in exact mode
(backward energy sums from tessera's report; 1.0 is exact).

On the CUDA backend tessera also reports its GPU time of the seam passes (device_ms: from the
first DP to the last seam, CUDA events, uploads and the host's image work excluded), the measure
the seed study prints ("GPU carving time": events around its seam loop, after the upload).
--seed DIR runs the seed study's programs beside it (github YuXiangLo/NTUPDP2026, built by the
user from its cuda/ folder; not part of tessera): DIR/seam_carve_tiled IN N OUT (exact) and
DIR/seam_carve_batch IN N OUT batch, on the same PNG, the time per seam parsed from their output.
The bytes floor per exact seam (--copy-gbs: the device's measured copy bandwidth) counts what a
seam must move: the DP reads every luma byte and writes 2 bits of back-pointer per pixel (1.25 B
per pixel), and the removal shifts luma (1 B) and the start-of-pass column (2 B) of half a row on
average, read and written (3 B per pixel): 4.25 B per pixel of the current image.

--optimal RxC also times `--order optimal` removing R rows and C columns (the whole call,
carve_ms: the transport map of 2RC seam searches, then the R + C removals) on the backends of
--optimal-backends (default cuda: the host loop takes minutes at 1080p), and reports its removed
energy over width-first's for the same target (below 1.0: the order found less energy to cut).

usage: bench_carve.py TESSERA [--seams 50] [--repeats 3] [--sizes 1920x1080,3840x2160]
                              [--images a.jpg,b.jpg] [--backends cpu,cuda] [--json out.json]
                              [--seed DIR] [--copy-gbs 4000] [--optimal RxC]
                              [--optimal-backends cuda]
(--images: names in ../shared/data/images, or paths.)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "images")


def run(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), p.stderr.strip()))
    return dt, p.stdout


def tessera(tool, src, out, width, extra, repeats):
    """The median carve_ms of `repeats` runs and the last run's report (width None: the target
    is in extra)."""
    ms, rep = [], None
    size = ["--width", str(width)] if width is not None else []
    for _ in range(repeats):
        _, o = run([tool, "carve", src, out, "--json", "--quiet"] + size + extra)
        rep = json.loads(o)
        ms.append(rep["carve_ms"])
    return statistics.median(ms), rep


def seed(prog, src, out, seams, extra, repeats):
    """Median ms per seam the seed study's program prints ("... (X ms/seam) ...")."""
    ms = []
    for _ in range(repeats):
        o = run([prog, src, str(seams), out] + extra)[1]
        line = [l for l in o.splitlines() if "ms/seam" in l]
        if not line:
            raise RuntimeError("%s: no 'ms/seam' in its output" % prog)
        ms.append(float(line[0].split("(")[1].split()[0]))
    return statistics.median(ms)


def magick(src, out, w, h, seams, repeats):
    env = dict(os.environ, MAGICK_THREAD_LIMIT="1")
    full, base = [], []
    for _ in range(repeats):
        full.append(run(["/usr/bin/convert", src, "-liquid-rescale", "%dx%d!" % (w - seams, h), out], env)[0])
        base.append(run(["/usr/bin/convert", src, out], env)[0])
    return (statistics.median(full) - statistics.median(base)) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--seams", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sizes", default="1920x1080,3840x2160")
    ap.add_argument("--images", default="desert_mesa_4611x8192.jpg,broadway_tower_1428x968.jpg")
    ap.add_argument("--backends", default="cpu")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--json")
    ap.add_argument("--seed", help="folder with the seed study's seam_carve_tiled and _batch")
    ap.add_argument("--copy-gbs", type=float, default=4000.0)
    ap.add_argument("--optimal", help="RxC: also time --order optimal removing R rows, C columns")
    ap.add_argument("--optimal-backends", default="cuda")
    a = ap.parse_args()
    have_magick = os.path.exists("/usr/bin/convert") and "liquid" in subprocess.run(
        ["/usr/bin/convert", "-list", "command"], stdout=subprocess.PIPE, text=True).stdout.lower()
    tmp = tempfile.mkdtemp()
    rows = []
    try:
        for name in a.images.split(","):
            for size in a.sizes.split(","):
                w, h = (int(v) for v in size.split("x"))
                # names relative to DATA, or paths (an image carried elsewhere)
                base = os.path.basename(name).split(".")[0]
                src = os.path.join(tmp, "in_%s_%s.png" % (base, size))
                run([a.tool, "resize", os.path.join(DATA, name), src, "--size", size, "--quiet"])
                out = os.path.join(tmp, "out.png")
                row = {"image": name, "size": size, "seams": a.seams}
                exact_energy = None
                for be in a.backends.split(","):
                    for th in (a.threads.split(",") if be == "cpu" else ["0"]):
                        ex = ["--backend", be, "--threads", th]
                        ms, rep = tessera(a.tool, src, out, w - a.seams, ex, a.repeats)
                        key = "%s%s" % (be, "_t" + th if be == "cpu" else "")
                        row[key + "_exact_ms_per_seam"] = ms / a.seams
                        if be == "cuda":
                            row["cuda_exact_device_ms_per_seam"] = rep["device_ms"] / a.seams
                        exact_energy = rep["removed_energy"]
                        ms, rep = tessera(a.tool, src, out, w - a.seams, ex + ["--mode", "batch"],
                                          a.repeats)
                        row[key + "_batch_ms_per_seam"] = ms / a.seams
                        if be == "cuda":
                            row["cuda_batch_device_ms_per_seam"] = rep["device_ms"] / a.seams
                        row[key + "_batch_k"] = a.seams / max(1, rep["dp_passes"])
                        row["batch_energy_vs_exact"] = rep["removed_energy"] / max(1, exact_energy)
                if a.optimal:
                    rr, cc = (int(v) for v in a.optimal.split("x"))
                    for be in a.optimal_backends.split(","):
                        size_opt = ["--size", "%dx%d" % (w - cc, h - rr), "--backend", be]
                        ms, rep = tessera(a.tool, src, out, None, size_opt + ["--order", "optimal"],
                                          a.repeats)
                        row["%s_optimal_%s_ms" % (be, a.optimal)] = ms
                        if be == "cuda":
                            row["cuda_optimal_device_ms"] = rep["device_ms"]
                        _, wf = tessera(a.tool, src, out, None, size_opt, 1)
                        row["%s_optimal_energy_vs_width_first" % be] = (
                            rep["removed_energy"] / max(1, wf["removed_energy"]))
                # bytes an exact seam must move, at the mean width of the run, over the copy
                # bandwidth (see the module comment)
                row["bytes_floor_ms_per_seam"] = 4.25 * (w - a.seams / 2) * h / (a.copy_gbs * 1e6)
                if "cuda_exact_device_ms_per_seam" in row:
                    row["cuda_exact_device_floor_fraction"] = (
                        row["bytes_floor_ms_per_seam"] / row["cuda_exact_device_ms_per_seam"])
                if a.seed:
                    row["seed_tiled_ms_per_seam"] = seed(os.path.join(a.seed, "seam_carve_tiled"),
                                                         src, out, a.seams, [], a.repeats)
                    row["seed_batch_ms_per_seam"] = seed(os.path.join(a.seed, "seam_carve_batch"),
                                                         src, out, a.seams, ["batch"], a.repeats)
                    if "cuda_exact_device_ms_per_seam" in row:
                        row["seed_tiled_over_cuda_exact_device"] = (
                            row["seed_tiled_ms_per_seam"] / row["cuda_exact_device_ms_per_seam"])
                        row["seed_batch_over_cuda_batch_device"] = (
                            row["seed_batch_ms_per_seam"] / row["cuda_batch_device_ms_per_seam"])
                if have_magick:
                    row["imagemagick_ms_per_seam"] = magick(src, out, w, h, a.seams,
                                                            a.repeats) / a.seams
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(tmp)
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    print("\n| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(("%.3f" % r[k]) if isinstance(r.get(k), float) else str(r.get(k, ""))
                                for k in keys) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"benchmark": "carve", "host": os.uname().nodename, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
