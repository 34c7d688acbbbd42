"""Players: strategy files and kinds (heuristic weights, scripted, compiled plug-ins,
plain Python), and the check of a compiled strategy's choices.

May import: game, engine, errors, _utils.
"""
