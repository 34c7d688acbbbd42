-- Chunk summaries: per tribe card id and pair_id, over the players of the pair's games
-- (cards_tribe_masks.sql's counts): offered_games (games it was face up in the centre;
-- half per player row), taken_games (players who took it from the centre in such a
-- game), played_n / played_points (players who played it to their display, their
-- points), not_taken_n / not_taken_points (players in games where it was offered who did
-- not acquire it, source centre or tribal_expansion).
WITH offered AS (
    SELECT DISTINCT game_id, card_id::INTEGER AS card_id FROM offers
), acq AS (
    SELECT game_id, player, card_id::INTEGER AS card_id,
           bool_or(source <> 'hand') AS acquired, bool_or(outcome = 'played') AS played,
           bool_or(source = 'centre') AS centre
    FROM acquisitions GROUP BY ALL
), game_cards AS (
    SELECT game_id, card_id FROM offered UNION SELECT game_id, card_id FROM acq
), per_player AS (
    SELECT p.pair_id, p.points, c.card_id, o.game_id IS NOT NULL AS offered,
           coalesce(a.acquired, false) AS acquired, coalesce(a.played, false) AS played,
           coalesce(a.centre, false) AS centre
    FROM game_cards c
    JOIN player_games p USING (game_id)
    LEFT JOIN offered o ON o.game_id = c.game_id AND o.card_id = c.card_id
    LEFT JOIN acq a ON a.game_id = c.game_id AND a.player = p.player AND a.card_id = c.card_id
)
SELECT card_id, pair_id,
       0.5 * count(*) FILTER (WHERE offered) AS offered_games,
       count(*) FILTER (WHERE offered AND centre)::DOUBLE AS taken_games,
       count(*) FILTER (WHERE played)::DOUBLE AS played_n,
       coalesce(sum(points) FILTER (WHERE played), 0)::DOUBLE AS played_points,
       count(*) FILTER (WHERE offered AND NOT acquired)::DOUBLE AS not_taken_n,
       coalesce(sum(points) FILTER (WHERE offered AND NOT acquired), 0)::DOUBLE
           AS not_taken_points
FROM per_player
GROUP BY ALL;
