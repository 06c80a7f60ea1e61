#!/usr/bin/python3
"""Writes the seed corpus for fuzz_image_decode: tiny PNG, JPEG and PNM files (< 4 KB each)
covering the decoders' branches. PNGs are assembled by hand (zlib + CRC) so that palette, tRNS,
low bit depths, 16 bits and Adam7 are all present; JPEGs come from OpenCV (Debian's
/usr/bin/python3, libjpeg-turbo). Run from anywhere; writes corpus/image_decode/seed_*."""
import os
import struct
import zlib

import cv2
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "image_decode")
rng = np.random.default_rng(1)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(w, h, bit_depth, color_type, rows, interlace=0, extra=()):
    """rows: list of bytes, already packed for the bit depth (filter byte added here). For
    interlace=1 the caller passes the raw Adam7 stream instead (rows is bytes)."""
    raw = rows if isinstance(rows, bytes) else b"".join(b"\0" + r for r in rows)
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, interlace)
    body = chunk(b"IHDR", ihdr)
    for kind, data in extra:
        body += chunk(kind, data)
    body += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def adam7(w, h, bpp_bytes, pixel):
    """Raw Adam7 stream of 8-bit-or-more samples: pixel(x, y) -> bytes."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
              (0, 1, 1, 2)]
    out = b""
    for x0, y0, dx, dy in passes:
        xs = range(x0, w, dx)
        ys = range(y0, h, dy)
        if not xs or not ys:
            continue
        for y in ys:
            out += b"\0" + b"".join(pixel(x, y) for x in xs)
    return out


def write(name, data):
    assert len(data) < 4096, name
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    w, h = 7, 5
    g8 = [bytes(rng.integers(0, 256, w, dtype=np.uint8)) for _ in range(h)]
    write("seed_gray8.png", png(w, h, 8, 0, g8))
    write("seed_rgb8.png", png(w, h, 8, 2, [bytes(rng.integers(0, 256, 3 * w, dtype=np.uint8)) for _ in range(h)]))
    write("seed_rgba8.png", png(w, h, 8, 6, [bytes(rng.integers(0, 256, 4 * w, dtype=np.uint8)) for _ in range(h)]))
    write("seed_ga16.png", png(w, h, 16, 4, [bytes(rng.integers(0, 256, 4 * w, dtype=np.uint8)) for _ in range(h)]))
    write("seed_rgb16_trns.png", png(w, h, 16, 2, [bytes(rng.integers(0, 256, 6 * w, dtype=np.uint8)) for _ in range(h)],
                                     extra=[(b"tRNS", struct.pack(">HHH", 1, 2, 3))]))
    # 2-bit palette with tRNS
    pal = bytes(rng.integers(0, 256, 12, dtype=np.uint8))
    rows2 = [bytes(rng.integers(0, 256, (w * 2 + 7) // 8, dtype=np.uint8)) for _ in range(h)]
    write("seed_pal2_trns.png", png(w, h, 2, 3, rows2, extra=[(b"PLTE", pal), (b"tRNS", b"\x00\x80")]))
    # 1-bit gray with tRNS
    rows1 = [bytes(rng.integers(0, 256, (w + 7) // 8, dtype=np.uint8)) for _ in range(h)]
    write("seed_gray1_trns.png", png(w, h, 1, 0, rows1, extra=[(b"tRNS", b"\x00\x01")]))
    # Adam7 RGB 8-bit, 9x9
    px = lambda x, y: bytes(((x * 29 + y * 7) & 255, (x * y) & 255, (x ^ y) & 255))
    write("seed_rgb8_adam7.png", png(9, 9, 8, 2, adam7(9, 9, 3, px), interlace=1))

    img = rng.integers(0, 256, (12, 10, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    write("seed_rgb_baseline.jpg", buf.tobytes())
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80, cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    write("seed_rgb_progressive.jpg", buf.tobytes())
    ok, buf = cv2.imencode(".jpg", img[:, :, 0], [cv2.IMWRITE_JPEG_QUALITY, 90])
    write("seed_gray_baseline.jpg", buf.tobytes())
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 50, cv2.IMWRITE_JPEG_RST_INTERVAL, 1])
    write("seed_rgb_restart.jpg", buf.tobytes())

    write("seed_p5.pgm", b"P5\n# comment\n4 3\n255\n" + bytes(rng.integers(0, 256, 12, dtype=np.uint8)))
    write("seed_p6_16.ppm", b"P6 3 2 65535\n" + bytes(rng.integers(0, 256, 36, dtype=np.uint8)))
    write("seed_p5_maxval15.pgm", b"P5 3 2 15\n" + bytes(rng.integers(0, 16, 6, dtype=np.uint8)))
    write("seed_p2.pgm", b"P2\n3 2\n# c\n1000\n0 1 2\n999 1000 7\n")
    write("seed_p3.ppm", b"P3 2 1 255 1 2 3 4 5 6\n")


if __name__ == "__main__":
    main()
