-- Per border position: Targi placements and rounds the card was open (robber elsewhere).
-- The results of the players who used it come from cards_border_masks.sql.
WITH places AS (
    SELECT pos, count(*) AS placements
    FROM (SELECT unnest([targi_card_1, targi_card_2, targi_card_3]) AS pos FROM rounds)
    WHERE pos > 0 GROUP BY pos
), robber AS (
    SELECT robber_card AS pos, count(*) AS robber_rounds
    FROM rounds WHERE player = 0 GROUP BY ALL
), total AS (
    SELECT count(*) AS game_rounds FROM rounds WHERE player = 0
)
SELECT c.card_id::INTEGER AS position, c.name, c.kind,
       coalesce(pl.placements, 0) AS placements,
       t.game_rounds - coalesce(r.robber_rounds, 0) AS open_rounds
FROM cards c CROSS JOIN total t
LEFT JOIN places pl ON pl.pos = c.card_id
LEFT JOIN robber r ON r.pos = c.card_id
WHERE c.card_type = 'border'
ORDER BY position;
