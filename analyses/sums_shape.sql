-- Chunk summaries: per strategy and pair_id, the player-games and the sums (and sums of
-- squares) of each figure of the player_shape view (views.sql).
SELECT strategy::VARCHAR AS strategy, pair_id, count(*)::DOUBLE AS n,
       sum(cards) AS cards, sum(cards * cards) AS cards_sq,
       sum(token_vp) AS token_vp, sum(token_vp * token_vp) AS token_vp_sq,
       sum(card_vp) AS card_vp, sum(card_vp * card_vp) AS card_vp_sq,
       sum(row_bonus) AS row_bonus, sum(row_bonus * row_bonus) AS row_bonus_sq,
       sum(raid_losses) AS raid_losses, sum(raid_losses * raid_losses) AS raid_losses_sq
FROM player_shape
GROUP BY ALL;
