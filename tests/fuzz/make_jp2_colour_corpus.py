#!/usr/bin/python3
"""Writes the JP2 colour seeds of fuzz_j2k_decode: the codestreams of seed_enc_gray_rlcp.j2k
(7x5 grey) and seed_enc_rgb_cprl.jp2 (33x31 RGB) in JP2 files with crafted colour boxes (T.800
I.5.3): restricted ICC profiles that are applied (monochrome gamma 1.8, RGB matrix/TRC with a
para and a table curve), profiles that are not (LUT-based, a tag past the end), e-sYCC, a
palette under a monochrome profile, and hostile boxes that must be refused with a message
(colr, pclr, cmap cut short; cmap past the palette; cmap past the components). Run from
anywhere; writes corpus/j2k_decode/seed_colr_*.jp2."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "j2k_decode")


def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body


def codestream_of(path):
    d = open(path, "rb").read()
    if d[:2] == b"\xff\x4f":
        return d
    pos = 0
    while pos < len(d):
        n, kind = struct.unpack(">I4s", d[pos:pos + 8])
        if kind == b"jp2c":
            return d[pos + 8:pos + n]
        pos += n
    raise SystemExit("no jp2c in " + path)


def jp2(cs, w, h, nc, extra):
    sig = b"\x00\x00\x00\x0cjP  \r\n\x87\n"
    ftyp = box(b"ftyp", b"jp2 " + struct.pack(">I", 0) + b"jp2 ")
    ihdr = box(b"ihdr", struct.pack(">IIHBBBB", h, w, nc, 7, 7, 0, 0))
    return sig + ftyp + box(b"jp2h", ihdr + extra) + box(b"jp2c", cs)


def colr_enum(e):
    return box(b"colr", struct.pack(">BBBI", 1, 0, 0, e))


def colr_icc(prof, meth=2):
    return box(b"colr", struct.pack(">BBB", meth, 0, 0) + prof)


def icc(space, tags):
    """A v2.1 display profile with XYZ PCS and the tags [(sig, bytes)]."""
    head = bytearray(128)
    head[8:12] = struct.pack(">I", 0x02100000)
    head[12:24] = b"mntr" + space + b"XYZ "
    head[36:40] = b"acsp"
    table, data = b"", b""
    off = 132 + 12 * len(tags)
    for sig, body in tags:
        body += b"\0" * (-len(body) % 4)
        table += sig + struct.pack(">II", off + len(data), len(body))
        data += body
    prof = bytes(head) + struct.pack(">I", len(tags)) + table + data
    return struct.pack(">I", len(prof)) + prof[4:]


def xyz(x, y, z):
    return b"XYZ " + struct.pack(">I3i", 0, round(x * 65536), round(y * 65536), round(z * 65536))


def curv(values):
    return b"curv" + struct.pack(">II", 0, len(values)) + struct.pack(">%dH" % len(values), *values)


def para_srgb():
    p = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
    return b"para" + struct.pack(">IHH", 0, 3, 0) + struct.pack(">5i", *[round(v * 65536) for v in p])


def rgb_profile(trc, extra_tags=()):
    col = [(0.4360, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7139)]
    tags = [(b"rXYZ", xyz(*col[0])), (b"gXYZ", xyz(*col[1])), (b"bXYZ", xyz(*col[2])),
            (b"rTRC", trc), (b"gTRC", trc), (b"bTRC", trc)]
    return icc(b"RGB ", list(extra_tags) + tags)


def main():
    gray = codestream_of(os.path.join(OUT, "seed_enc_gray_rlcp.j2k"))
    rgb = codestream_of(os.path.join(OUT, "seed_enc_rgb_cprl.jp2"))
    g18 = icc(b"GRAY", [(b"kTRC", curv([461]))])
    table = curv([round(65535 * (i / 15) ** 2.2) for i in range(16)])
    broken = bytearray(rgb_profile(para_srgb()))
    broken[132 + 4:132 + 8] = struct.pack(">I", 0xFFFFFF00)  # rXYZ past the end
    pal = struct.pack(">HB", 4, 2) + b"\x07\x07" + bytes([0, 255, 80, 200, 160, 100, 255, 0])
    cmap2 = struct.pack(">HBBHBB", 0, 1, 0, 0, 1, 1)
    cdef_alpha = struct.pack(">H", 2) + struct.pack(">HHH", 0, 0, 1) + struct.pack(">HHH", 1, 1, 0)
    seeds = {
        "icc_gray": jp2(gray, 7, 5, 1, colr_icc(g18)),
        "icc_rgb_para": jp2(rgb, 33, 31, 3, colr_icc(rgb_profile(para_srgb()))),
        "icc_rgb_table": jp2(rgb, 33, 31, 3, colr_icc(rgb_profile(table), meth=3)),
        "icc_lut": jp2(rgb, 33, 31, 3,
                       colr_icc(rgb_profile(para_srgb(), [(b"A2B0", b"mft2" + bytes(48))]))),
        "icc_malformed": jp2(rgb, 33, 31, 3, colr_icc(bytes(broken))),
        "icc_empty": jp2(rgb, 33, 31, 3, colr_icc(b"")),
        "esycc": jp2(rgb, 33, 31, 3, colr_enum(24)),
        "palette_icc_alpha": jp2(gray, 7, 5, 1, box(b"pclr", pal) + box(b"cmap", cmap2) +
                                 box(b"cdef", cdef_alpha) + colr_icc(g18)),
        "colr_truncated": jp2(gray, 7, 5, 1, box(b"colr", b"\x01\x00")),
        "colr_enum_short": jp2(gray, 7, 5, 1, box(b"colr", b"\x01\x00\x00\x00\x10")),
        "pclr_truncated": jp2(gray, 7, 5, 1, box(b"pclr", pal[:7]) + box(b"cmap", cmap2)),
        "cmap_truncated": jp2(gray, 7, 5, 1, box(b"pclr", pal) + box(b"cmap", cmap2[:6])),
        "cmap_past_palette": jp2(gray, 7, 5, 1, box(b"pclr", pal) +
                                 box(b"cmap", struct.pack(">HBB", 0, 1, 5))),
        "cmap_past_components": jp2(gray, 7, 5, 1, box(b"pclr", pal) +
                                    box(b"cmap", struct.pack(">HBB", 2, 1, 0))),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, "seed_colr_%s.jp2" % name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
