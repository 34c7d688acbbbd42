-- Chunk summaries: per raid, payment kind and pair_id, the players who paid that way and
-- their points (raids_pairs.sql's rows summed per pair; targi_sim/runner/sums.py spreads
-- the kinds into columns beside the players facing the raid).
SELECT r.raid::INTEGER AS raid, r.paid::VARCHAR AS paid, g.pair_id, count(*)::DOUBLE AS n,
       sum(CASE WHEN g.winner = r.player THEN 1.0 WHEN g.winner = -1 THEN 0.5 ELSE 0.0 END)
           ::DOUBLE AS points
FROM raids r JOIN games g USING (game_id)
GROUP BY ALL;
