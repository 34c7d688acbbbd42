-- Win / draw / loss per strategy and seat (both seats of a mirror match are counted),
-- with the per-pair sums the clustered intervals need (targi_sim.stats: columns
-- <trials>__k, <trials>__nn, <successes>__xx, <successes>__xn).
WITH per_pair AS (
    SELECT strategy, player AS seat, pair_id, count(*) AS n,
           sum((winner = player)::INTEGER) AS wins,
           sum((winner = -1)::INTEGER) AS draws,
           sum((winner = 1 - player)::INTEGER) AS losses,
           sum(points) AS points
    FROM player_games
    GROUP BY ALL
)
SELECT strategy, seat, sum(n) AS n, sum(wins) AS wins, sum(draws) AS draws,
       sum(losses) AS losses, sum(points) AS points,
       count(*) AS n__k, sum(n * n) AS n__nn,
       sum(points * points) AS points__xx, sum(points * n) AS points__xn,
       sum(draws * draws) AS draws__xx, sum(draws * n) AS draws__xn
FROM per_pair
GROUP BY ALL
ORDER BY strategy, seat;
