"""Private helpers every layer may use: atomic file writes, the data folder, TOML output,
worker pools that end with their parent.

Imports nothing else of targi_sim (except `errors`), so any package may import it.
"""
