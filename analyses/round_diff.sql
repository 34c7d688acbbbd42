-- Materialised once: seat 0's score minus seat 1's after every round of every game.
CREATE OR REPLACE TEMP TABLE round_diff AS
SELECT game_id, round,
       sum(CASE WHEN player = 0 THEN score_now ELSE -score_now END)::INTEGER AS diff0
FROM rounds
GROUP BY game_id, round;
