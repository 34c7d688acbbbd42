-- Round-1 first player's results by how the game ended, with per-pair sums (a pair's
-- games may end differently: each end reason is a domain of the pairs).
WITH per_pair AS (
    SELECT end_reason, pair_id, count(*) AS n,
           sum((winner = first_player)::INTEGER) AS first_wins,
           sum((winner = -1)::INTEGER) AS draws,
           sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
               AS first_points
    FROM games
    GROUP BY ALL
)
SELECT end_reason, sum(n) AS n, sum(first_wins) AS first_wins, sum(draws) AS draws,
       sum(first_points) AS first_points,
       count(*) AS n__k, sum(n * n) AS n__nn,
       sum(first_points * first_points) AS first_points__xx,
       sum(first_points * n) AS first_points__xn
FROM per_pair
GROUP BY ALL
ORDER BY end_reason;
