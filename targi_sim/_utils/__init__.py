"""Private helpers every layer may use: atomic file writes, the data folder, TOML output.

Imports nothing else of targi_sim (except `errors`), so any package may import it.
"""
