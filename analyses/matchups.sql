-- One row per matchup (seat 0 strategy, seat 1 strategy).
SELECT p0_strategy, p1_strategy, count(*) AS games,
       sum((winner = 0)::INTEGER) AS wins_p0,
       sum((winner = 1)::INTEGER) AS wins_p1,
       sum((winner = -1)::INTEGER) AS draws,
       avg(rounds) AS rounds_mean
FROM games
GROUP BY ALL
ORDER BY p0_strategy, p1_strategy;
