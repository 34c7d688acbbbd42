-- One row per game, in game order: the game digest view of views.sql, what a chunk's
-- digest file holds (targi_sim/runner/digests.py: the reference for the worker's).
SELECT * FROM game_digest ORDER BY game_id;
