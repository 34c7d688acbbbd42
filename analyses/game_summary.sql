-- Overview: one row for the whole run.
SELECT count(*) AS games,
       count(DISTINCT (p0_strategy, p1_strategy)) AS matchups,
       sum((winner = -1)::INTEGER) AS draws,
       sum((winner = first_player)::INTEGER) AS first_wins,
       sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
           AS first_points,
       avg(rounds) AS rounds_mean,
       stddev_samp(rounds) AS rounds_sd,
       min(rounds) AS rounds_min,
       max(rounds) AS rounds_max,
       avg(score_p0 + score_p1) / 2 AS score_mean,
       sum((tiebreak <> 'none')::INTEGER) AS tiebreaks
FROM games;
