-- Per tribe card: offers and acquisitions counted from the raw rows. The per-game
-- counts (offered games, results of players who did / did not take the card) come from
-- cards_tribe_masks.sql. "acquired" counts a card's first acquisition (source centre or
-- tribal_expansion); the later `hand` row of a kept card is not a second acquisition.
WITH tribe AS (
    SELECT card_id::INTEGER AS card_id FROM cards WHERE card_type = 'tribe'
), off_rounds AS (
    SELECT card_id::INTEGER AS card_id, count(*) AS offered_rounds FROM offers GROUP BY ALL
), acq_rows AS (
    SELECT card_id::INTEGER AS card_id,
           count(*) FILTER (WHERE source <> 'hand') AS acquired,
           count(*) FILTER (WHERE source = 'centre') AS acquired_centre,
           count(*) FILTER (WHERE source = 'tribal_expansion') AS acquired_expansion,
           count(*) FILTER (WHERE outcome = 'played') AS played_rows,
           count(*) FILTER (WHERE outcome = 'kept') AS kept,
           count(*) FILTER (WHERE outcome = 'discarded') AS discarded,
           count(*) AS acquisition_rows,
           avg(round) FILTER (WHERE source <> 'hand') AS round_mean
    FROM acquisitions GROUP BY ALL
)
SELECT t.card_id, c.name, c.symbol, c.vp,
       c.cost_salt, c.cost_pepper, c.cost_dates, c.cost_gold,
       coalesce(r.offered_rounds, 0) AS offered_rounds,
       coalesce(q.acquired, 0) AS acquired,
       coalesce(q.acquired_centre, 0) AS acquired_centre,
       coalesce(q.acquired_expansion, 0) AS acquired_expansion,
       coalesce(q.played_rows, 0) AS played,
       coalesce(q.kept, 0) AS kept,
       coalesce(q.discarded, 0) AS discarded,
       coalesce(q.acquisition_rows, 0) AS acquisition_rows,
       q.round_mean
FROM tribe t
JOIN cards c ON c.card_type = 'tribe' AND c.card_id = t.card_id
LEFT JOIN off_rounds r ON r.card_id = t.card_id
LEFT JOIN acq_rows q ON q.card_id = t.card_id
ORDER BY t.card_id;
