-- Per border position: Targi placements and rounds the card was open (robber elsewhere),
-- with per-pair sums for the clustered interval of the use rate. The results of the
-- players who used it come from cards_border_masks.sql.
WITH r0 AS (
    SELECT g.pair_id, r.robber_card
    FROM rounds r JOIN games g USING (game_id)
    WHERE r.player = 0
), pair_rounds AS (
    SELECT pair_id, count(*) AS game_rounds FROM r0 GROUP BY pair_id
), robber AS (
    SELECT pair_id, robber_card::INTEGER AS pos, count(*) AS robber_rounds FROM r0 GROUP BY ALL
), places AS (
    SELECT g.pair_id, u.pos::INTEGER AS pos, count(*) AS placements
    FROM (SELECT game_id, unnest([targi_card_1, targi_card_2, targi_card_3]) AS pos
          FROM rounds) u
    JOIN games g USING (game_id)
    WHERE u.pos > 0
    GROUP BY ALL
), per_pair AS (
    SELECT c.card_id::INTEGER AS pos, p.pair_id,
           coalesce(pl.placements, 0)::DOUBLE AS x,
           (p.game_rounds - coalesce(r.robber_rounds, 0))::DOUBLE AS n
    FROM cards c CROSS JOIN pair_rounds p
    LEFT JOIN places pl ON pl.pair_id = p.pair_id AND pl.pos = c.card_id
    LEFT JOIN robber r ON r.pair_id = p.pair_id AND r.pos = c.card_id
    WHERE c.card_type = 'border'
), sums AS (
    SELECT pos, sum(x) AS placements, sum(n) AS open_rounds,
           count(*) FILTER (WHERE n > 0) AS open_rounds__k, sum(n * n) AS open_rounds__nn,
           sum(x * x) AS placements__xx, sum(x * n) AS placements__xn
    FROM per_pair GROUP BY pos
)
SELECT c.card_id::INTEGER AS position, c.name, c.kind,
       coalesce(s.placements, 0) AS placements, coalesce(s.open_rounds, 0) AS open_rounds,
       coalesce(s.open_rounds__k, 0) AS open_rounds__k,
       coalesce(s.open_rounds__nn, 0) AS open_rounds__nn,
       coalesce(s.placements__xx, 0) AS placements__xx,
       coalesce(s.placements__xn, 0) AS placements__xn
FROM cards c LEFT JOIN sums s ON s.pos = c.card_id
WHERE c.card_type = 'border'
ORDER BY position;
