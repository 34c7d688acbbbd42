-- One row per raid x player: the raid, how the player paid, the game's pair_id and the
-- player's points, for the pair-clustered intervals of raids_mix.sql's rates
-- (targi_sim/report/metrics.py:raid_sums).
SELECT g.pair_id, r.raid::INTEGER AS raid, r.paid::VARCHAR AS paid,
       CASE WHEN g.winner = r.player THEN 1.0 WHEN g.winner = -1 THEN 0.5 ELSE 0.0 END
           AS points
FROM raids r JOIN games g USING (game_id);
