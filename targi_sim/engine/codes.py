"""The option codes that pack several numbers into one int: a trade (which trade of the
exchange card, the good given, the good received), a Fata Morgana move (which marker,
to which centre cell), a tribe card's play (printed or alternative cost, display row)
and a swap of two display slots. One encoder and one decoder each: the engine builds
and reads options with them (compiled, inlined), and the Python side (game.decisions,
game.narration) decodes with the same functions through `plain`, so the strides live
only here.
"""

from targi_sim.engine.constants import DISPLAY_ROWS, DISPLAY_SLOTS

from .jit import jit_inline

TRADE_STRIDE = 64  # trade code: t * 64 + given * 8 + received
GOOD_STRIDE = 8  # a good's (or gold's, VP's) index is below 8
MARKER_STRIDE = 16  # Fata Morgana code: marker * 16 + cell (cells 0..8)

# DT_TRIBE option codes
OPT_LEAVE = 0  # leave the card where it is (centre: stays; hand: stays in hand)
OPT_DISCARD = 1
OPT_KEEP = 2
OPT_PLAY = 3  # + alt * DISPLAY_ROWS + row

NO_SWAP = 0  # DT_ABILITY "move two cards": keep the display; else 1 + a * 12 + b


@jit_inline
def trade_code(t, given, received):
    """Trade t of the deck's trade table, giving `given`, receiving `received`."""
    return t * TRADE_STRIDE + given * GOOD_STRIDE + received


@jit_inline
def trade_of(v):
    """(trade, given, received) of a trade code (v >= 0; -1 is stopping)."""
    return v // TRADE_STRIDE, (v // GOOD_STRIDE) % GOOD_STRIDE, v % GOOD_STRIDE


@jit_inline
def marker_code(m, cell):
    """Move own tribe marker m (0 or 1) to centre cell `cell`."""
    return m * MARKER_STRIDE + cell


@jit_inline
def marker_of(v):
    """(marker, cell) of a Fata Morgana code (v >= 0; -1 is moving none)."""
    return v // MARKER_STRIDE, v % MARKER_STRIDE


@jit_inline
def play_code(alt, row):
    """Play the tribe card paying its printed (alt 0) or alternative (1) cost into `row`."""
    return OPT_PLAY + alt * DISPLAY_ROWS + row


@jit_inline
def play_of(v):
    """(alt, row) of a play code (v >= OPT_PLAY)."""
    return (v - OPT_PLAY) // DISPLAY_ROWS, (v - OPT_PLAY) % DISPLAY_ROWS


@jit_inline
def swap_code(a, b):
    """Swap display slots a and b (0-based)."""
    return 1 + a * DISPLAY_SLOTS + b


@jit_inline
def swap_of(v):
    """(a, b) of a swap code (v > NO_SWAP)."""
    return (v - 1) // DISPLAY_SLOTS, (v - 1) % DISPLAY_SLOTS


def plain(fn):
    """The Python function behind a compiled helper, for code outside the engine: the
    same arithmetic without a compile on first use."""
    return getattr(fn, "py_func", fn)


__all__ = ["GOOD_STRIDE", "MARKER_STRIDE", "NO_SWAP", "OPT_DISCARD", "OPT_KEEP",
           "OPT_LEAVE", "OPT_PLAY", "TRADE_STRIDE", "marker_code", "marker_of", "plain",
           "play_code", "play_of", "swap_code", "swap_of", "trade_code", "trade_of"]
