-- Chunk summaries: holdings after each round summed by round, seat and strategy, and by
-- round and role (curves.sql and curves_first.sql divide them by n).
SELECT r.round::INTEGER AS round, r.player::INTEGER AS seat,
       (CASE WHEN r.player = 0 THEN g.p0_strategy ELSE g.p1_strategy END)::VARCHAR AS strategy,
       CASE WHEN r.player = g.first_player THEN 'first' ELSE 'second' END AS role,
       count(*)::DOUBLE AS n, sum(r.score_now)::DOUBLE AS score,
       sum(r.vp_tokens)::DOUBLE AS vp_tokens, sum(r.gold)::DOUBLE AS gold,
       sum(r.dates + r.salt + r.pepper)::DOUBLE AS goods,
       sum(r.display_count)::DOUBLE AS display
FROM rounds r JOIN games g USING (game_id)
GROUP BY ALL;
