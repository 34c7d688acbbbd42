-- Chunk summaries: the round-1 first player's results per end reason and pair_id.
SELECT end_reason::VARCHAR AS end_reason, pair_id, count(*)::DOUBLE AS n,
       sum((winner = first_player)::INTEGER)::DOUBLE AS first_wins,
       sum((winner = -1)::INTEGER)::DOUBLE AS draws,
       sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
           ::DOUBLE AS first_points
FROM games
GROUP BY ALL;
