-- One row per game x player: pair_id, points and a mask of the border positions (bit k =
-- position k, 1..16) where the player placed a Targi at least once in the game.
WITH used AS (
    SELECT game_id, player,
           bit_or((1::UBIGINT << targi_card_1::INTEGER) | (1::UBIGINT << targi_card_2::INTEGER)
                  | (1::UBIGINT << targi_card_3::INTEGER)) AS m
    FROM rounds GROUP BY game_id, player
)
SELECT p.pair_id, p.points::DOUBLE AS points, coalesce(u.m, 0)::UBIGINT AS used
FROM player_games p LEFT JOIN used u USING (game_id, player);
