/* The layout domain's random numbers: xoshiro256** seeded through splitmix64 (Blackman and
 * Vigna), so a seed gives the same stream on every machine. */
#include "layout/layout_internal.h"

void tsr__rng_seed(tsr__rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        r->s[i] = z ^ (z >> 31);
    }
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t tsr__rng_next(tsr__rng *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t tsr__rng_below(tsr__rng *r, uint64_t n)
{
    /* Lemire's multiply-shift with rejection: unbiased. */
    __uint128_t p = (__uint128_t)tsr__rng_next(r) * n;
    uint64_t lo = (uint64_t)p;
    if (lo < n) {
        uint64_t t = -n % n;
        while (lo < t) {
            p = (__uint128_t)tsr__rng_next(r) * n;
            lo = (uint64_t)p;
        }
    }
    return (uint64_t)(p >> 64);
}

double tsr__rng_unit(tsr__rng *r)
{
    return (double)(tsr__rng_next(r) >> 11) * 0x1.0p-53;
}
