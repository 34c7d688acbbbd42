-- Chunk summaries: per border position and pair_id (cards_border_masks.sql's counts):
-- Targi placements on it, the game-rounds it was open (robber elsewhere), the players who
-- placed on it at least once in a game and their points.
WITH pos AS (
    SELECT card_id::INTEGER AS position FROM cards WHERE card_type = 'border'
), lengths AS (
    SELECT game_id, count(*) FILTER (WHERE player = 0) AS rounds FROM rounds GROUP BY ALL
), robbed AS (
    SELECT game_id, robber_card::INTEGER AS position, count(*) AS robbed
    FROM rounds WHERE player = 0 GROUP BY ALL
), placed AS (
    SELECT game_id, player, position, count(*) AS placements
    FROM (SELECT game_id, player,
                 unnest([targi_card_1, targi_card_2, targi_card_3])::INTEGER AS position
          FROM rounds)
    WHERE position > 0 GROUP BY ALL
), open AS (
    SELECT g.pair_id, p.position,
           sum(coalesce(l.rounds, 0) - coalesce(r.robbed, 0))::DOUBLE AS open_rounds
    FROM games g CROSS JOIN pos p
    LEFT JOIN lengths l ON l.game_id = g.game_id
    LEFT JOIN robbed r ON r.game_id = g.game_id AND r.position = p.position
    GROUP BY ALL
), used AS (
    SELECT pg.pair_id, u.position, sum(u.placements)::DOUBLE AS placements,
           count(*)::DOUBLE AS used_n, sum(pg.points)::DOUBLE AS used_points
    FROM placed u JOIN player_games pg USING (game_id, player)
    GROUP BY ALL
)
SELECT position, pair_id, open_rounds, coalesce(placements, 0) AS placements,
       coalesce(used_n, 0) AS used_n, coalesce(used_points, 0) AS used_points
FROM open LEFT JOIN used USING (pair_id, position);
