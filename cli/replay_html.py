"""`targi-sim replay ... --html FILE`: the game as a viewer page (targi_sim.viewer)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from targi_sim.game.record import GameRecord


def write_html(console: Console, record: GameRecord, title: str, file: str) -> None:
    """Write the page atomically and say where; a path that cannot be written is a usage
    error (one line, exit code 2)."""
    from targi_sim.viewer import ViewerError, write_game_page

    from .common import fail

    path = Path(file)
    if path.is_dir():
        raise fail(f"--html {file!r} is a folder; give a file name such as game.html")
    if not path.parent.is_dir():
        raise fail(f"--html {file!r}: the folder {str(path.parent)!r} does not exist")
    state = record.final_state
    try:
        write_game_page(record, state.deck, state.rules, path, title)
    except OSError as exc:
        raise fail(f"--html {file!r} cannot be written: {exc.strerror or exc}") from None
    except ViewerError as exc:  # the engine's second replay is not the game: a bug, not a mistake
        raise fail(f"no page written: {exc}", 1) from None
    size = path.stat().st_size
    console.print(f"Wrote {file} ({size / 1024:,.0f} KB): {title}, {record.rounds} rounds, "
                  f"{record.trace.height:,} decisions; open it in a browser (no server needed).",
                  highlight=False, markup=False)
