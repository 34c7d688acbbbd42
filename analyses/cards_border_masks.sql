-- One row per game x player: pair_id, points, a mask of the border positions (bit k =
-- position k, 1..16) where the player placed a Targi at least once in the game, and the
-- per-position counts the clustered use rate needs, packed 4 bits per position
-- (position k in bits 4(k-1)..4k-1; a count is at most 12, one per round): `placed`,
-- the player's Targis on the position; `robbed` (seat 0's row only, else 0), the rounds
-- the robber stood on it; `rounds`, the game's rounds (seat 0's row only).
-- targi_sim/report/metrics.py:border_counts unpacks them.
WITH used AS (
    SELECT game_id, player,
           bit_or((1::UBIGINT << targi_card_1::INTEGER) | (1::UBIGINT << targi_card_2::INTEGER)
                  | (1::UBIGINT << targi_card_3::INTEGER)) AS m,
           sum((CASE WHEN targi_card_1 > 0 THEN 1::UBIGINT << (4 * (targi_card_1::INTEGER - 1))
                     ELSE 0::UBIGINT END)
               + (CASE WHEN targi_card_2 > 0 THEN 1::UBIGINT << (4 * (targi_card_2::INTEGER - 1))
                       ELSE 0::UBIGINT END)
               + (CASE WHEN targi_card_3 > 0 THEN 1::UBIGINT << (4 * (targi_card_3::INTEGER - 1))
                       ELSE 0::UBIGINT END))::UBIGINT AS placed,
           sum(CASE WHEN player = 0 THEN 1::UBIGINT << (4 * (robber_card::INTEGER - 1))
                    ELSE 0::UBIGINT END)::UBIGINT AS robbed,
           count(*) FILTER (WHERE player = 0)::INTEGER AS rounds
    FROM rounds GROUP BY game_id, player
)
SELECT p.pair_id, p.points::DOUBLE AS points, coalesce(u.m, 0)::UBIGINT AS used,
       coalesce(u.placed, 0)::UBIGINT AS placed, coalesce(u.robbed, 0)::UBIGINT AS robbed,
       coalesce(u.rounds, 0)::INTEGER AS rounds
FROM player_games p LEFT JOIN used u USING (game_id, player);
