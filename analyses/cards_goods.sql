-- Per goods card id (one per physical card): times taken, by source, its content, and
-- the results of players who took it at least once in a game.
WITH taken AS (
    SELECT card_id::INTEGER AS card_id, count(*) AS taken,
           count(*) FILTER (WHERE source = 'centre') AS taken_centre,
           count(*) FILTER (WHERE source = 'border') AS taken_border
    FROM goods GROUP BY ALL
), masks AS (
    SELECT game_id, player, bit_or(1::UBIGINT << card_id::INTEGER) AS m
    FROM goods GROUP BY game_id, player
), by_card AS (
    SELECT c.card_id::INTEGER AS card_id, count(*) AS taker_n, sum(p.points) AS taker_points
    FROM masks m JOIN player_games p USING (game_id, player)
    CROSS JOIN (SELECT card_id FROM cards WHERE card_type = 'goods') c
    WHERE ((m.m >> c.card_id::INTEGER) & 1::UBIGINT) = 1
    GROUP BY ALL
)
SELECT c.card_id::INTEGER AS card_id, c.name,
       c.salt, c.pepper, c.dates, c.gold, c.choose_one, c.vp,
       coalesce(t.taken, 0) AS taken,
       coalesce(t.taken_centre, 0) AS taken_centre,
       coalesce(t.taken_border, 0) AS taken_border,
       coalesce(b.taker_n, 0) AS taker_n,
       coalesce(b.taker_points, 0) AS taker_points
FROM cards c
LEFT JOIN taken t ON t.card_id = c.card_id
LEFT JOIN by_card b ON b.card_id = c.card_id
WHERE c.card_type = 'goods'
ORDER BY card_id;
