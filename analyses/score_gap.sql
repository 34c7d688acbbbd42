-- The round-1 first player's score minus the second player's after each round, one row
-- per game and round, with the game's pair_id: targi_sim/report/sections.py aggregates
-- the means and their pair-clustered intervals (numpy). Needs round_diff.sql.
SELECT d.round::INTEGER AS round, g.pair_id,
       (CASE WHEN g.first_player = 0 THEN d.diff0 ELSE -d.diff0 END)::DOUBLE AS gap
FROM round_diff d JOIN games g USING (game_id);
