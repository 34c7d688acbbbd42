-- Mean holdings after each round by role: the round-1 first player or the second player
-- (in mirror matches the seat curves coincide; the roles show the first-player effect).
SELECT r.round, CASE WHEN r.player = g.first_player THEN 'first' ELSE 'second' END AS role,
       count(*) AS n,
       avg(r.score_now) AS score,
       avg(r.vp_tokens) AS vp_tokens,
       avg(r.gold) AS gold,
       avg(r.dates + r.salt + r.pepper) AS goods,
       avg(r.display_count) AS display
FROM rounds r JOIN games g USING (game_id)
GROUP BY ALL
ORDER BY role, r.round;
