-- Per seat-swapped pair (pair_id: the games that share a deal; a game on its own when
-- its deal is played once): the round-1 first player's points, draws and rounds, so
-- every rate over games can treat the pair, not the game, as the independent unit.
SELECT pair_id, p0_strategy, p1_strategy, count(*)::INTEGER AS games,
       sum((winner = first_player)::INTEGER)::INTEGER AS first_wins,
       sum((winner = -1)::INTEGER)::INTEGER AS draws,
       sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
           AS first_points,
       sum(rounds::INTEGER)::INTEGER AS rounds,
       sum(rounds::INTEGER * rounds::INTEGER)::INTEGER AS rounds_sq
FROM games
GROUP BY ALL;
