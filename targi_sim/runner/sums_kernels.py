"""The numba loops of the worker's chunk summary (sums_arrays.py): one pass over each log
table of a batch, rows sorted by game as the engine writes them.

Why loops: the summary may cost at most a few percent of the play. In numpy, the
distinct-per-game flags (cards offered, taken, played; border and goods cards used) need
dense (games x players x cards) arrays and dozens of passes with int64 and float copies
of each column: ~45 ms a batch of ~5,000 games, a fifth of playing it. One compiled pass
over the int32 rows costs a few milliseconds.

Conventions: `game0` is the batch's first game id (its ids are consecutive), `pair[g]`
game g's pair within the batch, `points[g, p]` seat p's result (1, 1/2, 0). Kernels add
into their output arrays; each output's comment names the query of sums_sql.py (or
analyses/) whose values it holds.
"""

from __future__ import annotations

import numpy as np

from targi_sim.engine import logs as rec
from targi_sim.engine.jit import jit_alloc, jit_inline


@jit_alloc
def rounds_pass(rows, game0, pair, first, points, diff, has, last_display, curves, border,
                gap, lead):
    """diff, has (games x rounds): round_diff.sql (seat 0's score minus seat 1's, whether
    the round has rows); last_display (games x 2): the display at each seat's last round;
    curves (round, seat, role 0 first / 1 second, 6): sums_curves.sql; border (pairs x
    positions 1.. x 4): sums_border.sql; gap (pairs x rounds x 3): sums_score_gap.sql;
    lead (games x 2): rounds with rows and sums_lead_codes.sql's code."""
    n, k = len(pair), border.shape[1]
    placed = np.zeros((2, k + 1), np.int64)
    robbed = np.zeros(k + 1, np.int64)
    i = 0
    for g in range(n):
        rounds = 0
        while i < len(rows) and rows[i, 0] - game0 == g:
            p, r, s = rows[i, rec.RR_PLAYER], rows[i, rec.RR_ROUND], rows[i, rec.RR_SCORE]
            diff[g, r] += s if p == 0 else -s
            has[g, r] = 1.0
            last_display[g, p] = rows[i, rec.RR_DISPLAY_N]
            role = 0 if p == first[g] else 1
            curves[r, p, role, 0] += 1.0
            curves[r, p, role, 1] += s
            curves[r, p, role, 2] += rows[i, rec.RR_VP]
            curves[r, p, role, 3] += rows[i, rec.RR_GOLD]
            curves[r, p, role, 4] += (rows[i, rec.RR_DATES] + rows[i, rec.RR_SALT]
                                      + rows[i, rec.RR_PEPPER])
            curves[r, p, role, 5] += rows[i, rec.RR_DISPLAY_N]
            if p == 0:
                rounds += 1
                if 1 <= rows[i, rec.RR_ROBBER] <= k:
                    robbed[rows[i, rec.RR_ROBBER]] += 1
            for j in range(3):
                pos = rows[i, rec.RR_TARGI + j]
                if 1 <= pos <= k:
                    placed[p, pos] += 1
            i += 1
        q = pair[g]
        for pos in range(1, k + 1):  # placements, open_rounds, used_points, used_n
            border[q, pos - 1, 1] += rounds - robbed[pos]
            robbed[pos] = 0
            for p in range(2):
                m = placed[p, pos]
                if m > 0:
                    border[q, pos - 1, 0] += m
                    border[q, pos - 1, 2] += points[g, p]
                    border[q, pos - 1, 3] += 1.0
                    placed[p, pos] = 0
        sign = 1.0 if first[g] == 0 else -1.0
        code = 0
        for r in range(1, diff.shape[1]):
            if has[g, r] > 0:
                d = diff[g, r]
                gap[q, r, 0] += 1.0
                gap[q, r, 1] += sign * d
                gap[q, r, 2] += d * d
                lead[g, 0] += 1
                code |= (1 if d > 0 else (2 if d < 0 else 0)) << (2 * (r - 1))
        lead[g, 1] = code


@jit_inline
def _add6(out, q, h, x0, x1, x2, x3, x4, x5):
    out[q, h, 0] += x0
    out[q, h, 1] += x1
    out[q, h, 2] += x2
    out[q, h, 3] += x3
    out[q, h, 4] += x4
    out[q, h, 5] += x5


@jit_alloc
def cards_pass(offers, acq, game0, pair, points, diff, has, class_of, symbol_of, classes,
               symbols, tribe, plays):
    """classes, symbols (pairs x classes or symbols x 6): sums_tribe_pairs.sql's values
    of each card added per class (class_of) and per symbol (symbol_of); tribe (cards x
    9): sums_tribe.sql; plays: example_plays.sql's values, one per card play (returns
    how many)."""
    n, nc = len(pair), len(class_of)
    offered = np.zeros(nc, np.bool_)
    flags = np.zeros((2, nc), np.int8)  # 1 acquired, 2 played, 4 from the centre
    io, ia, m = 0, 0, 0
    for g in range(n):
        while io < len(offers) and offers[io, 0] - game0 == g:
            offered[offers[io, rec.RO_CARD]] = True
            tribe[offers[io, rec.RO_CARD], 0] += 1.0
            io += 1
        while ia < len(acq) and acq[ia, 0] - game0 == g:
            c, src, r = acq[ia, rec.RA_CARD], acq[ia, rec.RA_SOURCE], acq[ia, rec.RA_ROUND]
            out = acq[ia, rec.RA_OUTCOME]
            f = 0
            if src != rec.SRC_HAND:
                f |= 1
                tribe[c, 1] += 1.0
                tribe[c, 8] += r
            if src == rec.SRC_CENTRE:
                f |= 4
                tribe[c, 2] += 1.0
            elif src == rec.SRC_EXPANSION:
                tribe[c, 3] += 1.0
            if out == rec.OUT_PLAYED:
                f |= 2
                tribe[c, 4] += 1.0
                if has[g, r] > 0:
                    swing = diff[g, r] - diff[g, r - 1]
                    plays[m] = (swing if acq[ia, rec.RA_PLAYER] == 0 else -swing) + 0.0
                    m += 1
            elif out == rec.OUT_KEPT:
                tribe[c, 5] += 1.0
            elif out == rec.OUT_DISCARDED:
                tribe[c, 6] += 1.0
            tribe[c, 7] += 1.0
            flags[acq[ia, rec.RA_PLAYER], c] |= f
            ia += 1
        q = pair[g]
        for c in range(nc):
            o = offered[c]
            if not o and flags[0, c] == 0 and flags[1, c] == 0:
                continue
            x0, x1, x2, x3 = (1.0 if o else 0.0), 0.0, 0.0, 0.0
            x4, x5 = 2.0 * x0, x0
            for p in range(2):
                f = flags[p, c]
                if o and f & 4:
                    x1 += 1.0
                if f & 2:
                    x2 += 1.0
                    x3 += points[g, p]
                if o and f & 1:
                    x4 -= 1.0
                    x5 -= points[g, p]
                flags[p, c] = 0
            offered[c] = False
            _add6(classes, q, class_of[c], x0, x1, x2, x3, x4, x5)
            _add6(symbols, q, symbol_of[c], x0, x1, x2, x3, x4, x5)
    return m


@jit_alloc
def raids_pass(rows, game0, pair, points, goods_vp, gold_vp, per_pair, flat, per_game):
    """per_pair (pairs x raids x (1 + 2 kinds)): sums_raid_pairs.sql (facing, then n and
    points per kind); flat (raids x kinds x 5): sums_raids.sql; per_game (games x 2 seats
    x 4): amount lost, cost in VP exactly and in VP-equivalents (raids_swing.sql),
    rows."""
    for i in range(len(rows)):
        g = rows[i, 0] - game0
        p, raid, kind = rows[i, rec.RD_PLAYER], rows[i, rec.RD_RAID], rows[i, rec.RD_PAID]
        amount, bonus = rows[i, rec.RD_AMOUNT], rows[i, rec.RD_BONUS]
        q = pair[g]
        per_pair[q, raid, 0] += 1.0
        per_pair[q, raid, 1 + 2 * kind] += 1.0
        per_pair[q, raid, 2 + 2 * kind] += points[g, p]
        flat[raid, kind, 0] += 1.0
        flat[raid, kind, 1] += amount
        flat[raid, kind, 2] += rows[i, rec.RD_GOLD]
        flat[raid, kind, 3] += bonus
        flat[raid, kind, 4] += points[g, p]
        eq = 0.0
        if kind == rec.PAID_VP:
            eq = amount
        elif kind == rec.PAID_GOODS:
            eq = amount * goods_vp
        elif kind == rec.PAID_GOLD:
            eq = amount * gold_vp
        elif kind == rec.PAID_GOODS_GOLD:
            eq = amount * goods_vp + rows[i, rec.RD_GOLD] * gold_vp
        per_game[g, p, 0] += amount
        per_game[g, p, 1] += (amount if kind == rec.PAID_VP else 0) + bonus
        per_game[g, p, 2] += eq + bonus
        per_game[g, p, 3] += 1.0


@jit_alloc
def goods_pass(rows, game0, pair, points, per_pair, flat):
    """per_pair (pairs x goods cards x 2): sums_goods_pairs.sql; flat (cards x 3):
    sums_goods.sql."""
    n, k = len(pair), per_pair.shape[1]
    took = np.zeros((2, k), np.bool_)
    i = 0
    for g in range(n):
        while i < len(rows) and rows[i, 0] - game0 == g:
            c = rows[i, rec.RG_CARD]
            took[rows[i, rec.RG_PLAYER], c] = True
            flat[c, 0] += 1.0
            flat[c, 1 + rows[i, rec.RG_SOURCE]] += 1.0  # 0 centre, 1 border
            i += 1
        for c in range(k):
            for p in range(2):
                if took[p, c]:
                    per_pair[pair[g], c, 0] += 1.0
                    per_pair[pair[g], c, 1] += points[g, p]
                    took[p, c] = False


@jit_alloc
def pair_sums(x, pair, out):
    """out (pairs x ...) += the rows of x (games x ...) of each pair (pair[g])."""
    a, b = x.reshape(x.shape[0], -1), out.reshape(out.shape[0], -1)
    for g in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[pair[g], j] += a[g, j]


@jit_alloc
def settle(x, a, b, positive, sums):
    """sums (groups x stats) += per group: the values summed over the pairs of x (pairs x
    groups x values), then the products x[a] * x[b] and the pairs with x[positive] > 0."""
    nv = x.shape[2]
    for q in range(x.shape[0]):
        for h in range(x.shape[1]):
            zero = True
            for j in range(nv):
                if x[q, h, j] != 0.0:
                    zero = False
                    break
            if zero:  # a pair without values in this group adds nothing
                continue
            for j in range(nv):
                sums[h, j] += x[q, h, j]
            for j in range(len(a)):
                sums[h, nv + j] += x[q, h, a[j]] * x[q, h, b[j]]
            for j in range(len(positive)):
                if x[q, h, positive[j]] > 0:
                    sums[h, nv + len(a) + j] += 1.0


__all__ = ["cards_pass", "goods_pass", "pair_sums", "raids_pass", "rounds_pass", "settle"]
