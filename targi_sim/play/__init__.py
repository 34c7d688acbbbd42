"""Playing games: a match (deck, rules, two seats), the seat-swapped pairing of deals,
batches of games in the compiled engine, step-by-step sessions (`new_game`), scenarios
for tests, and loading the compiled builds a match needs.

May import: players, game, engine, stats, errors, _utils.
"""
