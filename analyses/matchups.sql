-- One row per matchup (seat 0 strategy, seat 1 strategy), with the per-pair sums of
-- seat 0's points for its clustered interval.
WITH per_pair AS (
    SELECT p0_strategy, p1_strategy, pair_id, count(*) AS games,
           sum((winner = 0)::INTEGER) AS wins_p0,
           sum((winner = 1)::INTEGER) AS wins_p1,
           sum((winner = -1)::INTEGER) AS draws,
           sum(CASE WHEN winner = 0 THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
               AS points_p0,
           sum(rounds::INTEGER) AS rounds
    FROM games
    GROUP BY ALL
)
SELECT p0_strategy, p1_strategy, sum(games) AS games, sum(wins_p0) AS wins_p0,
       sum(wins_p1) AS wins_p1, sum(draws) AS draws, sum(rounds) / sum(games) AS rounds_mean,
       sum(points_p0) AS points_p0,
       count(*) AS games__k, sum(games * games) AS games__nn,
       sum(points_p0 * points_p0) AS points_p0__xx, sum(points_p0 * games) AS points_p0__xn
FROM per_pair
GROUP BY ALL
ORDER BY p0_strategy, p1_strategy;
