-- Round-1 first player's results by how the game ended.
SELECT end_reason, count(*) AS n,
       sum((winner = first_player)::INTEGER) AS first_wins,
       sum((winner = -1)::INTEGER) AS draws,
       sum(CASE WHEN winner = first_player THEN 1.0 WHEN winner = -1 THEN 0.5 ELSE 0.0 END)
           AS first_points
FROM games
GROUP BY ALL
ORDER BY end_reason;
