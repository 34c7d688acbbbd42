-- Chunk summaries: per tribe card id and pair_id, over the players of the pair's games
-- (cards_tribe_masks.sql's counts): offered_games (games it was face up in the centre),
-- taken_games (players who took it from the centre in such a game), played_n /
-- played_points (players who played it to their display, their points), not_taken_n /
-- not_taken_points (players in games where it was offered who did not acquire it, source
-- centre or tribal_expansion). A game's two players' points add up to 1, so the players
-- who did not take an offered card are the game's two minus those who did: only the
-- acquisitions are joined with the players, not every offered card with both of them.
WITH offered AS (
    SELECT DISTINCT game_id, card_id::INTEGER AS card_id FROM offers
), acq AS (
    SELECT game_id, player, card_id::INTEGER AS card_id,
           bool_or(source <> 'hand') AS acquired, bool_or(outcome = 'played') AS played,
           bool_or(source = 'centre') AS centre
    FROM acquisitions GROUP BY ALL
), players AS (
    SELECT a.card_id, p.pair_id, p.points, a.acquired, a.played, a.centre,
           o.game_id IS NOT NULL AS offered
    FROM acq a
    JOIN player_games p USING (game_id, player)
    LEFT JOIN offered o ON o.game_id = a.game_id AND o.card_id = a.card_id
), by_player AS (
    SELECT card_id, pair_id,
           count(*) FILTER (WHERE offered AND centre) AS taken_games,
           count(*) FILTER (WHERE played) AS played_n,
           coalesce(sum(points) FILTER (WHERE played), 0) AS played_points,
           count(*) FILTER (WHERE offered AND acquired) AS acquirers,
           coalesce(sum(points) FILTER (WHERE offered AND acquired), 0) AS acquirer_points
    FROM players GROUP BY ALL
), by_game AS (
    SELECT o.card_id, g.pair_id, count(*) AS offered
    FROM offered o JOIN games g USING (game_id) GROUP BY ALL
)
SELECT card_id, pair_id, coalesce(g.offered, 0)::DOUBLE AS offered_games,
       coalesce(p.taken_games, 0)::DOUBLE AS taken_games,
       coalesce(p.played_n, 0)::DOUBLE AS played_n,
       coalesce(p.played_points, 0)::DOUBLE AS played_points,
       (2 * coalesce(g.offered, 0) - coalesce(p.acquirers, 0))::DOUBLE AS not_taken_n,
       (coalesce(g.offered, 0) - coalesce(p.acquirer_points, 0))::DOUBLE AS not_taken_points
FROM by_game g FULL JOIN by_player p USING (card_id, pair_id);
