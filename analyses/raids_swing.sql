-- Decided games whose winner's margin is at most what the raids cost the loser net of
-- what they cost the winner: without raids the result would change (or become level).
-- Exact: VP tokens paid + VP given to the opponent; VP-equivalent adds goods and gold.
-- Per pair_id (the clustered intervals' unit): decided games, those the raids decided
-- (exactly, in VP-equivalents), and the sums of margins and swings (the chunk
-- summaries' `swing` table, targi_sim/runner/sums.py).
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
)
SELECT pair_id, count(*)::DOUBLE AS decided,
       count(*) FILTER (WHERE swing_exact > 0 AND margin <= swing_exact)::DOUBLE
           AS flipped_exact,
       count(*) FILTER (WHERE swing_eq > 0 AND margin <= swing_eq)::DOUBLE AS flipped_eq,
       sum(margin)::DOUBLE AS margin, sum(swing_exact)::DOUBLE AS swing_exact,
       sum(swing_eq)::DOUBLE AS swing_eq
FROM per_game GROUP BY pair_id;
