-- Chunk summaries: games by rounds played and end reason.
SELECT rounds::INTEGER AS rounds, end_reason::VARCHAR AS end_reason, count(*)::DOUBLE AS games
FROM games
GROUP BY ALL;
