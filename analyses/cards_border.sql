-- Per border position: Targi placements, rounds the card was open (robber elsewhere),
-- and the results of the players who used it at least once in a game.
WITH places AS (
    SELECT pos, count(*) AS placements
    FROM (SELECT unnest([targi_card_1, targi_card_2, targi_card_3]) AS pos FROM rounds)
    WHERE pos > 0 GROUP BY pos
), robber AS (
    SELECT robber_card AS pos, count(*) AS robber_rounds
    FROM rounds WHERE player = 0 GROUP BY ALL
), total AS (
    SELECT count(*) AS game_rounds FROM rounds WHERE player = 0
), used AS (
    SELECT game_id, player,
           bit_or((1::INTEGER << targi_card_1) | (1::INTEGER << targi_card_2)
                  | (1::INTEGER << targi_card_3)) AS m
    FROM rounds GROUP BY game_id, player
), used_by_pos AS (
    SELECT pos, count(*) AS used_n, sum(p.points) AS used_points
    FROM used u JOIN player_games p USING (game_id, player)
    CROSS JOIN (SELECT unnest(range(1, 17)) AS pos)
    WHERE ((u.m >> pos) & 1) = 1
    GROUP BY pos
)
SELECT c.card_id::INTEGER AS position, c.name, c.kind,
       coalesce(pl.placements, 0) AS placements,
       t.game_rounds - coalesce(r.robber_rounds, 0) AS open_rounds,
       coalesce(u.used_n, 0) AS used_n,
       coalesce(u.used_points, 0) AS used_points
FROM cards c CROSS JOIN total t
LEFT JOIN places pl ON pl.pos = c.card_id
LEFT JOIN robber r ON r.pos = c.card_id
LEFT JOIN used_by_pos u ON u.pos = c.card_id
WHERE c.card_type = 'border'
ORDER BY position;
