"""PSNR targets: tessera j2k encode --psnr T beside opj_compress -q T (OpenJPEG), for T = 30, 35,
40, 45 dB on shared images: the estimate tessera reports, the PSNR decoded by each tool's own
decoder (tessera j2k decode, opj_decompress) over all samples of the 8-bit RGB image, and the
file sizes. Usage: /usr/bin/python3 bench/bench_j2k_psnr.py TESSERA IMAGE... (names under
../shared/data/images). Prints markdown table rows."""
import json, os, subprocess, sys, tempfile

import cv2
import numpy as np

os.chdir(tempfile.mkdtemp())
T = sys.argv[1]
def psnr(a, b):
    mse = ((a.astype(float) - b.astype(float)) ** 2).mean(); return 10 * np.log10(255 ** 2 / mse)
for name in sys.argv[2:]:
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared', 'data', 'images', '') + name
    ref = cv2.imread(src, cv2.IMREAD_COLOR); cv2.imwrite('in.ppm', ref)
    h, w = ref.shape[:2]
    for t in (30, 35, 40, 45):
        r = subprocess.run([T, 'j2k', 'encode', 'in.ppm', 't.j2k', '--psnr', str(t), '--json'], capture_output=True, text=True, check=True)
        est = json.loads(r.stdout)['psnr_estimate'][0]
        subprocess.run([T, 'j2k', 'decode', 't.j2k', 't.ppm'], check=True)
        pt = psnr(ref, cv2.imread('t.ppm')); bt = os.path.getsize('t.j2k')
        subprocess.run(['opj_compress', '-i', 'in.ppm', '-o', 'o.j2k', '-q', str(t)], capture_output=True, check=True)
        subprocess.run(['opj_decompress', '-i', 'o.j2k', '-o', 'o.ppm'], capture_output=True, check=True)
        po = psnr(ref, cv2.imread('o.ppm')); bo = os.path.getsize('o.j2k')
        print(f"| {name} ({w}x{h}) | {t} | {est:.2f} | {pt:.2f} | {bt} | {8*bt/(w*h):.3f} | {po:.2f} | {bo} | {8*bo/(w*h):.3f} |", flush=True)
