-- Game shape by strategy: per pair_id (the independent unit) and strategy, the count of
-- player-games and the sums (and sums of squares) of each figure of a player's game:
-- cards in the display at the end, VP from tokens, from cards, from row bonuses, and
-- goods, gold and VP paid to raids. targi_sim/report/sections.py turns them into
-- clustered means (targi_sim.stats.means_from_sums).
WITH seat AS (
    SELECT pair_id, game_id, 0::TINYINT AS player, p0_strategy AS strategy,
           tokens_p0::DOUBLE AS token_vp, card_vp_p0::DOUBLE AS card_vp,
           row_bonus_p0::DOUBLE AS row_bonus
    FROM games
    UNION ALL
    SELECT pair_id, game_id, 1::TINYINT, p1_strategy, tokens_p1::DOUBLE, card_vp_p1::DOUBLE,
           row_bonus_p1::DOUBLE
    FROM games
),
cards AS (
    SELECT game_id, player::TINYINT AS player, arg_max(display_count, round)::DOUBLE AS cards
    FROM rounds GROUP BY ALL
),
raid AS (
    SELECT game_id, player::TINYINT AS player, sum(amount)::DOUBLE AS raid_losses
    FROM raids GROUP BY ALL
),
pg AS (
    SELECT s.pair_id, s.strategy, coalesce(c.cards, 0) AS cards, s.token_vp, s.card_vp,
           s.row_bonus, coalesce(r.raid_losses, 0) AS raid_losses
    FROM seat s
    LEFT JOIN cards c USING (game_id, player)
    LEFT JOIN raid r USING (game_id, player)
)
SELECT pair_id, strategy, count(*)::DOUBLE AS n,
       sum(cards) AS cards, sum(cards * cards) AS cards_sq,
       sum(token_vp) AS token_vp, sum(token_vp * token_vp) AS token_vp_sq,
       sum(card_vp) AS card_vp, sum(card_vp * card_vp) AS card_vp_sq,
       sum(row_bonus) AS row_bonus, sum(row_bonus * row_bonus) AS row_bonus_sq,
       sum(raid_losses) AS raid_losses, sum(raid_losses * raid_losses) AS raid_losses_sq
FROM pg
GROUP BY ALL;
