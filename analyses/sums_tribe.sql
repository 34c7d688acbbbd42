-- Chunk summaries: per tribe card id, offers and acquisitions counted from the raw rows
-- (round_sum / acquired is the mean acquisition round). "acquired" counts a card's first
-- acquisition (source centre or tribal_expansion); the later `hand` row of a kept card is
-- not a second acquisition. The per-game counts are sums_tribe_pairs.sql's.
WITH off_rounds AS (
    SELECT card_id::INTEGER AS card_id, count(*) AS offered_rounds FROM offers GROUP BY ALL
), acq_rows AS (
    SELECT card_id::INTEGER AS card_id,
           count(*) FILTER (WHERE source <> 'hand') AS acquired,
           count(*) FILTER (WHERE source = 'centre') AS acquired_centre,
           count(*) FILTER (WHERE source = 'tribal_expansion') AS acquired_expansion,
           count(*) FILTER (WHERE outcome = 'played') AS played,
           count(*) FILTER (WHERE outcome = 'kept') AS kept,
           count(*) FILTER (WHERE outcome = 'discarded') AS discarded,
           count(*) AS acquisition_rows,
           coalesce(sum(round::INTEGER) FILTER (WHERE source <> 'hand'), 0) AS round_sum
    FROM acquisitions GROUP BY ALL
)
SELECT card_id, coalesce(r.offered_rounds, 0)::DOUBLE AS offered_rounds,
       coalesce(q.acquired, 0)::DOUBLE AS acquired,
       coalesce(q.acquired_centre, 0)::DOUBLE AS acquired_centre,
       coalesce(q.acquired_expansion, 0)::DOUBLE AS acquired_expansion,
       coalesce(q.played, 0)::DOUBLE AS played, coalesce(q.kept, 0)::DOUBLE AS kept,
       coalesce(q.discarded, 0)::DOUBLE AS discarded,
       coalesce(q.acquisition_rows, 0)::DOUBLE AS acquisition_rows,
       coalesce(q.round_sum, 0)::DOUBLE AS round_sum
FROM off_rounds r FULL JOIN acq_rows q USING (card_id);
