"""OpenSpiel's MCTS bot as a targi-sim strategy (needs the ai extra:
pip install 'targi-sim[ai]'): `budget` simulations per decision (`openspiel-mcts@50`),
uct_c 2, one random rollout per leaf, as OpenSpiel ships it, searching one re-deal of
what its player cannot know per decision (targi_sim/ai/bots.py, docs/ai.md):

    targi-sim run --games 4 --p0 openspiel-mcts@20 --p1 balanced
    targi-sim strategies check openspiel-mcts@10 --games 2
"""

from targi_sim.openspiel import MCTSStrategy

STRATEGY = MCTSStrategy
