"""A small counter-free PRNG (xoshiro128**) kept inside the int64 state vector.

Why not numpy's generators: the engine must give bit-identical games compiled and
with NUMBA_DISABLE_JIT=1, and numba's np.random is a separate implementation. All
arithmetic here stays below 2**63 and is masked to 32 bits, so Python ints, numpy
int64 and compiled int64 give the same stream.
"""

from .jit import jit, jit_inline

MASK32 = 0xFFFFFFFF


@jit_inline
def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & MASK32


@jit_inline
def _mul32(a, b):
    # (a * b) mod 2**32 without exceeding 2**48 in intermediates
    lo = a * (b & 0xFFFF)
    hi = ((a * (b >> 16)) & 0xFFFF) << 16
    return (lo + hi) & MASK32


@jit
def mix32(x):
    """lowbias32 integer hash: spreads seeds so nearby seeds give unrelated streams."""
    x = x & MASK32
    x ^= x >> 16
    x = _mul32(x, 0x7FEB352D)
    x ^= x >> 15
    x = _mul32(x, 0x846CA68B)
    x ^= x >> 16
    return x


@jit
def seed_stream(S, off, seed, stream):
    """Fill the 4 words at S[off:off+4] from a 64-bit seed and a stream number.

    Words 0 and 1 are bijections of the seed's low and high halves, so distinct
    seeds always give distinct generator states (no 32-bit birthday collisions).
    """
    lo = seed & MASK32
    hi = (seed >> 32) & MASK32
    a = mix32(stream + 0x9E3779B9)
    w0 = mix32(lo ^ a)
    w1 = mix32(hi ^ mix32(a + 1))
    S[off] = w0
    S[off + 1] = w1
    S[off + 2] = mix32(w0 ^ w1 ^ 0x85EBCA6B)
    S[off + 3] = mix32((w0 + w1 + 0x27D4EB2F) & MASK32) | 1
    for _ in range(8):
        next32(S, off)


@jit_inline
def next32(S, off):
    s0 = S[off]
    s1 = S[off + 1]
    s2 = S[off + 2]
    s3 = S[off + 3]
    result = _mul32(_rotl(_mul32(s1, 5), 7), 9)
    t = (s1 << 9) & MASK32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 11)
    S[off] = s0
    S[off + 1] = s1
    S[off + 2] = s2
    S[off + 3] = s3
    return result


@jit_inline
def randbelow(S, off, n):
    """Uniform-enough integer in [0, n) (Lemire's multiply-shift, n small)."""
    return (next32(S, off) * n) >> 32
