#!/usr/bin/python3
"""Compression and speed of `tessera j2k encode --mode fast-nonstandard` beside the standard
Part 1 coder, through the CLI (whole-process times, best of ROUNDS, the two modes interleaved).

  bench_j2k_fast.py TESSERA IMAGE... [--rounds N] [--threads N] [--rate-search]

Per image: lossless file sizes (fast / standard), lossy sizes at equal quantisation steps
(the same quantised coefficients: equal distortion, checked by decoding both), encode and
decode seconds; with --rate-search, PSNR at 1 and 2 bpp (standard: --rate; fast: the largest
--qstep file within the byte target, by bisection). Prints a markdown table."""
import os, subprocess, sys, tempfile, time
import cv2
import numpy as np

def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t

def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float('inf') if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)

def main():
    args = sys.argv[1:]
    rounds, threads, search = 2, 1, False
    if '--rounds' in args:
        i = args.index('--rounds'); rounds = int(args[i + 1]); del args[i:i + 2]
    if '--threads' in args:
        i = args.index('--threads'); threads = int(args[i + 1]); del args[i:i + 2]
    if '--rate-search' in args:
        args.remove('--rate-search'); search = True
    tsr, images = args[0], args[1:]
    tmp = tempfile.mkdtemp()
    modes = ['standard', 'fast-nonstandard']
    print('| image | case | standard bytes | fast bytes | fast/standard | enc s std | enc s fast '
          '| dec s std | dec s fast | PSNR std | PSNR fast |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for img in images:
        name = os.path.basename(img)
        src = cv2.imread(img, cv2.IMREAD_UNCHANGED)
        h, w = src.shape[:2]
        cases = [('lossless', ['--lossless'])] + [
            ('qstep %s' % q, ['--qstep', q]) for q in ('0.004', '0.016', '0.064')]
        for label, extra in cases:
            size, enc, dec, ps = {}, {m: 1e9 for m in modes}, {m: 1e9 for m in modes}, {}
            for r in range(rounds):
                for m in (modes if r % 2 == 0 else modes[::-1]):
                    out = os.path.join(tmp, m + '.j2k')
                    enc[m] = min(enc[m], run([tsr, 'j2k', 'encode', img, out, '--mode', m,
                                              '--threads', str(threads), '--quiet'] + extra))
                    png = os.path.join(tmp, m + '.png')
                    dec[m] = min(dec[m], run([tsr, 'j2k', 'decode', out, png, '--threads',
                                              str(threads), '--quiet']))
                    size[m] = os.path.getsize(out)
                    ps[m] = psnr(src, cv2.imread(png, cv2.IMREAD_UNCHANGED))
            print('| %s %dx%d | %s | %d | %d | %.4f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |' % (
                name, w, h, label, size['standard'], size['fast-nonstandard'],
                size['fast-nonstandard'] / size['standard'], enc['standard'],
                enc['fast-nonstandard'], dec['standard'], dec['fast-nonstandard'],
                ps['standard'], ps['fast-nonstandard']), flush=True)
        if not search:
            continue
        for bpp in (1.0, 2.0):
            target = bpp * w * h / 8
            out = os.path.join(tmp, 's.j2k'); png = os.path.join(tmp, 's.png')
            run([tsr, 'j2k', 'encode', img, out, '--rate', str(bpp), '--quiet'])
            run([tsr, 'j2k', 'decode', out, png, '--quiet'])
            s_size, s_psnr = os.path.getsize(out), psnr(src, cv2.imread(png, cv2.IMREAD_UNCHANGED))
            lo, hi, best = np.log(1e-4), np.log(1.0), None
            for _ in range(10):  # the smallest step whose file fits
                q = float(np.exp((lo + hi) / 2))
                out = os.path.join(tmp, 'f.j2k')
                run([tsr, 'j2k', 'encode', img, out, '--mode', 'fast-nonstandard', '--qstep',
                     '%.6g' % q, '--quiet'])
                if os.path.getsize(out) <= target:
                    hi = np.log(q); best = (q, os.path.getsize(out))
                    run([tsr, 'j2k', 'decode', out, png, '--quiet'])
                    best += (psnr(src, cv2.imread(png, cv2.IMREAD_UNCHANGED)),)
                else:
                    lo = np.log(q)
            print('| %s %dx%d | %g bpp | %d | %d | %.4f | | | | | %.2f | %.2f |' % (
                name, w, h, bpp, s_size, best[1], best[1] / s_size, s_psnr, best[2]), flush=True)

main()
