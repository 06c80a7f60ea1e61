#!/usr/bin/python3
"""Writes the seed corpus for fuzz_j2k_encode (fuzz_j2k_encode_body.h): a 24-byte head choosing
the options and the image's shape, then samples (deterministic pseudo-random bytes). Seeds:
lossless RGB; HT lossless 16-bit in tiles; three rates in layers with precincts; PSNR targets
with a lossless layer, SOP and EPH; image and tile offsets with tiles, PLT and TLM; HT at a rate;
the fast-nonstandard mode. Run from anywhere; writes corpus/j2k_encode/seed_*."""
import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "j2k_encode")


def head(w, h, ch, wide, flags, levels, cblk, order_tp, layers, tiles, tw, th, off, prec, qstep,
         targets_kind, targets, standard=True):
    """The head's 24 bytes as tsr_fuzz_enc_options reads them (the offsets there)."""
    b = [0] * 24
    b[0], b[1], b[2] = w - 1, h - 1, (ch - 1) | (wide << 7)
    b[3], b[4], b[5], b[6] = flags, levels + 1, cblk, order_tp
    b[7], b[8], b[9], b[10], b[11] = layers, tiles, tw, th, off
    b[12:15] = prec
    b[15], b[16] = qstep, targets_kind
    for i, t in enumerate(targets):
        b[17 + i] = t & 255
    b[20] = 1 if standard else 0
    return bytes(b)


SEEDS = {
    "seed_lossless_rgb": head(33, 17, 3, 0, 1, -1, 6 + 12 * 6, 0, 0, 0, 0, 0, 0, [0] * 3, 0, 0, []),
    "seed_ht_lossless_16bit": head(20, 31, 1, 1, 3, 2, 5 + 12 * 4, 2, 0, 1, 7, 9, 0, [0] * 3, 0,
                                   0, []),
    "seed_rates_layers": head(47, 40, 3, 0, 0, 3, 6 + 12 * 6, 0, 0, 4 | 8, 0, 0, 0,
                              [0x55, 0x44, 0x33], 3, 3, [8, 16, 32]),
    "seed_psnr_lossless": head(30, 30, 4, 0, 1 | 4 | 8, -1, 4 + 12 * 4, 4, 0, 0, 0, 0, 0, [0] * 3,
                               1, 2 | 4, [40, 60]),
    "seed_offsets_tiles": head(25, 19, 2, 0, 1 | 16 | 32, 2, 3 + 12 * 3, 1 + 6, 3, 3, 10, 6, 5,
                               [0] * 3, 0, 0, []),
    "seed_ht_rate": head(48, 48, 3, 0, 2, -1, 6 + 12 * 6, 2, 0, 0, 0, 0, 0, [0] * 3, 3, 1, [16]),
    "seed_fast_nonstandard": head(16, 16, 1, 0, 1, 1, 6 + 12 * 6, 0, 0, 0, 0, 0, 0, [0] * 3, 0, 0,
                                  [], standard=False),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(7)
    for name, h in SEEDS.items():
        samples = bytes(rng.randrange(256) for _ in range(rng.randrange(50, 400)))
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(h + samples)


if __name__ == "__main__":
    main()
