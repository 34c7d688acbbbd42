-- One row per game x player: its pair_id (the cluster of the intervals), the player's
-- points and 64-bit masks of tribe card ids
-- (a deck has at most 64): offered in the game (face up in the centre in any round),
-- acquired by the player (source centre or tribal_expansion), played by the player
-- (to the display, from any source), taken by the player from the centre.
-- targi_sim/report/metrics.py:card_mask_counts turns them into per-card counts.
WITH offered AS (
    SELECT game_id, bit_or(1::UBIGINT << card_id::INTEGER) AS m
    FROM offers GROUP BY game_id
), acq AS (
    SELECT game_id, player,
           bit_or(CASE WHEN source <> 'hand' THEN 1::UBIGINT << card_id::INTEGER
                       ELSE 0::UBIGINT END) AS acquired,
           bit_or(CASE WHEN outcome = 'played' THEN 1::UBIGINT << card_id::INTEGER
                       ELSE 0::UBIGINT END) AS played,
           bit_or(CASE WHEN source = 'centre' THEN 1::UBIGINT << card_id::INTEGER
                       ELSE 0::UBIGINT END) AS centre
    FROM acquisitions GROUP BY game_id, player
)
SELECT p.pair_id, p.points::DOUBLE AS points,
       coalesce(o.m, 0)::UBIGINT AS offered,
       coalesce(a.acquired, 0)::UBIGINT AS acquired,
       coalesce(a.played, 0)::UBIGINT AS played,
       coalesce(a.centre, 0)::UBIGINT AS centre
FROM player_games p
LEFT JOIN offered o USING (game_id)
LEFT JOIN acq a USING (game_id, player);
