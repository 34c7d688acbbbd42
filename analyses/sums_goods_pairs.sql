-- Chunk summaries: per goods card id and pair_id, the players who took it at least once in
-- a game and their points (cards_goods_masks.sql's counts).
WITH takers AS (SELECT DISTINCT game_id, player, card_id::INTEGER AS card_id FROM goods)
SELECT t.card_id, p.pair_id, count(*)::DOUBLE AS taker_n, sum(p.points)::DOUBLE AS taker_points
FROM takers t JOIN player_games p USING (game_id, player)
GROUP BY ALL;
