#!/usr/bin/python3
"""Writes the seed corpus for fuzz_image_decode: tiny PNG, JPEG, PNM, PAM, PFM, TIFF, WebP and
BMP files (< 4 KB each) covering the decoders' branches. TIFF, WebP, PFM and the 24-bit BMP
come from OpenCV's writers; PAM, P1/P4 and the palette, 16-bit and 32-bit BMPs are built here. PNGs are assembled by hand (zlib + CRC) so that palette, tRNS,
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

    # netpbm bitmaps, PAM, PFM
    write("seed_p4.pbm", b"P4\n10 3\n" + bytes(rng.integers(0, 256, 6, dtype=np.uint8)))
    write("seed_p1.pbm", b"P1\n3 2\n1 0 1\n010\n")
    write("seed_ga16.pam", b"P7\nWIDTH 3\nHEIGHT 2\nDEPTH 2\nMAXVAL 65535\nTUPLTYPE GRAYSCALE_ALPHA\n"
          b"ENDHDR\n" + bytes(rng.integers(0, 256, 24, dtype=np.uint8)))
    write("seed_rgba_maxval100.pam", b"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 4\nMAXVAL 100\n# c\nENDHDR\n"
          + bytes(rng.integers(0, 101, 16, dtype=np.uint8)))
    write("seed_gray_be.pfm", b"Pf\n3 2\n1.0\n" + rng.random(6).astype(">f4").tobytes())
    write("seed_rgb_le.pfm", b"PF\n2 2\n-1.0\n" + rng.random(12).astype("<f4").tobytes())

    # TIFF: 8-bit RGB (LZW, OpenCV's default), 16-bit gray, float, RGBA; WebP lossless and lossy
    small = rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)
    for name, im in [("seed_rgb8.tif", small),
                     ("seed_gray16.tif", rng.integers(0, 65536, (4, 5), dtype=np.uint16)),
                     ("seed_f32.tif", rng.random((3, 4)).astype(np.float32)),
                     ("seed_rgba8.tif", rng.integers(0, 256, (3, 4, 4), dtype=np.uint8))]:
        write(name, cv2.imencode(".tiff", im)[1].tobytes())
    write("seed_rgb_lossless.webp", cv2.imencode(".webp", small, [cv2.IMWRITE_WEBP_QUALITY, 101])[1].tobytes())
    write("seed_rgb_lossy.webp", cv2.imencode(".webp", small, [cv2.IMWRITE_WEBP_QUALITY, 60])[1].tobytes())
    write("seed_rgba_lossless.webp", cv2.imencode(".webp", rng.integers(0, 256, (3, 4, 4), dtype=np.uint8),
                                                  [cv2.IMWRITE_WEBP_QUALITY, 101])[1].tobytes())

    # BMP: 24-bit (OpenCV), 4-bit palette top-down, 16-bit 5-6-5 bitfields, 32-bit with alpha mask
    write("seed_rgb24.bmp", cv2.imencode(".bmp", small)[1].tobytes())
    write("seed_pal4_topdown.bmp", bmp(3, -2, 4, 0, pal=bytes(rng.integers(0, 256, 16, dtype=np.uint8)),
                                       raster=bytes([0x01, 0x20, 0, 0, 0x32, 0x10, 0, 0])))
    write("seed_565.bmp", bmp(2, 2, 16, 3, masks=(0xF800, 0x07E0, 0x001F),
                              raster=bytes(rng.integers(0, 256, 8, dtype=np.uint8))))
    write("seed_bgra_v3.bmp", bmp(2, 1, 32, 3, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000), hsize=56,
                                  raster=bytes(rng.integers(0, 256, 8, dtype=np.uint8))))


def bmp(w, h, bpp, compression, pal=b"", masks=(), hsize=40, raster=b""):
    """A BMP file: masks go at byte 54 (after a 40-byte header, or inside a longer one)."""
    info = struct.pack("<IiiHHIIiiII", hsize, w, h, 1, bpp, compression, len(raster), 2835, 2835,
                       len(pal) // 4, 0)
    body = info + b"".join(struct.pack("<I", m) for m in masks)
    body += b"\0" * max(0, hsize - len(body))
    off = 14 + len(body) + len(pal)
    return b"BM" + struct.pack("<IHHI", off + len(raster), 0, 0, off) + body + pal + raster


if __name__ == "__main__":
    main()
