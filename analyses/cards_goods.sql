-- Per goods card id (one per physical card): times taken, by source, and its content.
-- The results of players who took it come from cards_goods_masks.sql.
WITH taken AS (
    SELECT card_id::INTEGER AS card_id, count(*) AS taken,
           count(*) FILTER (WHERE source = 'centre') AS taken_centre,
           count(*) FILTER (WHERE source = 'border') AS taken_border
    FROM goods GROUP BY ALL
)
SELECT c.card_id::INTEGER AS card_id, c.name,
       c.salt, c.pepper, c.dates, c.gold, c.choose_one, c.vp,
       coalesce(t.taken, 0) AS taken,
       coalesce(t.taken_centre, 0) AS taken_centre,
       coalesce(t.taken_border, 0) AS taken_border
FROM cards c
LEFT JOIN taken t ON t.card_id = c.card_id
WHERE c.card_type = 'goods'
ORDER BY card_id;
