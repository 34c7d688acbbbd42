-- One row per game x player: its pair_id (the cluster of the intervals), the player's
-- points and 64-bit masks of tribe card ids
-- (a deck has at most 64): offered in the game (face up in the centre in any round),
-- acquired by the player (source centre or tribal_expansion), played by the player
-- (to the display, from any source), taken by the player from the centre: the game
-- digest's (views.sql), per seat.
-- targi_sim/report/metrics.py:card_mask_counts turns them into per-card counts.
SELECT p.pair_id, p.points::DOUBLE AS points, d.offered,
       CASE WHEN p.player = 0 THEN d.acquired_p0 ELSE d.acquired_p1 END AS acquired,
       CASE WHEN p.player = 0 THEN d.played_p0 ELSE d.played_p1 END AS played,
       CASE WHEN p.player = 0 THEN d.centre_p0 ELSE d.centre_p1 END AS centre
FROM player_games p
JOIN game_digest d USING (game_id);
