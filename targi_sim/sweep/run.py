"""Play a sweep into its directory, resumably, and write its report.

Layout of a sweep directory:

    sweep.json            the sweep's manifest: spec, axes, variants, each variant's run
                          and status, the sweep's identity hash (written atomically)
    inputs/<variant>/     the edited deck.toml / rules.toml a variant plays
    runs/<variant>/       an ordinary run directory (targi_sim.runner): Parquet, resumable
    report/               report.html, report.md, plots/, tables/

Resuming: the same sweep into the same directory plays nothing for a variant whose run
is complete (the runner checks each chunk's files against its marker) and resumes an
interrupted one through the runner (its completed chunks are kept). A different sweep
is refused unless `force`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from targi_sim._utils.atomic import atomic_write_json, atomic_write_text
from targi_sim._version import __version__
from targi_sim.runner import RunConfig, resolve_run
from targi_sim.runner.dispatch import execute

from ..engine import source_digest
from ..errors import InputError
from ..runner.config import ResolvedRun
from .plan import Axis, SweepSpec, Variant, VariantInputs, build_axes, variant_inputs, variants

SWEEP_FILE = "sweep.json"
LOCK = ".targi-sim-sweep.lock"
KIND = "targi-sim sweep"

Progress = Callable[[str, int], None]  # (variant key, games just finished)


@dataclass
class SweepPlan:
    spec: SweepSpec
    axes: list[Axis]
    variants: list[Variant]
    inputs: dict[str, VariantInputs]
    identity: dict[str, Any] = field(default_factory=dict)
    sweep_hash: str = ""


@dataclass
class SweepResult:
    out: Path
    plan: SweepPlan
    played: dict[str, int]  # variant -> games played now (0: skipped, already complete)
    seconds: float
    report_files: list[Path] = field(default_factory=list)
    tables: dict[str, Any] = field(default_factory=dict)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _write_inputs(root: Path, key: str, inp: VariantInputs) -> tuple[str, str]:
    """Write a variant's edited files under root/inputs/<key>; (deck, rules) to run with."""
    folder = root / "inputs" / key
    deck, rules = None, inp.rules_name
    if inp.deck_text is not None or inp.rules_text is not None:
        folder.mkdir(parents=True, exist_ok=True)
    if inp.deck_text is not None:
        path = folder / "deck.toml"
        if not (path.is_file() and path.read_text(encoding="utf-8") == inp.deck_text):
            atomic_write_text(path, inp.deck_text)
        deck = str(path)
    if inp.rules_text is not None:
        path = folder / "rules.toml"
        if not (path.is_file() and path.read_text(encoding="utf-8") == inp.rules_text):
            atomic_write_text(path, inp.rules_text)
        rules = str(path)
    return deck or "", rules


def _resolve(spec: SweepSpec, root: Path, key: str, inp: VariantInputs) -> ResolvedRun:
    deck, rules = _write_inputs(root, key, inp)
    return resolve_run(RunConfig(games=spec.games, seed=spec.seed, p0=inp.p0, p1=inp.p1,
                                 deck=deck or spec.deck, rules=rules,
                                 chunk_size=spec.chunk_size))


def plan_sweep(spec: SweepSpec) -> tuple[SweepPlan, dict[str, ResolvedRun]]:
    """Validate everything and resolve every variant's run (files written to a temporary
    folder, so nothing is written before the whole sweep is known to be good)."""
    if spec.games < 1:
        raise InputError(f"`games` must be at least 1; got {spec.games}")
    axes = build_axes(spec)
    vs = variants(axes, spec.one_at_a_time)
    inputs = {v.key: variant_inputs(spec, axes, v) for v in vs}
    with tempfile.TemporaryDirectory() as tmp:
        resolved = {v.key: _resolve(spec, Path(tmp), v.key, inputs[v.key]) for v in vs}
    identity = {
        "kind": KIND, "games": spec.games, "seed": spec.seed, "engine": source_digest(),
        "variants": [{"key": v.key, "label": v.label, "config_hash": resolved[v.key].config_hash}
                     for v in vs],
    }
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    return SweepPlan(spec, axes, vs, inputs, identity, digest), resolved


def read_sweep_manifest(out: Path) -> dict[str, Any] | None:
    """The sweep manifest, None if there is none; InputError if it is not one."""
    path = out / SWEEP_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path} cannot be read as a sweep manifest ({exc})") from None
    if not (isinstance(data, dict) and data.get("kind") == KIND
            and isinstance(data.get("sweep_hash"), str)
            and isinstance(data.get("variants"), list)):
        raise InputError(f"{path} is not a targi-sim sweep manifest (fields kind, sweep_hash, "
                         "variants)")
    return data


def check_out(plan: SweepPlan, out: Path, force: bool) -> dict[str, Any] | None:
    """The manifest to resume from (None: a new sweep); InputError when `out` holds
    something else, or another sweep without `force`."""
    if out.exists() and not out.is_dir():
        raise InputError(f"`out` {str(out)!r} exists and is not a folder")
    try:
        old = read_sweep_manifest(out)
    except InputError as exc:
        if not force:
            raise InputError(f"{exc}; use `force` to start the sweep over, or choose another "
                             "`out`") from None
        return None
    if old is None and out.is_dir() and any(not p.name.startswith(".") for p in out.iterdir()):
        raise InputError(f"`out` {str(out)!r} holds other files and is not a targi-sim sweep; "
                         "choose an empty or new folder")
    if old is not None and old["sweep_hash"] != plan.sweep_hash:
        if not force:
            raise InputError(f"{out} already holds a different sweep ({old.get('name', '?')}: "
                             f"{len(old['variants'])} variants); use `force` to replace it, or "
                             "choose another `out`")
        return None
    return old


def _manifest(plan: SweepPlan, command: list[str], old: dict | None,
              status: dict[str, str]) -> dict[str, Any]:
    spec = asdict(plan.spec)
    spec["set_values"] = [[p, list(v)] for p, v in plan.spec.set_values]
    return {
        "tool": "targi-sim", "kind": KIND, "version": __version__, "name": plan.spec.name,
        "command": command, "spec": spec, "sweep_hash": plan.sweep_hash,
        "identity": plan.identity,
        "axes": [{"name": a.name, "kind": a.kind, "levels": list(a.labels)} for a in plan.axes],
        "variants": [{"key": v.key, "label": v.label, "coords": list(v.coords),
                      "run": f"runs/{v.key}", "p0": plan.inputs[v.key].p0,
                      "p1": plan.inputs[v.key].p1, "status": status[v.key]}
                     for v in plan.variants],
        "status": "complete" if all(s == "complete" for s in status.values()) else "incomplete",
        "timings": {"first_started": old["timings"]["first_started"]
                    if old and isinstance(old.get("timings"), dict)
                    and "first_started" in old["timings"] else _now(), "started": _now()},
    }


def run_sweep(spec: SweepSpec, out: str | Path, *, jobs: int = 1, backend: str = "loky",
              scheduler: str | None = None, force: bool = False, correction: str = "holm",
              min_n: int = 500,
              command: list[str] | None = None, progress: Progress | None = None,
              report_step: Callable[[str], None] | None = None,
              plan: SweepPlan | None = None) -> SweepResult:
    """Play (or resume) every variant into out/runs/<key>, then write out/report/.

    UsageError, DataError or InputError for bad input, before anything is played.
    `progress(key, games)` after each chunk (and once for a variant already complete);
    `plan`: plan_sweep(spec)'s, if the caller has made it already."""
    out = Path(out)
    if plan is None:
        plan, _ = plan_sweep(spec)
    check_out(plan, out, force)
    out.mkdir(parents=True, exist_ok=True)
    lock = FileLock(out / LOCK, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise InputError(f"another targi-sim sweep is writing to {str(out)!r}; wait for it or "
                         "choose another `out`") from None
    try:
        return _run(plan, out, jobs, backend, scheduler, force, correction,
                    command or sys.argv, progress, report_step, min_n)
    finally:
        lock.release()


def _run(plan: SweepPlan, out: Path, jobs: int, backend: str, scheduler: str | None,
         force: bool, correction: str, command: list[str], progress: Progress | None,
         report_step: Callable[[str], None] | None, min_n: int) -> SweepResult:
    old = check_out(plan, out, force)  # again, now that the lock is held
    status = {v.key: "pending" for v in plan.variants}
    manifest = _manifest(plan, command, old, status)
    atomic_write_json(out / SWEEP_FILE, manifest)  # first: the folder is a sweep from now on
    resolved = {v.key: _resolve(plan.spec, out, v.key, plan.inputs[v.key])
                for v in plan.variants}
    for i, v in enumerate(plan.variants):  # the files written here must be the ones planned
        if resolved[v.key].config_hash != plan.identity["variants"][i]["config_hash"]:
            raise InputError(f"the inputs of {v.key} changed while the sweep started; rerun")
    t0 = time.perf_counter()
    played: dict[str, int] = {}
    for v in plan.variants:
        def step(n: int, key: str = v.key) -> None:
            if progress:
                progress(key, n)

        # a complete variant plays nothing here (the runner checks every chunk against its
        # marker); an interrupted one resumes from its completed chunks
        outcome = execute(resolved[v.key], out / "runs" / v.key, jobs=jobs, backend=backend,
                          scheduler=scheduler, force=force, command=command, progress=step)
        played[v.key] = outcome.games_played
        status[v.key] = "complete" if outcome.manifest["status"] == "complete" else "pending"
        manifest["variants"] = _manifest(plan, command, old, status)["variants"]
        atomic_write_json(out / SWEEP_FILE, manifest)
    seconds = time.perf_counter() - t0
    manifest["status"] = "complete" if all(s == "complete" for s in status.values()) \
        else "incomplete"
    manifest["timings"].update({"finished": _now(), "seconds": round(seconds, 3),
                                "games_played": sum(played.values())})
    atomic_write_json(out / SWEEP_FILE, manifest)
    result = SweepResult(out, plan, played, seconds)
    from .analyse import report_sweep

    report_sweep(result, correction, report_step, min_n)
    return result


__all__ = ["SWEEP_FILE", "SweepPlan", "SweepResult", "check_out", "plan_sweep",
           "read_sweep_manifest", "run_sweep"]
