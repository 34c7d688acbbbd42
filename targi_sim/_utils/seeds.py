"""Seed streams: one run seed per use of a user's seed, so that two uses of the same
seed (a search and its validation, two expectations of a check, two pairs of a
tournament) never share a game, and the same inputs always give the same stream."""

from __future__ import annotations

import hashlib

SEED_SPAN = 2**31  # run seeds are 0..2^31-1 (what --seed accepts)


def derive_seed(*parts: object) -> int:
    """The run seed (0..2^31-1) of a stream named by `parts`: a namespace, a purpose and
    the user's seed, e.g. derive_seed("targi-tune", "final", 3). The first 8 bytes of
    the SHA-256 of the parts joined by NUL, little-endian, modulo 2^31."""
    text = "\0".join(str(p) for p in parts)
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "little") % SEED_SPAN


__all__ = ["SEED_SPAN", "derive_seed"]
