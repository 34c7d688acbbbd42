-- The border positions of the deck. Placements, open rounds (robber elsewhere), the
-- results of the players who used each position and the per-pair counts of the
-- clustered rates come from cards_border_masks.sql (targi_sim/report/metrics.py).
SELECT card_id::INTEGER AS position, name, kind
FROM cards
WHERE card_type = 'border'
ORDER BY position;
