"""The cold-compile estimate shown while the engine compiles comes from this machine:
its own last compile, else its compile of an earlier engine version, else the documented
figure scaled by its speed (the estimate once said 'about 55 s left' for 18 s)."""

from __future__ import annotations

import contextlib
import json

import pytest

from targi_sim.engine import cache_dir
from targi_sim.play import builds


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TARGI_SIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(builds, "build_of", lambda match: "heuristic")
    return tmp_path


def _write(folder, seconds):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / builds.BUILDS_FILE).write_text(json.dumps({"heuristic": {"seconds": seconds}}))


def test_the_documented_figure_is_scaled_by_this_machines_speed(cache, monkeypatch):
    monkeypatch.setattr(builds, "reference_loop_seconds",
                        lambda: builds.DOCUMENTED_LOOP_SECONDS / 2)  # twice as fast
    assert builds.estimate_seconds(None) == pytest.approx(
        builds.DOCUMENTED_SECONDS["heuristic"] / 2)


def test_an_earlier_engine_versions_compile_on_this_machine_is_used(cache, monkeypatch):
    monkeypatch.setattr(builds, "reference_loop_seconds", lambda: 1e9)  # must not be used
    _write(cache / "0123456789abcdef", 18.2)
    assert cache_dir().parent == cache
    assert builds.estimate_seconds(None) == pytest.approx(18.2)


def test_this_versions_own_compile_comes_first(cache):
    _write(cache / "0123456789abcdef", 18.2)
    _write(cache_dir(), 21.0)
    assert builds.estimate_seconds(None) == pytest.approx(21.0)


def test_the_reference_loop_takes_milliseconds():
    assert 0 < builds.reference_loop_seconds() < 2


# ------------------------------------------------------------------ the evaluation fit
def test_a_fit_runs_inside_the_observer_a_front_end_installed(monkeypatch):
    """The fit of a cut playout's evaluation (players/evaluation.py) compiles its game
    recorder the first time on a machine, before any engine build: a front end sees it."""
    from targi_sim.play.match import prepare_match
    from targi_sim.players import evaluation

    seen: list[str] = []

    @contextlib.contextmanager
    def observer():
        seen.append("start")
        yield
        seen.append("end")

    monkeypatch.setattr(evaluation, "_FITTED", {})  # nothing fitted in this process yet
    previous = evaluation.observe_fits(observer)
    try:
        prepare_match(("expert", "tuned"))
        prepare_match(("expert", "tuned"))  # memoised: no second fit
    finally:
        evaluation.observe_fits(previous)
    assert seen == ["start", "end"]


def test_the_cli_shows_the_first_fit_on_a_machine_and_remembers_its_seconds(cache, capsys):
    from cli.common import _fit_status

    with _fit_status():
        pass
    shown = capsys.readouterr().err
    assert "Fitting the search's playout evaluation" in shown and "left" in shown
    assert builds.is_built(builds.FIT_BUILD)
    with _fit_status():  # fitted before on this machine: a fraction of a second, silent
        pass
    assert capsys.readouterr().err == ""


def test_a_commands_quiet_silences_the_fit(cache, capsys):
    import click

    from cli.common import _fit_status

    with click.Context(click.Command("run")) as ctx:
        ctx.params["quiet"] = True
        with _fit_status():
            pass
    assert capsys.readouterr().err == ""
    assert not builds.is_built(builds.FIT_BUILD)
