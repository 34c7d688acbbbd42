-- Mean holdings after each round, by seat and that seat's strategy (games that reached
-- the round only; n says how many).
SELECT r.round, r.player AS seat,
       CASE WHEN r.player = 0 THEN g.p0_strategy ELSE g.p1_strategy END AS strategy,
       count(*) AS n,
       avg(r.score_now) AS score,
       avg(r.vp_tokens) AS vp_tokens,
       avg(r.gold) AS gold,
       avg(r.dates + r.salt + r.pepper) AS goods,
       avg(r.display_count) AS display
FROM rounds r JOIN games g USING (game_id)
GROUP BY ALL
ORDER BY strategy, seat, r.round;
