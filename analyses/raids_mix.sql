-- Per raid and payment kind: how often, how much, and the payer's results.
-- VP-equivalent: VP paid, goods x $goods_vp, gold x $gold_vp, plus the VP the opponent
-- received because this player could not pay. Per-pair sums (targi_sim.stats) for the
-- clustered intervals of the payers' rate (points / n) and of the kind's share of the
-- players facing the raid (n / raid_n, over every pair that faced the raid).
WITH rows AS (
    SELECT r.raid, r.paid, p.pair_id, r.amount, r.opponent_bonus,
           CASE r.paid WHEN 'vp' THEN r.amount WHEN 'goods' THEN r.amount * $goods_vp
                       WHEN 'gold' THEN r.amount * $gold_vp ELSE 0 END
               + r.opponent_bonus AS vp_eq,
           p.points
    FROM raids r JOIN player_games p USING (game_id, player)
), per_pair AS (
    SELECT raid, paid, pair_id, count(*)::DOUBLE AS n, sum(amount) AS amount,
           sum(opponent_bonus) AS opponent_bonus, sum(vp_eq) AS vp_equivalent,
           sum(points) AS points
    FROM rows GROUP BY ALL
), facing AS (
    SELECT raid, pair_id, count(*)::DOUBLE AS raid_n FROM rows GROUP BY ALL
), facing_sums AS (
    SELECT raid, sum(raid_n) AS raid_n, count(*) AS raid_n__k, sum(raid_n * raid_n) AS raid_n__nn
    FROM facing GROUP BY raid
)
SELECT k.raid, k.paid, sum(k.n) AS n, sum(k.amount) AS amount,
       sum(k.opponent_bonus) AS opponent_bonus, sum(k.vp_equivalent) AS vp_equivalent,
       sum(k.points) AS points,
       count(*) AS n__k, sum(k.n * k.n) AS n__nn,
       sum(k.points * k.points) AS points__xx, sum(k.points * k.n) AS points__xn,
       sum(k.n * k.n) AS n__xx, sum(k.n * f.raid_n) AS n__xr,
       any_value(s.raid_n) AS raid_n, any_value(s.raid_n__k) AS raid_n__k,
       any_value(s.raid_n__nn) AS raid_n__nn
FROM per_pair k
JOIN facing f USING (raid, pair_id)
JOIN facing_sums s USING (raid)
GROUP BY k.raid, k.paid
ORDER BY k.raid, k.paid;
