-- Candidates of the card section's example games (targi_sim/report/examples.py): one row
-- per card play (acquisitions, outcome 'played'): seat `player` played tribe card `subject`
-- in round `round`; `value`, its swing: the change of the player's lead (its score if the
-- game ended now minus the opponent's) from the end of round r - 1 (0 before round 1) to
-- the end of round r; it includes whatever else happened in that round. Needs round_diff.
SELECT a.game_id, a.round::INTEGER AS round, a.player::INTEGER AS player,
       a.card_id::INTEGER AS subject,
       ((CASE WHEN a.player = 0 THEN 1 ELSE -1 END)
        * (d.diff0 - coalesce(p.diff0, 0)))::DOUBLE AS value, NULL::DOUBLE AS margin
FROM acquisitions a
JOIN round_diff d ON d.game_id = a.game_id AND d.round = a.round
LEFT JOIN round_diff p ON p.game_id = a.game_id AND p.round = a.round - 1
WHERE a.outcome = 'played'
