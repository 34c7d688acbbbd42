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
analyses/) whose values it holds. A clustered table comes as a tuple `t` (scratch,
sums, edge, indices; sums_arrays._Clustered.kernel_arg): a pair's values build up in the
scratch (values x groups), and when the pair ends `end_pair` settles it into the sums
(the values, the products x[a] * x[b], the pairs with x[positive] > 0), except the
batch's first and last pairs, which go to `edge` for the caller: the next batch or
chunk may add to them. Settling vectorises over the groups, so each kernel's tables are
laid out with many groups (sums_arrays: the cards' classes and symbols side by side,
the raids by raid and kind). A game's per-card or per-position flags (cards offered,
taken, played; border positions used; goods cards taken) are kept as 64-bit masks in
registers, one per seat, rather than or-ed into memory row by row: the engine's bounds
(64 tribe and goods cards, 16 border cards) fit them.
"""

from __future__ import annotations

import numpy as np

from targi_sim.engine import compile_cache
from targi_sim.engine import logs as rec
from targi_sim.engine.jit import jit_alloc, jit_inline

ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # a seat's mask selector: 0 or 1 times this


def _bit(mask, i):
    """Bit i of a 64-bit mask, as 0 or 1."""
    return np.int64((mask >> np.uint64(i)) & np.uint64(1))


def _by_seat(mask0, mask1, bits, seat):
    """(mask0, mask1) with `bits` or-ed into seat 0's or 1's: branch-free, as seats come
    in random order."""
    seat1 = np.uint64(seat) * ALL  # every bit set for seat 1
    return mask0 | (bits & ~seat1), mask1 | (bits & seat1)


def settle_row(x, a, b, positive, sums):
    """sums (stats x groups) += one pair's x (values x groups): the values, the products
    x[a] * x[b], the count of x[positive] > 0; x is left zero. Groups are the inner axis:
    the loops run over contiguous rows, which the compiler vectorises."""
    nv, k = x.shape
    for j in range(len(a)):
        xa, xb, s = x[a[j]], x[b[j]], sums[nv + j]
        for h in range(k):
            s[h] += xa[h] * xb[h]
    for j in range(len(positive)):
        xp, s = x[positive[j]], sums[nv + len(a) + j]
        for h in range(k):
            if xp[h] > 0:
                s[h] += 1.0
    for j in range(nv):
        xj, s = x[j], sums[j]
        for h in range(k):
            s[h] += xj[h]
            xj[h] = 0.0


def settle(x, a, b, positive, sums):
    """settle_row for every pair of x (pairs x values x groups), pairs innermost: for
    tables of few groups, where a call per pair would cost more than its sums."""
    nq, nv, k = x.shape
    for j in range(len(a)):
        for h in range(k):
            acc = 0.0
            for q in range(nq):
                acc += x[q, a[j], h] * x[q, b[j], h]
            sums[nv + j, h] += acc
    for j in range(len(positive)):
        for h in range(k):
            count = 0.0
            for q in range(nq):
                if x[q, positive[j], h] > 0:
                    count += 1.0
            sums[nv + len(a) + j, h] += count
    for j in range(nv):
        for h in range(k):
            acc = 0.0
            for q in range(nq):
                acc += x[q, j, h]
            sums[j, h] += acc


def end_pair(t, q, last):
    """Pair q of the batch has all its values in t's scratch (see the module's note)."""
    x, sums, edge, a, b, positive = t
    if q == 0 or q == last:
        e = 0 if q == 0 else 1
        for j in range(x.shape[0]):
            for h in range(x.shape[1]):
                edge[e, j, h] = x[j, h]
                x[j, h] = 0.0
    else:
        settle_row(x, a, b, positive, sums)


def rounds_pass(rows, game0, pair, first, winner, points, diff, has, last_display, curves,
                border, gap, lead):
    """diff, has (games x rounds, int32 and uint8): round_diff.sql (seat 0's score minus
    seat 1's, whether the round has rows); last_display (games x 2): the display at each
    seat's last round; curves (round, seat, role 0 first / 1 second, 6):
    sums_curves.sql; border (4 x positions 1..): sums_border.sql; gap (3 x rounds):
    sums_score_gap.sql; lead (rounds R, lead changes, decisive round, decided): games,
    as runner/sums.lead_counts counts them from sums_lead_codes.sql's codes."""
    n = len(pair)
    bx, gx = border[0], gap[0]
    k = bx.shape[1]
    # the pair's placements and robbed rounds by border position (slot 0: off the
    # border cards), added to the border table when the pair ends: branch-free, as
    # positions are random
    placed = np.zeros(k + 1, np.int64)
    robbed = np.zeros(k + 1, np.int64)
    pair_rounds = 0
    zero, one = np.uint64(0), np.uint64(1)
    i = 0
    for g in range(n):
        rounds = 0
        fg = first[g]
        used0, used1 = zero, zero  # the positions each seat placed on (bit = position)
        while i < len(rows) and rows[i, 0] - game0 == g:
            p, r, s = rows[i, rec.RR_PLAYER], rows[i, rec.RR_ROUND], rows[i, rec.RR_SCORE]
            diff[g, r] += s * (1 - 2 * p)
            has[g, r] = 1
            last_display[g, p] = rows[i, rec.RR_DISPLAY_N]
            role = np.int64(p != fg)
            cv = curves[r, p, role]
            cv[0] += 1.0
            cv[1] += s
            cv[2] += rows[i, rec.RR_VP]
            cv[3] += rows[i, rec.RR_GOLD]
            cv[4] += rows[i, rec.RR_DATES] + rows[i, rec.RR_SALT] + rows[i, rec.RR_PEPPER]
            cv[5] += rows[i, rec.RR_DISPLAY_N]
            is0 = np.int64(p == 0)
            rounds += is0
            rb = rows[i, rec.RR_ROBBER]
            robbed[rb if 1 <= rb <= k else 0] += is0
            used = zero
            for j in range(3):
                pos = rows[i, rec.RR_TARGI + j]
                at = pos if 1 <= pos <= k else 0
                placed[at] += 1
                used |= one << np.uint64(at)
            used0, used1 = _by_seat(used0, used1, used, p)
            i += 1
        pair_rounds += rounds
        points0, points1 = points[g, 0], points[g, 1]
        for pos in range(1, k + 1):  # used_points, used_n
            u0, u1 = _bit(used0, pos), _bit(used1, pos)
            bx[2, pos - 1] += u0 * points0 + u1 * points1
            bx[3, pos - 1] += u0 + u1
        sign = 1.0 if fg == 0 else -1.0
        code, n_rounds = 0, 0
        for r in range(1, diff.shape[1]):
            h, d = np.int64(has[g, r]), np.int64(diff[g, r])
            gx[0, r] += h
            gx[1, r] += sign * d
            gx[2, r] += d * d
            n_rounds += np.int64(h > 0)
            code |= (np.int64(d > 0) + 2 * np.int64(d < 0)) << (2 * (r - 1))
        if n_rounds > 0:  # a game without round rows has no leader codes
            _count_lead(code, n_rounds, winner[g], lead)
        if g == n - 1 or pair[g + 1] != pair[g]:
            for pos in range(1, k + 1):  # placements, open_rounds
                bx[0, pos - 1] += placed[pos]
                bx[1, pos - 1] += pair_rounds - robbed[pos]
                placed[pos], robbed[pos] = 0, 0
            pair_rounds = 0
            end_pair(border, pair[g], pair[n - 1])
            end_pair(gap, pair[g], pair[n - 1])


def _count_lead(code, n_rounds, winner, lead):
    """lead[R, changes, d, decided] += 1 for one game (runner/sums.lead_counts' rules:
    the leader of round i is bits 2i of the code; d is 1 + the last round the final
    winner was not strictly ahead, 0 without a winner)."""
    ahead = 1 if winner == 0 else 2
    changes, last = 0, 0
    prev = code & 3
    for i in range(n_rounds):
        leader = (code >> (2 * i)) & 3
        changes += np.int64(leader != prev)
        prev = leader
        last = i + 1 if leader != ahead else last
    decided = 1 if winner >= 0 else 0
    lead[n_rounds, changes, (last + 1) * decided, decided] += 1.0


def _add5(x, h, x1, x2, x3, x4, x5):
    x[1, h] += x1
    x[2, h] += x2
    x[3, h] += x3
    x[4, h] += x4
    x[5, h] += x5


def _offered_in_full(x):
    """A pair's card values (6 x groups) hold, of each offered card's (1, 0, 0, 0, 2, 1),
    only the 1: add the rest (one add per offered card instead of six)."""
    for h in range(x.shape[1]):
        x[4, h] += 2.0 * x[0, h]
        x[5, h] += x[0, h]


def cards_pass(offers, acq, game0, pair, points, diff, has, class_of, symbol_of, cards,
               tribe, play_hist, plays, masks):
    """cards (6 x groups): sums_tribe_pairs.sql's values of each card added to its
    class's group (class_of) and to its symbol's (symbol_of: sums_symbol_pairs.sql's
    groups follow the classes' in the same table); tribe (cards x 9):
    sums_tribe.sql; play_hist: example_plays.sql's values counted (value v at v + half
    its length minus one; its last slot unused), and the rare value outside it in
    `plays` (returns how many); masks (games x 7): the game digest's card masks
    (runner/digests.py: offered, then acquired, played, centre for seats 0 and 1). A
    card offered in a game adds (1, 0, 0, 0, 2, 1) (_offered_in_full); the few cards
    with acquisition rows then correct that by their players' flags. Branch-free where
    the data is random: a mispredicted branch costs more than the sums."""
    n, nc = len(pair), len(class_of)
    cx = cards[0]
    offset = (len(play_hist) - 2) // 2
    # the game's cards with acquisition rows; each row writes a slot before it counts,
    # so a game that touched every card still has one to write
    taken = np.zeros(nc + 1, np.int64)
    by_source = np.zeros((nc, 4), np.int64)  # acquisition rows by card and source
    by_outcome = np.zeros((nc, 4), np.int64)  # and by outcome
    got_rounds = np.zeros(nc, np.int64)  # the sum of its acquisitions' rounds
    shown_rounds = np.zeros(nc, np.int64)  # tribe[:, 0]
    g, shown = 0, np.uint64(0)  # a game's offered mask builds up in a register
    for i in range(len(offers)):  # the games' offered masks first
        c, h = offers[i, rec.RO_CARD], offers[i, 0] - game0
        if h != g:
            masks[g, 0] = shown
            g, shown = h, np.uint64(0)
        shown |= np.uint64(1) << np.uint64(c)
        shown_rounds[c] += 1
    if len(offers):
        masks[g, 0] = shown
    ia, m = 0, 0
    zero, one = np.uint64(0), np.uint64(1)
    for g in range(n):
        shown = masks[g, 0]
        for c in range(nc):
            o = _bit(shown, c)
            cx[0, class_of[c]] += o
            cx[0, symbol_of[c]] += o
        # the game's cards with rows, and each seat's flags as masks, in registers
        n_taken, seen = 0, zero
        got0, got1, played0, played1, centre0, centre1 = zero, zero, zero, zero, zero, zero
        while ia < len(acq) and acq[ia, 0] - game0 == g:
            # unsigned: numba then indexes without checking for negative indices
            row = acq[ia]
            c, src, out = np.uint32(row[rec.RA_CARD]), np.uint32(row[rec.RA_SOURCE]), \
                np.uint32(row[rec.RA_OUTCOME])
            r, p = np.uint32(row[rec.RA_ROUND]), row[rec.RA_PLAYER]
            got, centre, played = np.int64(src != rec.SRC_HAND), \
                np.int64(src == rec.SRC_CENTRE), np.int64(out == rec.OUT_PLAYED)
            by_source[c, src] += 1
            by_outcome[c, out] += 1
            got_rounds[c] += np.int64(r) * got
            # a play in a round with rows: its swing for the seat (a whole number)
            value = np.int64(diff[g, r] - diff[g, np.int64(r) - 1]) * (1 - 2 * p)
            count = played & np.int64(has[g, r] > 0)
            inside = np.int64(-offset <= value <= offset)
            play_hist[value + offset if inside else len(play_hist) - 1] += count
            plays[m] = value
            m += count & (1 - inside)
            bit = np.uint64(c)
            taken[n_taken] = c
            n_taken += _bit(seen, c) ^ 1
            seen |= one << bit
            got0, got1 = _by_seat(got0, got1, np.uint64(got) << bit, p)
            played0, played1 = _by_seat(played0, played1, np.uint64(played) << bit, p)
            centre0, centre1 = _by_seat(centre0, centre1, np.uint64(centre) << bit, p)
            ia += 1
        masks[g, 1], masks[g, 2], masks[g, 3] = got0, got1, played0
        masks[g, 4], masks[g, 5], masks[g, 6] = played1, centre0, centre1
        points0, points1 = points[g, 0], points[g, 1]
        for t in range(n_taken):
            c = taken[t]
            o = _bit(shown, c)
            g0, g1 = _bit(got0, c) & o, _bit(got1, c) & o
            p0, p1 = _bit(played0, c), _bit(played1, c)
            x1 = o * (_bit(centre0, c) + _bit(centre1, c))
            x3 = p0 * points0 + p1 * points1
            x5 = -(g0 * points0 + g1 * points1)
            _add5(cx, class_of[c], x1, p0 + p1, x3, -(g0 + g1), x5)
            _add5(cx, symbol_of[c], x1, p0 + p1, x3, -(g0 + g1), x5)
        if g == n - 1 or pair[g + 1] != pair[g]:
            _offered_in_full(cx)
            end_pair(cards, pair[g], pair[n - 1])
    for c in range(nc):
        rows = by_source[c, 0] + by_source[c, 1] + by_source[c, 2] + by_source[c, 3]
        tribe[c, 0] += shown_rounds[c]
        tribe[c, 1] += rows - by_source[c, rec.SRC_HAND]
        tribe[c, 2] += by_source[c, rec.SRC_CENTRE]
        tribe[c, 3] += by_source[c, rec.SRC_EXPANSION]
        tribe[c, 4] += by_outcome[c, rec.OUT_PLAYED]
        tribe[c, 5] += by_outcome[c, rec.OUT_KEPT]
        tribe[c, 6] += by_outcome[c, rec.OUT_DISCARDED]
        tribe[c, 7] += rows
        tribe[c, 8] += got_rounds[c]
    return m


def raids_pass(rows, game0, pair, points, goods_vp, gold_vp, raid_pairs, flat, per_game):
    """raid_pairs (3 x raids x kinds, sums_arrays.RAID_KINDS): sums_raid_pairs.sql's
    values per raid and kind: n, points, and the raid's facing in every kind's column
    (its products with each kind's n); flat (raids x kinds x 5): sums_raids.sql;
    per_game (games x 2 seats x 4): amount lost, cost in VP exactly and in
    VP-equivalents (raids_swing.sql), rows."""
    n = len(pair)
    x = raid_pairs[0]
    kinds = flat.shape[1]
    # by kind: VP-equivalents of the amount and of the gold column, exact VP of the amount
    # (a table, not branches: kinds come in random order)
    rates = np.zeros((kinds, 3))
    rates[rec.PAID_VP, 0], rates[rec.PAID_VP, 2] = 1.0, 1.0
    rates[rec.PAID_GOODS, 0] = goods_vp
    rates[rec.PAID_GOLD, 0] = gold_vp
    rates[rec.PAID_GOODS_GOLD, 0], rates[rec.PAID_GOODS_GOLD, 1] = goods_vp, gold_vp
    i = 0
    for g in range(n):
        while i < len(rows) and rows[i, 0] - game0 == g:
            p, raid, kind = rows[i, rec.RD_PLAYER], rows[i, rec.RD_RAID], rows[i, rec.RD_PAID]
            amount, bonus = rows[i, rec.RD_AMOUNT], rows[i, rec.RD_BONUS]
            x[0, raid * kinds + kind] += 1.0
            x[1, raid * kinds + kind] += points[g, p]
            x[2, raid * kinds] += 1.0  # the facing: copied to the other kinds per pair
            flat[raid, kind, 0] += 1.0
            flat[raid, kind, 1] += amount
            flat[raid, kind, 2] += rows[i, rec.RD_GOLD]
            flat[raid, kind, 3] += bonus
            flat[raid, kind, 4] += points[g, p]
            eq = amount * rates[kind, 0] + rows[i, rec.RD_GOLD] * rates[kind, 1]
            per_game[g, p, 0] += amount
            per_game[g, p, 1] += amount * rates[kind, 2] + bonus
            per_game[g, p, 2] += eq + bonus
            per_game[g, p, 3] += 1.0
            i += 1
        if g == n - 1 or pair[g + 1] != pair[g]:
            for at in range(0, x.shape[1], kinds):
                for k in range(1, kinds):
                    x[2, at + k] = x[2, at]
            end_pair(raid_pairs, pair[g], pair[n - 1])


def goods_pass(rows, game0, pair, points, goods_pairs, flat):
    """goods_pairs (2 x goods cards): sums_goods_pairs.sql; flat (cards x 3):
    sums_goods.sql."""
    n = len(pair)
    x = goods_pairs[0]
    k = x.shape[1]
    counts = np.zeros((k, 3), np.int64)  # flat's, added as integers
    zero, one = np.uint64(0), np.uint64(1)
    i = 0
    for g in range(n):
        took0, took1 = zero, zero  # the cards each seat took (bit = card): branch-free
        while i < len(rows) and rows[i, 0] - game0 == g:
            c = np.uint32(rows[i, rec.RG_CARD])
            took0, took1 = _by_seat(took0, took1, one << np.uint64(c), rows[i, rec.RG_PLAYER])
            counts[c, 0] += 1
            counts[c, 1 + rows[i, rec.RG_SOURCE]] += 1
            i += 1
        points0, points1 = points[g, 0], points[g, 1]
        for c in range(k):
            t0, t1 = _bit(took0, c), _bit(took1, c)
            x[0, c] += t0 + t1
            x[1, c] += t0 * points0 + t1 * points1
        if g == n - 1 or pair[g + 1] != pair[g]:
            end_pair(goods_pairs, pair[g], pair[n - 1])
    for c in range(k):
        for j in range(3):
            flat[c, j] += counts[c, j]


def games_pass(G, pair, points, last_display, per_game, strategy_of_seat, matchups,
               end_reason, shape, swing, game_length, raids_eq):
    """Per pair (G: the engine's result rows; the outputs are pairs x values x groups):
    matchups, end_reason, shape, swing: sums_matchups.sql, sums_end_reason.sql,
    strategy_shape.sql (last_display and per_game[..., 0] give the cards and raid
    losses), raids_swing.sql (per_game: raids_pass's costs); game_length (rounds x end
    reasons x 1): sums_game_length.sql; raids_eq: example_raids.sql's values (returns
    how many). Few groups: the caller settles them all at once (settle)."""
    m = 0
    for g in range(len(pair)):
        q = pair[g]
        w, f, tb = G[g, rec.G_WINNER], G[g, rec.G_FIRST], G[g, rec.G_TIEBREAK]
        s0, s1, rounds = G[g, rec.G_SCORE0], G[g, rec.G_SCORE1], G[g, rec.G_ROUNDS]
        end = G[g, rec.G_END]
        first_points = 1.0 if w == f else (0.5 if w == -1 else 0.0)
        for j, v in enumerate((1.0, 1.0 * (w == f), 1.0 * (w == -1), first_points,
                               1.0 * (w == 0), 1.0 * (w == 1), points[g, 0], 1.0 * rounds,
                               1.0 * rounds * rounds, 1.0 * (tb == 1 or tb == 2),
                               1.0 * (tb != 0), 1.0 * (s0 + s1))):
            matchups[q, j, 0] += v
        end_reason[q, 0, end] += 1.0
        end_reason[q, 1, end] += 1.0 * (w == f)
        end_reason[q, 2, end] += 1.0 * (w == -1)
        end_reason[q, 3, end] += first_points
        for p in range(2):
            k = strategy_of_seat[p]
            base = rec.G_BREAKDOWN + p * rec.G_BD
            figures = (last_display[g, p], 1.0 * G[g, base], 1.0 * G[g, base + 1],
                       1.0 * G[g, base + 3], per_game[g, p, 0])
            shape[q, 0, k] += 1.0
            for j, v in enumerate(figures):
                shape[q, 1 + j, k] += v
                shape[q, 6 + j, k] += v * v
        game_length[rounds, end, 0] += 1.0
        if w != -1:
            exact = per_game[g, 0, 1] * (-1.0 if w == 0 else 1.0) \
                + per_game[g, 1, 1] * (-1.0 if w == 1 else 1.0)
            eq = per_game[g, 0, 2] * (-1.0 if w == 0 else 1.0) \
                + per_game[g, 1, 2] * (-1.0 if w == 1 else 1.0)
            margin = 1.0 * abs(s0 - s1)
            for j, v in enumerate((1.0, 1.0 * (exact > 0 and margin <= exact),
                                   1.0 * (eq > 0 and margin <= eq), margin, exact, eq)):
                swing[q, j, 0] += v
            if per_game[g, 0, 3] + per_game[g, 1, 3] > 0:
                raids_eq[m] = eq + 0.0
                m += 1
    return m


# Compiled into the engine's cache (targi_sim.engine.compile_cache): its folder is keyed
# by the engine's sources, whose log layout these loops read as constants, so a change
# there recompiles them, as numba's own per-file cache would not notice.
with compile_cache():
    settle_row = jit_inline(settle_row)
    settle = jit_alloc(settle)
    end_pair = jit_inline(end_pair)
    rounds_pass = jit_alloc(rounds_pass)
    _count_lead = jit_inline(_count_lead)
    _bit = jit_inline(_bit)
    _by_seat = jit_inline(_by_seat)
    _add5 = jit_inline(_add5)
    _offered_in_full = jit_inline(_offered_in_full)
    cards_pass = jit_alloc(cards_pass)
    raids_pass = jit_alloc(raids_pass)
    goods_pass = jit_alloc(goods_pass)
    games_pass = jit_alloc(games_pass)


__all__ = ["cards_pass", "games_pass", "goods_pass", "raids_pass", "rounds_pass", "settle"]
