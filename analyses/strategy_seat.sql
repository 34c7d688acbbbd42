-- Win / draw / loss per strategy and seat (both seats of a mirror match are counted).
SELECT strategy, player AS seat, count(*) AS n,
       sum((winner = player)::INTEGER) AS wins,
       sum((winner = -1)::INTEGER) AS draws,
       sum((winner = 1 - player)::INTEGER) AS losses,
       sum(points) AS points
FROM player_games
GROUP BY ALL
ORDER BY strategy, seat;
