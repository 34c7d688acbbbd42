-- Per tribe card: offers, acquisitions and the results of the players who did / did not
-- take it. Uses one 64-bit mask of card ids per game (offered) and per game x player
-- (acquired, played, taken from the centre): a deck has at most 64 tribe cards.
-- "acquired" counts a card's first acquisition (source centre or tribal_expansion);
-- the later `hand` row of a kept card is not a second acquisition.
WITH tribe AS (
    SELECT card_id::INTEGER AS card_id FROM cards WHERE card_type = 'tribe'
), offered AS (
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
), pg AS (
    SELECT p.points, coalesce(o.m, 0::UBIGINT) AS offered,
           coalesce(a.acquired, 0::UBIGINT) AS acquired,
           coalesce(a.played, 0::UBIGINT) AS played,
           coalesce(a.centre, 0::UBIGINT) AS centre
    FROM player_games p
    LEFT JOIN offered o USING (game_id)
    LEFT JOIN acq a USING (game_id, player)
), bits AS (
    SELECT t.card_id, pg.points,
           ((pg.offered >> t.card_id) & 1::UBIGINT)::INTEGER AS o,
           ((pg.acquired >> t.card_id) & 1::UBIGINT)::INTEGER AS a,
           ((pg.played >> t.card_id) & 1::UBIGINT)::INTEGER AS p,
           ((pg.centre >> t.card_id) & 1::UBIGINT)::INTEGER AS c
    FROM pg CROSS JOIN tribe t
), per_card AS (
    SELECT card_id,
           sum(o) // 2 AS offered_games,
           sum(o * c) AS taken_games,
           sum(p) AS played_n,
           sum(p * points) AS played_points,
           sum(a) AS acquired_players,
           sum(o * (1 - a)) AS not_taken_n,
           sum(o * (1 - a) * points) AS not_taken_points
    FROM bits GROUP BY card_id
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
       coalesce(pc.offered_games, 0) AS offered_games,
       coalesce(pc.taken_games, 0) AS taken_games,
       coalesce(q.acquired, 0) AS acquired,
       coalesce(q.acquired_centre, 0) AS acquired_centre,
       coalesce(q.acquired_expansion, 0) AS acquired_expansion,
       coalesce(q.played_rows, 0) AS played,
       coalesce(q.kept, 0) AS kept,
       coalesce(q.discarded, 0) AS discarded,
       coalesce(q.acquisition_rows, 0) AS acquisition_rows,
       q.round_mean,
       coalesce(pc.played_n, 0) AS played_n,
       coalesce(pc.played_points, 0) AS played_points,
       coalesce(pc.not_taken_n, 0) AS not_taken_n,
       coalesce(pc.not_taken_points, 0) AS not_taken_points
FROM tribe t
JOIN cards c ON c.card_type = 'tribe' AND c.card_id = t.card_id
LEFT JOIN per_card pc USING (card_id)
LEFT JOIN off_rounds r USING (card_id)
LEFT JOIN acq_rows q USING (card_id)
ORDER BY t.card_id;
