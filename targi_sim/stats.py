"""Small statistics helpers for reporting simulated rates."""

from __future__ import annotations

import math


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (lo, hi) for a proportion of `successes` out of `n`.

    Unlike the normal ("Wald") interval it stays inside [0, 1] and behaves well
    near 0 and 1. `successes` may be fractional (e.g. draws counted as half a
    win). With n == 0 nothing is known and the interval is (0.0, 1.0).
    z = 1.96 gives a 95% interval.

    >>> tuple(round(x, 4) for x in wilson_interval(50, 100))
    (0.4038, 0.5962)
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n ({n}), got {successes}")
    if z <= 0:
        raise ValueError(f"z must be positive, got {z}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


__all__ = ["wilson_interval"]
