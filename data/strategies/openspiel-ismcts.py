"""OpenSpiel's information-set MCTS bot as a targi-sim strategy (needs the ai extra:
pip install 'targi-sim[ai]'): `budget` simulations per decision
(`openspiel-ismcts@50`), each on a fresh re-deal of what its player cannot know (the
engine's determinisation), uct_c 2, one random rollout per leaf, as OpenSpiel ships it
(targi_sim/ai/bots.py, docs/ai.md):

    targi-sim run --games 4 --p0 openspiel-ismcts@20 --p1 balanced
    targi-sim strategies check openspiel-ismcts@10 --games 2
"""

from targi_sim.openspiel import ISMCTSStrategy

STRATEGY = ISMCTSStrategy
