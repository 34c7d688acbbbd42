-- Chunk summaries: per goods card id, times taken, by source (cards_goods.sql's counts).
SELECT card_id::INTEGER AS card_id, count(*)::DOUBLE AS taken,
       count(*) FILTER (WHERE source = 'centre')::DOUBLE AS taken_centre,
       count(*) FILTER (WHERE source = 'border')::DOUBLE AS taken_border
FROM goods GROUP BY ALL;
