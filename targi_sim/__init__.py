"""targi-sim: a compiled simulator and balance analytics for the card game Targi."""

from pathlib import Path as _Path

# In a checkout the CLI lives in ./cli and the wheel installs it as targi_sim/cli.
# Let `import targi_sim.cli` work in both cases.
_checkout_root = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).parent / "cli").is_dir() and (_checkout_root / "cli" / "app.py").is_file():
    __path__.append(str(_checkout_root))  # noqa: F821 - package __path__

__version__ = "0.1.0"
