-- Helper view used by the other analyses: one row per game x seat, from that seat's view.
-- points: 1 for a win, 0.5 for a draw, 0 for a loss (draws count as half a win).
CREATE OR REPLACE TEMP VIEW player_games AS
SELECT game_id, pair_id, 0::TINYINT AS player, p0_strategy AS strategy, p1_strategy AS opponent,
       first_player = 0 AS r1_first, winner, end_reason,
       CASE WHEN winner = 0 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END AS points
FROM games
UNION ALL
SELECT game_id, pair_id, 1::TINYINT AS player, p1_strategy AS strategy, p0_strategy AS opponent,
       first_player = 1 AS r1_first, winner, end_reason,
       CASE WHEN winner = 1 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END AS points
FROM games;
