-- One row per game: the leader after every round packed into 2 bits per round
-- (bits 2(r-1)..2r-1: 0 = level, 1 = seat 0 ahead, 2 = seat 1 ahead), for LeadChange
-- and Decisiveness (computed in targi_sim/report/metrics.py). Needs round_diff.sql.
WITH codes AS (
    SELECT game_id, count(*)::INTEGER AS n_rounds,
           bit_or((CASE WHEN diff0 > 0 THEN 1 WHEN diff0 < 0 THEN 2 ELSE 0 END)::BIGINT
                  << (2 * (round - 1))) AS code
    FROM round_diff
    GROUP BY game_id
)
SELECT c.game_id, c.n_rounds, c.code, g.winner::INTEGER AS winner
FROM codes c JOIN games g USING (game_id);
