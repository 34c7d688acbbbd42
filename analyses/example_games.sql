-- Example games for the report's card and raid sections (targi_sim/report/examples.py).
-- Needs round_diff (round_diff.sql). Ties go to the lowest game_id, then round, seat, card.
--
-- A card play: seat p played tribe card c to its display in round r (acquisitions,
-- outcome 'played'). Its swing: the change of p's lead (p's score if the game ended now
-- minus the opponent's) from the end of round r - 1 (0 before round 1) to the end of
-- round r; it includes whatever else happened in that round.
-- Raids, per decided game: what the raids cost the loser minus what they cost the
-- winner, in VP-equivalents (VP paid, a good = $goods_vp, a gold = $gold_vp, plus VP given
-- to the opponent), as in the raid section's "decided by raids"; `player` is the loser,
-- `subject` the game's raid that cost the loser most over the winner (ties: the lower
-- raid), `margin` the winner's margin (the raids decided the game when margin <= value).
WITH plays AS (
    SELECT a.game_id, a.round, a.player, a.card_id AS subject,
           ((CASE WHEN a.player = 0 THEN 1 ELSE -1 END)
            * (d.diff0 - coalesce(p.diff0, 0)))::DOUBLE AS value, NULL::DOUBLE AS margin
    FROM acquisitions a
    JOIN round_diff d ON d.game_id = a.game_id AND d.round = a.round
    LEFT JOIN round_diff p ON p.game_id = a.game_id AND p.round = a.round - 1
    WHERE a.outcome = 'played'
), ranked_plays AS (
    SELECT *, row_number() OVER (ORDER BY value DESC, game_id, round, player, subject) AS hi,
              row_number() OVER (ORDER BY value ASC, game_id, round, player, subject) AS lo,
              count(*) OVER () AS n
    FROM plays
), costs AS (
    SELECT game_id, raid, player, min(round) AS round,
           sum(CASE paid WHEN 'vp' THEN amount WHEN 'goods' THEN amount * $goods_vp
                         WHEN 'gold' THEN amount * $gold_vp
                         WHEN 'goods_and_gold' THEN amount * $goods_vp + gold * $gold_vp
                         ELSE 0 END + opponent_bonus)::DOUBLE AS eq
    FROM raids GROUP BY game_id, raid, player
), per_raid AS (
    SELECT c.game_id, c.raid, min(c.round) AS round, 1 - g.winner AS loser,
           abs(g.score_p0 - g.score_p1)::DOUBLE AS margin,
           sum(CASE WHEN c.player = g.winner THEN -c.eq ELSE c.eq END) AS toward_loser
    FROM costs c JOIN games g USING (game_id)
    WHERE g.winner <> -1
    GROUP BY c.game_id, c.raid, g.winner, g.score_p0, g.score_p1
), per_game AS (
    SELECT game_id, round, loser AS player, raid AS subject,
           sum(toward_loser) OVER (PARTITION BY game_id) AS value, margin
    FROM per_raid
    QUALIFY row_number() OVER (PARTITION BY game_id ORDER BY toward_loser DESC, raid) = 1
), ranked_raids AS (
    SELECT *, row_number() OVER (ORDER BY value DESC, game_id) AS hi,
              row_number() OVER (ORDER BY value ASC, game_id) AS lo,
              count(*) OVER () AS n
    FROM per_game
), picked AS (
    SELECT 'cards' AS section, 'largest swing' AS rule, 1 AS k, * EXCLUDE (hi, lo)
    FROM ranked_plays WHERE hi = 1
    UNION ALL
    SELECT 'cards', 'largest setback', 2, * EXCLUDE (hi, lo) FROM ranked_plays WHERE lo = 1
    UNION ALL
    SELECT 'cards', 'typical', 3, * EXCLUDE (hi, lo) FROM ranked_plays WHERE lo = (n + 1) // 2
    UNION ALL
    SELECT 'raids', 'largest swing', 1, * EXCLUDE (hi, lo) FROM ranked_raids WHERE hi = 1
    UNION ALL
    SELECT 'raids', 'typical', 2, * EXCLUDE (hi, lo) FROM ranked_raids WHERE lo = (n + 1) // 2
)
SELECT x.section, x.rule, x.game_id, x.round::INTEGER AS round, x.player::INTEGER AS player,
       x.subject::INTEGER AS subject, x.value, x.margin, x.n::BIGINT AS candidates,
       g.seed, g.first_player::INTEGER AS first_player, g.winner::INTEGER AS winner,
       g.score_p0::INTEGER AS score_p0, g.score_p1::INTEGER AS score_p1
FROM picked x JOIN games g USING (game_id)
ORDER BY x.section, x.k;
