-- Mean score of the round-1 first player minus the second player's, after each round.
-- Needs round_diff.sql.
SELECT d.round, count(*) AS n,
       avg(CASE WHEN g.first_player = 0 THEN d.diff0 ELSE -d.diff0 END) AS gap_mean,
       stddev_samp(CASE WHEN g.first_player = 0 THEN d.diff0 ELSE -d.diff0 END) AS gap_sd
FROM round_diff d JOIN games g USING (game_id)
GROUP BY d.round
ORDER BY d.round;
