-- Chunk summaries: per game the rounds, the leader after every round (lead_codes.sql's
-- code) and the winner; targi_sim/runner/sums.py counts games per (rounds, lead changes,
-- decisive round, decided). Needs round_diff.sql.
SELECT c.n_rounds, c.code, g.winner::INTEGER AS winner
FROM (SELECT game_id, count(*)::INTEGER AS n_rounds,
             bit_or((CASE WHEN diff0 > 0 THEN 1 WHEN diff0 < 0 THEN 2 ELSE 0 END)::BIGINT
                    << (2 * (round - 1))) AS code
      FROM round_diff GROUP BY game_id) c
JOIN games g USING (game_id);
