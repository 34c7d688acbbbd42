-- Candidates of the raid section's example games (targi_sim/report/examples.py): one row
-- per decided game: `value`, what the raids cost the loser minus what they cost the
-- winner, in VP-equivalents (VP paid, a good = $goods_vp, a gold = $gold_vp, plus VP given
-- to the opponent), as in the raid section's "decided by raids"; `player` is the loser,
-- `subject` the game's raid that cost the loser most over the winner (ties: the lower
-- raid) and `round` its round, `margin` the winner's margin (the raids decided the game
-- when margin <= value).
WITH costs AS (
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
)
SELECT game_id, round::INTEGER AS round, loser::INTEGER AS player, raid::INTEGER AS subject,
       (sum(toward_loser) OVER (PARTITION BY game_id))::DOUBLE AS value, margin
FROM per_raid
QUALIFY row_number() OVER (PARTITION BY game_id ORDER BY toward_loser DESC, raid) = 1
