-- Games by number of rounds played and end reason.
SELECT rounds, end_reason, count(*) AS games
FROM games
GROUP BY ALL
ORDER BY rounds, end_reason;
