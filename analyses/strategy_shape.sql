-- Game shape by strategy: per pair_id (the independent unit) and strategy, the count of
-- player-games and the sums (and sums of squares) of each figure of a player's game
-- (the player_shape view of views.sql; the figures are named in targi_sim/game/shape.py).
-- The report turns them into clustered means.
SELECT pair_id, strategy, count(*)::DOUBLE AS n,
       sum(cards) AS cards, sum(cards * cards) AS cards_sq,
       sum(token_vp) AS token_vp, sum(token_vp * token_vp) AS token_vp_sq,
       sum(card_vp) AS card_vp, sum(card_vp * card_vp) AS card_vp_sq,
       sum(row_bonus) AS row_bonus, sum(row_bonus * row_bonus) AS row_bonus_sq,
       sum(raid_losses) AS raid_losses, sum(raid_losses * raid_losses) AS raid_losses_sq
FROM player_shape
GROUP BY ALL;
