-- Per raid and payment kind: how often, how much, and the payer's results.
-- VP-equivalent: VP paid, goods x $goods_vp, gold x $gold_vp, plus the VP the opponent
-- received because this player could not pay. The per-pair sums of the clustered
-- intervals come from raids_pairs.sql.
SELECT r.raid, r.paid, count(*) AS n,
       sum(r.amount) AS amount,
       sum(r.opponent_bonus) AS opponent_bonus,
       sum(CASE r.paid WHEN 'vp' THEN r.amount WHEN 'goods' THEN r.amount * $goods_vp
                       WHEN 'gold' THEN r.amount * $gold_vp
                       WHEN 'goods_and_gold' THEN r.amount * $goods_vp + r.gold * $gold_vp
                       ELSE 0 END
           + r.opponent_bonus) AS vp_equivalent,
       sum(p.points) AS points
FROM raids r JOIN player_games p USING (game_id, player)
GROUP BY ALL
ORDER BY r.raid, r.paid;
