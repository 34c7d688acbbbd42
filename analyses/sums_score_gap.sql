-- Chunk summaries: per round and pair_id, the round-1 first player's score minus the second
-- player's after the round (games that reached it): count, sum and sum of squares.
-- Needs round_diff.sql.
SELECT d.round::INTEGER AS round, g.pair_id, count(*)::DOUBLE AS n,
       sum(CASE WHEN g.first_player = 0 THEN d.diff0 ELSE -d.diff0 END)::DOUBLE AS gap,
       sum(d.diff0::DOUBLE * d.diff0::DOUBLE) AS gap_sq
FROM round_diff d JOIN games g USING (game_id)
GROUP BY ALL;
