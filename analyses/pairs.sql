-- One row per pair_id (the games that share a deal: a seat-swapped pair, or a game on its
-- own when its deal is played once) and matchup: the pair's games, the round-1 first
-- player's and seat 0's results, rounds. Every rate over games in the report is a sum
-- over these rows, and their per-pair values give its clustered interval
-- (targi_sim.stats): the pair, not the game, is the independent unit.
SELECT pair_id, p0_strategy, p1_strategy, count(*)::INTEGER AS games,
       sum((winner = first_player)::INTEGER)::INTEGER AS first_wins,
       sum((winner = -1)::INTEGER)::INTEGER AS draws,
       sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
           AS first_points,
       sum((winner = 0)::INTEGER)::INTEGER AS wins_p0,
       sum((winner = 1)::INTEGER)::INTEGER AS wins_p1,
       sum(CASE WHEN winner = 0 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END) AS points_p0,
       sum(rounds::INTEGER)::INTEGER AS rounds,
       sum(rounds::INTEGER * rounds::INTEGER)::INTEGER AS rounds_sq,
       sum((tiebreak IN ('gold', 'goods'))::INTEGER)::INTEGER AS tiebreak_decided
FROM games
GROUP BY ALL;
