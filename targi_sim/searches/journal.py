"""A search's folder remembers the settings it was started with; the same call (the same
command) continues it, and a different one is refused with the settings that differ.

`settings_of` turns a config object and the fingerprints of what it loaded (deck,
rules, strategies, settings files: their SHA-256) into a JSON-safe dict; `claim_settings`
writes it into a new folder or compares it with the one there; `open_study` opens the
Optuna study of the folder's append-only journal file (calibrate, balance), whose
finished trials survive a kill at any moment. tune keeps its optimiser in a pickle
instead, the same settings dict inside.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from targi_sim._utils.atomic import atomic_write
from targi_sim.errors import InputError

SETTINGS_FILE = "config.json"  # in a search folder: the settings it was started with
JOURNAL_FILE = "study.journal"  # in a search folder: Optuna's journal of its trials


def settings_of(config: Any, **fingerprints: Any) -> dict[str, Any]:
    """The JSON form of a config (a dataclass or a mapping) plus named fingerprints of
    its loaded inputs: what a rerun must match to continue a search."""
    data = asdict(config) if is_dataclass(config) else dict(config)
    return json.loads(json.dumps({**data, **fingerprints}, sort_keys=True, default=str))


def differences(saved: Mapping[str, Any], wanted: Mapping[str, Any],
                defaults: Mapping[str, Any] | None = None) -> list[str]:
    """The settings whose values differ (a setting added since `saved` was written
    reads as its value in `defaults`)."""
    old = {**(defaults or {}), **saved}
    return sorted(k for k in set(old) | set(wanted) if old.get(k) != wanted.get(k))


def named(fields: list[str]) -> str:
    """Setting names as library messages give them (in backquotes: the command line
    shows its options there)."""
    return ", ".join(f"`{f}`" for f in fields)


def claim_settings(folder: Path, settings: Mapping[str, Any], what: str,
                   defaults: Mapping[str, Any] | None = None,
                   error: type[InputError] = InputError) -> bool:
    """Write `settings` into a new search folder (True: a search there is continued,
    False: a new one starts); `error` (an InputError) if the folder holds a search with
    other settings, naming them."""
    path = Path(folder) / SETTINGS_FILE
    if path.is_file():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise error(f"cannot read {str(path)!r} ({exc}); choose another `out` or "
                        "delete the folder") from None
        diff = differences(saved, settings, defaults)
        if diff:
            raise error(f"{str(folder)!r} holds a {what} with other settings "
                        f"({named(diff)}); rerun it with the same ones to continue it, or "
                        "choose another `out`")
        return True
    Path(folder).mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda p: Path(p).write_text(
        json.dumps(dict(settings), indent=2, sort_keys=True) + "\n", encoding="utf-8"))
    return False


def open_study(folder: Path, name: str, **create: Any):
    """The Optuna study `name` of the journal file in `folder`, created or continued
    (`create`: direction, pruner, ... for optuna.create_study)."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    Path(folder).mkdir(parents=True, exist_ok=True)
    storage = JournalStorage(JournalFileBackend(str(Path(folder) / JOURNAL_FILE)))
    return optuna.create_study(study_name=name, storage=storage, load_if_exists=True,
                               **create)


__all__ = ["JOURNAL_FILE", "SETTINGS_FILE", "claim_settings", "differences", "named",
           "open_study", "settings_of"]
