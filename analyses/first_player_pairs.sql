-- First-player points per seat-swapped pair (games 2k and 2k+1 share a deal), so the
-- test against 50% can treat a pair, not a game, as the independent unit.
SELECT pair_id, p0_strategy, p1_strategy, count(*)::INTEGER AS games,
       sum((winner = first_player)::INTEGER)::INTEGER AS first_wins,
       sum((winner = -1)::INTEGER)::INTEGER AS draws,
       sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
           AS first_points
FROM games
GROUP BY ALL;
