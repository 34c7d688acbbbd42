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
