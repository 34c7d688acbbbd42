-- Seat 0's points per seat-swapped pair and matchup, for the win-rate matrix, its
-- design effect and the Elo fit.
SELECT pair_id, p0_strategy, p1_strategy, count(*)::INTEGER AS games,
       sum((winner = 0)::INTEGER)::INTEGER AS wins_p0,
       sum((winner = -1)::INTEGER)::INTEGER AS draws,
       sum(CASE WHEN winner = 0 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END) AS points_p0
FROM games
GROUP BY ALL;
