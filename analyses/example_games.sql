-- Example games for the report's card and raid sections (targi_sim/report/examples.py).
-- Needs round_diff (round_diff.sql). Ties go to the lowest game_id, then round, seat, card.
--
-- A card play: seat p played tribe card c to its display in round r (acquisitions,
-- outcome 'played'). Its swing: the change of p's lead (p's score if the game ended now
-- minus the opponent's) from the end of round r - 1 (0 before round 1) to the end of
-- round r; it includes whatever else happened in that round.
-- A raid: both seats' payments to raid k in one game. Its impact: the difference of the
-- two seats' VP-equivalent payments (VP paid, a good = $goods_vp, a gold = $gold_vp, plus
-- VP given to the opponent), as in the raid section; `player` is the seat that lost more.
WITH plays AS (
    SELECT a.game_id, a.round, a.player, a.card_id AS subject,
           ((CASE WHEN a.player = 0 THEN 1 ELSE -1 END)
            * (d.diff0 - coalesce(p.diff0, 0)))::DOUBLE AS value
    FROM acquisitions a
    JOIN round_diff d ON d.game_id = a.game_id AND d.round = a.round
    LEFT JOIN round_diff p ON p.game_id = a.game_id AND p.round = a.round - 1
    WHERE a.outcome = 'played'
), ranked_plays AS (
    SELECT *, row_number() OVER (ORDER BY value DESC, game_id, round, player, subject) AS hi,
              row_number() OVER (ORDER BY value ASC, game_id, round, player, subject) AS lo,
              count(*) OVER () AS n
    FROM plays
), payments AS (
    SELECT game_id, raid, min(round) AS round,
           sum((CASE WHEN player = 0 THEN 1 ELSE -1 END)
               * (CASE paid WHEN 'vp' THEN amount WHEN 'goods' THEN amount * $goods_vp
                            WHEN 'gold' THEN amount * $gold_vp
                            WHEN 'goods_and_gold' THEN amount * $goods_vp + gold * $gold_vp
                            ELSE 0 END + opponent_bonus))::DOUBLE AS diff
    FROM raids GROUP BY game_id, raid
), ranked_raids AS (
    SELECT game_id, round, CASE WHEN diff >= 0 THEN 0 ELSE 1 END AS player, raid AS subject,
           abs(diff) AS value,
           row_number() OVER (ORDER BY abs(diff) DESC, game_id, raid) AS hi,
           row_number() OVER (ORDER BY abs(diff) ASC, game_id, raid) AS lo,
           count(*) OVER () AS n
    FROM payments
), picked AS (
    SELECT 'cards' AS section, 'largest swing' AS rule, 1 AS k, * EXCLUDE (hi, lo)
    FROM ranked_plays WHERE hi = 1
    UNION ALL
    SELECT 'cards', 'largest setback', 2, * EXCLUDE (hi, lo) FROM ranked_plays WHERE lo = 1
    UNION ALL
    SELECT 'cards', 'typical', 3, * EXCLUDE (hi, lo) FROM ranked_plays WHERE lo = (n + 1) // 2
    UNION ALL
    SELECT 'raids', 'largest impact', 1, * EXCLUDE (hi, lo) FROM ranked_raids WHERE hi = 1
    UNION ALL
    SELECT 'raids', 'typical', 2, * EXCLUDE (hi, lo) FROM ranked_raids WHERE lo = (n + 1) // 2
)
SELECT x.section, x.rule, x.game_id, x.round::INTEGER AS round, x.player::INTEGER AS player,
       x.subject::INTEGER AS subject, x.value, x.n::BIGINT AS candidates,
       g.seed, g.first_player::INTEGER AS first_player, g.winner::INTEGER AS winner,
       g.score_p0::INTEGER AS score_p0, g.score_p1::INTEGER AS score_p1
FROM picked x JOIN games g USING (game_id)
ORDER BY x.section, x.k;
