-- Decided games whose winner's margin is at most what the raids cost the loser net of
-- what they cost the winner: without raids the result would change (or become level).
-- Exact: VP tokens paid + VP given to the opponent; VP-equivalent adds goods and gold.
-- Per-pair sums (targi_sim.stats) for the clustered intervals of the shares.
WITH cost AS (
    SELECT game_id, player,
           sum(CASE WHEN paid = 'vp' THEN amount ELSE 0 END + opponent_bonus) AS vp_exact,
           sum(CASE paid WHEN 'vp' THEN amount WHEN 'goods' THEN amount * $goods_vp
                         WHEN 'gold' THEN amount * $gold_vp
                         WHEN 'goods_and_gold' THEN amount * $goods_vp + gold * $gold_vp
                         ELSE 0 END
               + opponent_bonus) AS vp_eq
    FROM raids GROUP BY game_id, player
), per_game AS (
    SELECT g.game_id, g.pair_id, abs(g.score_p0 - g.score_p1) AS margin,
           coalesce(sum(CASE WHEN c.player = g.winner THEN -c.vp_exact ELSE c.vp_exact END), 0)
               AS swing_exact,
           coalesce(sum(CASE WHEN c.player = g.winner THEN -c.vp_eq ELSE c.vp_eq END), 0)
               AS swing_eq
    FROM games g LEFT JOIN cost c USING (game_id)
    WHERE g.winner <> -1
    GROUP BY g.game_id, g.pair_id, g.score_p0, g.score_p1
), per_pair AS (
    SELECT pair_id, count(*)::DOUBLE AS decided,
           count(*) FILTER (WHERE swing_exact > 0 AND margin <= swing_exact)::DOUBLE
               AS flipped_exact,
           count(*) FILTER (WHERE swing_eq > 0 AND margin <= swing_eq)::DOUBLE AS flipped_eq,
           sum(margin) AS margin, sum(swing_exact) AS swing_exact, sum(swing_eq) AS swing_eq
    FROM per_game GROUP BY pair_id
)
SELECT coalesce(sum(decided), 0) AS decided,
       coalesce(sum(flipped_exact), 0) AS flipped_exact,
       coalesce(sum(flipped_eq), 0) AS flipped_eq,
       sum(margin) / sum(decided) AS margin_mean,
       sum(swing_exact) / sum(decided) AS swing_exact_mean,
       sum(swing_eq) / sum(decided) AS swing_eq_mean,
       count(*) AS decided__k, coalesce(sum(decided * decided), 0) AS decided__nn,
       coalesce(sum(flipped_exact * flipped_exact), 0) AS flipped_exact__xx,
       coalesce(sum(flipped_exact * decided), 0) AS flipped_exact__xn,
       coalesce(sum(flipped_eq * flipped_eq), 0) AS flipped_eq__xx,
       coalesce(sum(flipped_eq * decided), 0) AS flipped_eq__xn
FROM per_pair;
