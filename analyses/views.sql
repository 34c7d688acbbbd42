-- Helper view used by the other analyses: one row per game x seat, from that seat's view.
-- points: 1 for a win, 0.5 for a draw, 0 for a loss (draws count as half a win).
-- token_vp, card_vp, row_bonus: that seat's VP from tokens, cards and row bonuses.
CREATE OR REPLACE TEMP VIEW player_games AS
SELECT game_id, pair_id, 0::TINYINT AS player, p0_strategy AS strategy, p1_strategy AS opponent,
       first_player = 0 AS r1_first, winner, end_reason,
       CASE WHEN winner = 0 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END AS points,
       tokens_p0::DOUBLE AS token_vp, card_vp_p0::DOUBLE AS card_vp,
       row_bonus_p0::DOUBLE AS row_bonus
FROM games
UNION ALL
SELECT game_id, pair_id, 1::TINYINT AS player, p1_strategy AS strategy, p0_strategy AS opponent,
       first_player = 1 AS r1_first, winner, end_reason,
       CASE WHEN winner = 1 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END AS points,
       tokens_p1::DOUBLE AS token_vp, card_vp_p1::DOUBLE AS card_vp,
       row_bonus_p1::DOUBLE AS row_bonus
FROM games;

-- The game shape: player_games with every figure of targi_sim/game/shape.py
-- (PLAYER_FIGURES): cards in the display at the end and goods, gold and VP paid to raids
-- added. The one per-player table of the game's shape (tests/test_shape.py keeps the
-- Python definition equal to it).
CREATE OR REPLACE TEMP VIEW player_shape AS
WITH cards AS (
    SELECT game_id, player::TINYINT AS player, arg_max(display_count, round)::DOUBLE AS cards
    FROM rounds GROUP BY ALL
),
raid AS (
    SELECT game_id, player::TINYINT AS player, sum(amount)::DOUBLE AS raid_losses
    FROM raids GROUP BY ALL
)
SELECT pg.*, coalesce(c.cards, 0) AS cards, coalesce(r.raid_losses, 0) AS raid_losses
FROM player_games pg
LEFT JOIN cards c USING (game_id, player)
LEFT JOIN raid r USING (game_id, player);

-- The game digest (targi_sim/runner/digests.py; the worker computes the same from its
-- arrays): one row per game of what the paired comparisons need that the games table
-- lacks. 64-bit masks of tribe card ids: offered in the game (face up in the centre in
-- any round) and, per seat, acquired (source centre or tribal_expansion), played (to the
-- display, from any source) and taken from the centre; the display's size at the seat's
-- last round; goods, gold and VP paid to raids. game_digest.sql and
-- cards_tribe_masks.sql read it.
CREATE OR REPLACE TEMP VIEW game_digest AS
WITH offered AS (
    SELECT game_id, bit_or(1::UBIGINT << card_id::INTEGER) AS m
    FROM offers GROUP BY game_id
), acq AS (
    SELECT game_id, player,
           bit_or(CASE WHEN source <> 'hand' THEN 1::UBIGINT << card_id::INTEGER
                       ELSE 0::UBIGINT END) AS acquired,
           bit_or(CASE WHEN outcome = 'played' THEN 1::UBIGINT << card_id::INTEGER
                       ELSE 0::UBIGINT END) AS played,
           bit_or(CASE WHEN source = 'centre' THEN 1::UBIGINT << card_id::INTEGER
                       ELSE 0::UBIGINT END) AS centre
    FROM acquisitions GROUP BY game_id, player
), cards AS (
    SELECT game_id, player, arg_max(display_count, round) AS cards
    FROM rounds GROUP BY game_id, player
), raid AS (
    SELECT game_id, player, sum(amount) AS raid_losses
    FROM raids GROUP BY game_id, player
)
SELECT g.game_id,
       coalesce(o.m, 0)::UBIGINT AS offered,
       coalesce(a0.acquired, 0)::UBIGINT AS acquired_p0,
       coalesce(a1.acquired, 0)::UBIGINT AS acquired_p1,
       coalesce(a0.played, 0)::UBIGINT AS played_p0,
       coalesce(a1.played, 0)::UBIGINT AS played_p1,
       coalesce(a0.centre, 0)::UBIGINT AS centre_p0,
       coalesce(a1.centre, 0)::UBIGINT AS centre_p1,
       coalesce(c0.cards, 0)::BIGINT AS cards_p0,
       coalesce(c1.cards, 0)::BIGINT AS cards_p1,
       coalesce(r0.raid_losses, 0)::BIGINT AS raid_losses_p0,
       coalesce(r1.raid_losses, 0)::BIGINT AS raid_losses_p1
FROM games g
LEFT JOIN offered o ON o.game_id = g.game_id
LEFT JOIN acq a0 ON a0.game_id = g.game_id AND a0.player = 0
LEFT JOIN acq a1 ON a1.game_id = g.game_id AND a1.player = 1
LEFT JOIN cards c0 ON c0.game_id = g.game_id AND c0.player = 0
LEFT JOIN cards c1 ON c1.game_id = g.game_id AND c1.player = 1
LEFT JOIN raid r0 ON r0.game_id = g.game_id AND r0.player = 0
LEFT JOIN raid r1 ON r1.game_id = g.game_id AND r1.player = 1;
