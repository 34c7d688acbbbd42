-- One row per game x player: pair_id, points and a mask of the goods card ids (at most 64) the
-- player took at least once in the game.
WITH taken AS (
    SELECT game_id, player, bit_or(1::UBIGINT << card_id::INTEGER) AS m
    FROM goods GROUP BY game_id, player
)
SELECT p.pair_id, p.points::DOUBLE AS points, coalesce(t.m, 0)::UBIGINT AS taken
FROM player_games p LEFT JOIN taken t USING (game_id, player);
