-- Chunk summaries: per raid and payment kind (raids_mix.sql's counts without the VP rates:
-- the VP-equivalent is amount, gold and opponent_bonus weighted by the kind).
SELECT r.raid::INTEGER AS raid, r.paid::VARCHAR AS paid, count(*)::DOUBLE AS n,
       sum(r.amount)::DOUBLE AS amount, sum(r.gold)::DOUBLE AS gold,
       sum(r.opponent_bonus)::DOUBLE AS opponent_bonus, sum(p.points)::DOUBLE AS points
FROM raids r JOIN player_games p USING (game_id, player)
GROUP BY ALL;
