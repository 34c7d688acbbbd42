-- Mean score of the round-1 first player minus the second player's, after each round,
-- with per-pair sums for the clustered standard error. Needs round_diff.sql.
WITH gaps AS (
    SELECT d.round, g.pair_id,
           (CASE WHEN g.first_player = 0 THEN d.diff0 ELSE -d.diff0 END)::DOUBLE AS gap
    FROM round_diff d JOIN games g USING (game_id)
), per_pair AS (
    SELECT round, pair_id, count(*) AS n, sum(gap) AS gap, sum(gap * gap) AS gap_sq
    FROM gaps GROUP BY ALL
)
SELECT round, sum(n) AS n, sum(gap) / sum(n) AS gap_mean,
       sqrt(greatest(sum(gap_sq) - sum(gap) * sum(gap) / sum(n), 0) / nullif(sum(n) - 1, 0))
           AS gap_sd,
       sum(gap) AS gap_sum, count(*) AS n__k, sum(n * n) AS n__nn,
       sum(gap * gap) AS gap_sum__xx, sum(gap * n) AS gap_sum__xn
FROM per_pair
GROUP BY round
ORDER BY round;
