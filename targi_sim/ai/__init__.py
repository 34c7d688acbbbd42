"""Targi for the game-AI frameworks: one action numbering, one observation encoding and
one way to deal and step a game, shared by the OpenSpiel game (`targi_sim.openspiel`)
and the PettingZoo environment (`targi_sim.pettingzoo`), and OpenSpiel's bots as
targi-sim strategies (docs/ai.md).

Only `spiel` and `bots` import OpenSpiel and only `aec` imports PettingZoo (the `ai`
extra); the rest needs neither.
"""
