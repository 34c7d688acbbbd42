-- Chunk summaries (targi_sim/runner/sums.py): per matchup and pair_id, the pair's games and
-- results (the linear values; the summary adds their per-pair products). Every rate over
-- games in the report is built from these sums.
SELECT p0_strategy::VARCHAR AS p0_strategy, p1_strategy::VARCHAR AS p1_strategy, pair_id,
       count(*)::DOUBLE AS games,
       sum((winner = first_player)::INTEGER)::DOUBLE AS first_wins,
       sum((winner = -1)::INTEGER)::DOUBLE AS draws,
       sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
           ::DOUBLE AS first_points,
       sum((winner = 0)::INTEGER)::DOUBLE AS wins_p0,
       sum((winner = 1)::INTEGER)::DOUBLE AS wins_p1,
       sum(CASE WHEN winner = 0 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)::DOUBLE
           AS points_p0,
       sum(rounds::INTEGER)::DOUBLE AS rounds,
       sum(rounds::INTEGER * rounds::INTEGER)::DOUBLE AS rounds_sq,
       sum((tiebreak IN ('gold', 'goods'))::INTEGER)::DOUBLE AS tiebreak_decided,
       sum((tiebreak <> 'none')::INTEGER)::DOUBLE AS tiebreaks,
       sum(score_p0::INTEGER + score_p1::INTEGER)::DOUBLE AS score
FROM games
GROUP BY ALL;
