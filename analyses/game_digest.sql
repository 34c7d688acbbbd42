-- One row per game: what a sweep's paired comparison needs that the games table lacks
-- (targi_sim/runner/digests.py; the worker computes the same from its arrays). 64-bit
-- masks of tribe card ids: offered in the game (face up in the centre in any round) and,
-- per seat, acquired (source centre or tribal_expansion), played (to the display, from
-- any source) and taken from the centre; the display's size at the seat's last round;
-- goods, gold and VP paid to raids. The masks are those of cards_tribe_masks.sql.
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
), cards AS (
    SELECT game_id, player, arg_max(display_count, round) AS cards
    FROM rounds GROUP BY game_id, player
), raid AS (
    SELECT game_id, player, sum(amount) AS raid_losses
    FROM raids GROUP BY game_id, player
)
SELECT g.game_id,
       coalesce(o.m, 0)::UBIGINT AS offered,
       coalesce(a0.acquired, 0)::UBIGINT AS acquired_p0,
       coalesce(a1.acquired, 0)::UBIGINT AS acquired_p1,
       coalesce(a0.played, 0)::UBIGINT AS played_p0,
       coalesce(a1.played, 0)::UBIGINT AS played_p1,
       coalesce(a0.centre, 0)::UBIGINT AS centre_p0,
       coalesce(a1.centre, 0)::UBIGINT AS centre_p1,
       coalesce(c0.cards, 0)::BIGINT AS cards_p0,
       coalesce(c1.cards, 0)::BIGINT AS cards_p1,
       coalesce(r0.raid_losses, 0)::BIGINT AS raid_losses_p0,
       coalesce(r1.raid_losses, 0)::BIGINT AS raid_losses_p1
FROM games g
LEFT JOIN offered o ON o.game_id = g.game_id
LEFT JOIN acq a0 ON a0.game_id = g.game_id AND a0.player = 0
LEFT JOIN acq a1 ON a1.game_id = g.game_id AND a1.player = 1
LEFT JOIN cards c0 ON c0.game_id = g.game_id AND c0.player = 0
LEFT JOIN cards c1 ON c1.game_id = g.game_id AND c1.player = 1
LEFT JOIN raid r0 ON r0.game_id = g.game_id AND r0.player = 0
LEFT JOIN raid r1 ON r1.game_id = g.game_id AND r1.player = 1
ORDER BY g.game_id;
