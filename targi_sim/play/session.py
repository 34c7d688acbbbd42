"""Step-by-step play from Python: OpenSpiel-style game objects and Python strategies.

    import targi_sim
    state = targi_sim.new_game(seed=1, deck="base")          # both seats decided here
    while not state.is_over:
        d = state.decision                                      # type, player, options
        state.apply(0)                                          # index into d.options
    print(state.winner, state.scores)

A `Game` may also seat compiled strategies (`new_game(..., p1="balanced")`): they play
inside the engine and the game only stops at the external seats' decisions.

How it works (engine/policies/external.py): the engine cannot call Python, so an external
seat answers from a script of option values. `Game` keeps the state at the start of the
current round and the answers given in it; to reach the next decision it replays the
round from that snapshot with those answers until the next external decision pauses it.
Games are deterministic, so the replay is exact, and a game played this way equals the
same game played in a batch with the same answers.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from targi_sim.engine import layout as lay
from targi_sim.engine.batch import OPTION_BUFFER, write_result
from targi_sim.engine.branching import searches_every_decision
from targi_sim.engine.buffers import make_logs
from targi_sim.engine.constants import DECISION_NAMES, MC_PENDING, N_STRAT_PARAMS, SK_EXTERNAL
from targi_sim.engine.decision_tree import C_SIZE, N_COLS
from targi_sim.engine.expert import answer_paused, real_seats
from targi_sim.engine.ismcts import H_REUSED, H_RUN, H_SEARCHES
from targi_sim.engine.logs import (
    G_SIZE,
    H_GAME,
    H_OVERFLOW,
    H_USED,
    N_TABLES,
    T_TRACE,
    room_for_game,
)
from targi_sim.engine.montecarlo import placement_trees, uses_montecarlo
from targi_sim.engine.round_replay import play_one_round_plain
from targi_sim.engine.rounds import setup_game
from targi_sim.engine.stepping import GAME_OVER, PAUSED, play_one_round
from targi_sim.errors import StrategyError
from targi_sim.game.decisions import Decision, option
from targi_sim.game.deck import Deck
from targi_sim.game.record import GameRecord, game_record
from targi_sim.game.rules import Rules
from targi_sim.game.state import GameState
from targi_sim.game.view import View
from targi_sim.play.match import Match, StrategySpec, prepare_match
from targi_sim.players.strategy import Strategy

EXTERNAL = "external"  # the seat name of a seat decided from Python
MAX_TRACE = 50_000


def external_strategy(name: str = EXTERNAL) -> Strategy:
    """A seat decided outside the engine (by a PythonStrategy, a person, an agent)."""
    params = np.zeros(N_STRAT_PARAMS)
    params[0] = SK_EXTERNAL
    return Strategy(name, SK_EXTERNAL, params, "decided from Python")


_ROUND_ENTRIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_EXTERNAL_MATCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def resamples(strategy: object) -> bool:
    """Does this Python strategy search re-dealt copies of the game (`resamples`: its
    `choose` takes a third argument, players.python_strategy)?"""
    return getattr(strategy, "resamples", False) is True


def _resampling_seat(match: Match) -> bool:
    return any(seat is not None and resamples(seat.strategy) for seat in match.python)


def _external_match(match: Match) -> Match:
    """The match's deck and rules with both seats decided from Python (cached per match)."""
    ext = _EXTERNAL_MATCHES.get(match)
    if ext is None:
        ext = prepare_match((external_strategy(), external_strategy()), match.deck, match.rules)
        _EXTERNAL_MATCHES[match] = ext
    return ext


def _replay_seats(match: Match, transcript: bool) -> tuple:
    """The seats a round is replayed with: the match's own, or the search build's when a
    seat searches every decision or the round's answers are wanted (engine/branching.py).
    The search arrays are placeholders: real games never search inside the replay."""
    if not transcript:
        return match.P
    return real_seats(match.P, np.zeros(C_SIZE, dtype=np.int64), np.zeros((2, N_COLS)))


def _round_player(match: Match, seats: tuple):
    """`play_one_round`'s compiled entry point for this match's argument types.

    Called once per Python decision, so the dispatcher's typing of every argument on
    every call (a tenth of the time per decision) is done once per match instead."""
    key_seats = len(seats)
    cached = _ROUND_ENTRIES.get(match, {}).get(key_seats)
    if cached is not None:
        return cached
    # without a Monte Carlo seat, the driver without the search (engine/round_replay.py)
    entry = play_one_round if uses_montecarlo(match.SP) else play_one_round_plain
    if hasattr(entry, "overloads"):  # compiled (not NUMBA_DISABLE_JIT)
        from numba import typeof

        args = (match.D, match.R, match.SP, make_logs(0), seats, match.PB,
                np.zeros(OPTION_BUFFER, dtype=np.int64), np.zeros(lay.S_SIZE, dtype=np.int64))
        key = tuple(typeof(a) for a in args)
        if key not in entry.overloads:
            entry.compile(key)
        entry = entry.overloads[key].entry_point
    _ROUND_ENTRIES.setdefault(match, {})[key_seats] = entry
    return entry


class Game:
    """One game, advanced one external decision at a time (see the module docstring).

    `decision` is the pending decision (None once the game is over); `apply(i)` answers
    it with option i; `view(p)` is what seat p may know now; `clone()` copies the game.
    """

    def __init__(self, match: Match, seed: int, first_player: int = 0, game_id: int = 0,
                 *, trace_rows: int = MAX_TRACE, logs: np.ndarray | None = None,
                 on_round_end: Callable[[np.ndarray, int], None] | None = None,
                 transcript: bool = False) -> None:
        """`on_round_end(state, trace_rows)`, if given, sees a copy of the game state
        (S[:S_CORE]) each time a round ends (and when a raid ends the game), with the
        decision-trace rows logged so far: the HTML viewer's round-end pictures.
        `transcript`: keep the round's answers (`round_answers`), as a game with a seat
        that searches every decision always does."""
        self.match = match
        self._on_round_end = on_round_end
        self.seed = int(seed)
        self.first_player = int(first_player)
        self.game_id = int(game_id)
        self._external = tuple(int(match.SP[p, 0]) == SK_EXTERNAL for p in range(2))
        self._searching = tuple(bool(searches_every_decision(match.SP, p)) for p in range(2))
        self._seats = _replay_seats(match, transcript or any(self._searching)
                                    or _resampling_seat(match))
        self._search_nodes = np.zeros((2, len(DECISION_NAMES)), dtype=np.int64)
        # the searching seats' placement trees, kept for the game as a batch keeps them
        self._trees = placement_trees(match.SP)
        self._round_S = np.zeros(lay.S_SIZE, dtype=np.int64)
        setup_game(self._round_S, match.D, match.R, self.seed, self.first_player)
        if len(self._seats) == 5:
            self._round_S[lay.S_T_MODE] = lay.TM_REAL
        self._round_SP = match.SP.copy()
        self._round_SP[:, MC_PENDING] = np.nan  # no placement waiting (as play_batch_mc)
        self._L = logs if logs is not None else make_logs(1, exact=True, trace_rows=trace_rows)
        self._L[H_GAME] = self.game_id
        self._round_used = self._L[H_USED:H_USED + N_TABLES].copy()
        self._answers: list[int] = []
        self._redeals: list[tuple[int, int, int]] = []  # resample(): (answers before, p, seed)
        self._S = self._round_S.copy()
        self._SP = self._round_SP.copy()
        self._O = np.zeros(OPTION_BUFFER, dtype=np.int64)
        self._decision: Decision | None = None
        self._over = False
        self._advance()

    # ------------------------------------------------------------ stepping
    def _replay(self) -> int:
        """Replay the current round from its start with the answers so far."""
        S, SP = self._S, self._SP
        S[:] = self._round_S
        SP[:, :] = self._round_SP
        n = len(self._answers)
        if n > lay.MAX_SCRIPT:
            raise RuntimeError(f"more than {lay.MAX_SCRIPT} external decisions in one round")
        S[lay.S_RD_N] = len(self._redeals)
        S[lay.S_RD_DONE] = 0
        for k, (at, player, seed) in enumerate(self._redeals):
            S[lay.S_RD + 3 * k:lay.S_RD + 3 * k + 3] = (at, player, seed)
        S[lay.S_X_N] = n
        S[lay.S_X_SCRIPT:lay.S_X_SCRIPT + n] = self._answers
        self._L[H_USED:H_USED + N_TABLES] = self._round_used
        m = self.match
        return int(_round_player(m, self._seats)(m.D, m.R, SP, self._L, self._seats, m.PB,
                                                 self._O, S))

    def _advance(self) -> None:
        """Play on to the next external decision (or the end of the game); a seat that
        searches every decision answers its own (engine/expert.py)."""
        while True:
            status = self._replay()
            if status == PAUSED:
                p = int(self._S[lay.S_X_PLAYER])
                if self._searching[p]:
                    m = self.match
                    answer, nodes = answer_paused(self._round_S, self._S, m.D, m.R,
                                                  self._round_SP, m.PB, p, 0, self._trees)
                    self._answers.append(int(answer))
                    self._search_nodes[p] += nodes
                    continue
                self._decision = self._read_decision()
                return
            if self._L[H_OVERFLOW]:
                raise RuntimeError("engine log overflow: a game produced more rows than allowed")
            # the round is over: it becomes the new starting point
            if self._on_round_end is not None:
                self._on_round_end(self._S[:lay.S_CORE].copy(),
                                   int(self._L[H_USED + T_TRACE]))
            self._round_S[:] = self._S
            self._round_S[lay.S_X_N] = 0
            self._round_S[lay.S_X_POS] = 0
            self._round_S[lay.S_T_N] = 0
            self._redeals = []  # applied: the new round starts in the re-dealt world
            self._round_SP[:, :] = self._SP
            self._round_used = self._L[H_USED:H_USED + N_TABLES].copy()
            self._answers = []
            if status == GAME_OVER:
                self._over = True
                self._decision = None
                return

    def _read_decision(self) -> Decision:
        S = self._S
        p = int(S[lay.S_X_PLAYER])
        dtype = int(S[lay.S_X_DTYPE])
        ctx = int(S[lay.S_X_CTX])
        values = tuple(S[lay.S_X_OPTIONS:lay.S_X_OPTIONS + int(S[lay.S_X_N_OPTIONS])].tolist())
        deck = self.match.deck
        if DECISION_NAMES[dtype] == "action":
            slots = self._slot_names(p)  # read now: the frozen state is overwritten later
            return Decision("action", p, ctx, values,
                            lambda v: option(deck, dtype, v, ctx, slots))
        return Decision(DECISION_NAMES[dtype], p, ctx, values,
                        lambda v: option(deck, dtype, v, ctx, {}))

    def _slot_names(self, p: int) -> dict[int, str]:
        F = self.frozen
        base = lay.S_PLAYER + p * lay.P_SIZE
        deck = self.match.deck
        names = {}
        for k in range(3):
            b = int(F[base + lay.P_TARGI + k])
            if b >= 0:
                names[k] = f"the Targi on {b + 1} {deck.border_names[b]}"
        for k in range(2):
            cell = int(F[base + lay.P_MARKER + k])
            if cell >= 0:
                names[3 + k] = f"tribe marker {k + 1} on centre ({cell // 3 + 1},{cell % 3 + 1})"
        return names

    def history(self, start: int = 0) -> list[dict]:
        """Every decision taken so far (seat, decision type, option value, context, round),
        as the trace logs them (empty when the game was made without a trace); `start`:
        from that row on (`trace_position` gives the rows logged so far)."""
        from targi_sim.engine.buffers import table
        from targi_sim.engine.logs import RT_CHOICE, RT_CTX, RT_DTYPE, RT_PLAYER, RT_ROUND, T_TRACE

        rows = table(self._L, T_TRACE)
        if self._decision is not None:
            rows = rows[:int(self._S[lay.S_X_TRACE_AT])]
        rows = rows[start:]
        return [{"player": int(r[RT_PLAYER]), "decision": DECISION_NAMES[int(r[RT_DTYPE])],
                 "choice": int(r[RT_CHOICE]), "context": int(r[RT_CTX]),
                 "round": int(r[RT_ROUND])} for r in rows]

    @property
    def trace_position(self) -> int:
        """Decision-trace rows logged before the pending decision (all rows once over)."""
        if self._decision is None:
            return int(self._L[H_USED + T_TRACE])
        return int(self._S[lay.S_X_TRACE_AT])

    @property
    def round_start(self) -> np.ndarray:
        """The engine state at the start of the current round (read it; do not change it)."""
        return self._round_S

    def round_answers(self) -> np.ndarray:
        """Every answer given in the current round before the pending decision, both
        seats', in order (a game made with `transcript=True`, or with a seat that searches
        every decision): with `round_start`, the pending decision can be reached again."""
        if len(self._seats) != 5:
            raise ValueError("this game keeps no transcript: make it with transcript=True")
        n = int(self._S[lay.S_T_N]) if self._decision is not None else 0
        return self._S[lay.S_T:lay.S_T + n].copy()

    def search_nodes(self, player: int) -> dict[str, int]:
        """Tree nodes the searches of a seat that searches every decision have added so far,
        by the decision type of the answer each node stands for (both seats' answers)."""
        return {name: int(k) for name, k in zip(DECISION_NAMES, self._search_nodes[player],
                                                strict=True) if k}

    def placement_searches(self, player: int) -> dict[str, int]:
        """What the placement searches (engine/ismcts.py) of a seat that searches every
        decision did this game:
        `searches` that ran, root visits they `reused` from the seat's previous search of
        the round (`reuse_tree`) and iterations they `ran`."""
        header = self._trees[player, 0]
        return {"searches": int(header[H_SEARCHES]), "reused": int(header[H_REUSED]),
                "ran": int(header[H_RUN])}

    def paused_replay(self) -> np.ndarray:
        """A copy of the whole engine state of the replay that paused at the pending
        decision (its S_X_* decision and S_T answers): what a search of that decision
        continues from, with `round_start` (engine/expert.py)."""
        if self._decision is None:
            raise ValueError("the game is over: no decision is pending")
        return self._S.copy()

    @property
    def frozen(self) -> np.ndarray:
        """The engine state at the pending decision (read it; do not change it)."""
        if self._decision is None:
            return self._S[:lay.S_CORE]
        return self._S[lay.S_X_FROZEN:lay.S_X_FROZEN + lay.S_CORE]

    # ------------------------------------------------------------ the public API
    @property
    def decision(self) -> Decision | None:
        return self._decision

    @property
    def options(self):
        return () if self._decision is None else self._decision.options

    @property
    def current_player(self) -> int | None:
        return None if self._decision is None else self._decision.player

    @property
    def is_over(self) -> bool:
        return self._over

    def apply(self, index: int) -> None:
        """Answer the pending decision with option `index` (0-based) and play on."""
        d = self._decision
        if d is None:
            raise ValueError("the game is over: there is no decision to answer")
        if isinstance(index, bool) or not isinstance(index, int | np.integer) or not (
                0 <= index < len(d.values)):
            raise ValueError(f"option index must be 0..{len(d.values) - 1} for this "
                             f"{d.type} decision; got {index!r}")
        self._answers.append(d.values[int(index)])
        self._advance()

    def view(self, player: int | None = None) -> View:
        """What seat `player` (default: the one to decide) may know now."""
        if player is None:
            player = self.current_player if self.current_player is not None else 0
        return View(self.frozen, self.match.deck, int(player))

    def resample(self, seed: int, *, detach: bool = False) -> Game:
        """A copy of the game in which everything the player to decide cannot know (the
        order of both decks, face-down cards, an opponent's hand card drawn unseen, the
        opponent's and the decks' random streams) is re-dealt at random from `seed`; what
        that player knows, and the pending decision, are unchanged. The re-deal depends
        only on the set of hidden cards and the seed, so two games the player cannot tell
        apart give the same resampled games: what ISMCTS needs (`targi_sim.openspiel`).
        The game must keep a transcript (`new_game(..., transcript=True)`).

        `detach`: the copy keeps no logs (cheap to copy) and both its seats are decided
        from Python, answering the rest of the round as this game's seats did: a world
        in which a search plays both seats itself (OpenSpiel's bots)."""
        d = self._decision
        if d is None:
            raise ValueError("the game is over: there is no decision to resample at")
        if len(self._seats) != 5:
            raise ValueError("resample needs a game that keeps a transcript: make it with "
                             "new_game(..., transcript=True)")
        if len(self._redeals) >= lay.MAX_REDEALS:
            raise ValueError(f"at most {lay.MAX_REDEALS} resamples in one round")
        g = self._detached() if detach else self.clone()
        g._redeals.append((int(self._S[lay.S_T_N]), d.player, int(seed) & (2**62 - 1)))
        g._advance()
        return g

    def _detached(self) -> Game:
        """A copy with both seats decided from Python, replaying this round's answers
        (both seats', from the transcript), and without logs (see `resample`)."""
        match = _external_match(self.match)
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.match = match
        g._on_round_end = None
        g._external = (True, True)
        g._searching = (False, False)
        g._seats = _replay_seats(match, True)
        g._search_nodes = np.zeros_like(self._search_nodes)
        g._round_S = self._round_S.copy()
        g._round_SP = match.SP.copy()
        g._round_SP[:, MC_PENDING] = np.nan
        g._L = make_logs(0)
        g._L[H_GAME] = self.game_id
        g._round_used = g._L[H_USED:H_USED + N_TABLES].copy()
        g._answers = self.round_answers().tolist()
        g._redeals = list(self._redeals)
        g._S = self._S.copy()
        g._SP = g._round_SP.copy()
        g._O = self._O.copy()
        return g

    def clone(self) -> Game:
        """An independent copy (e.g. to look ahead); the original is unchanged."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        for name in ("_round_S", "_round_SP", "_L", "_round_used", "_S", "_SP", "_O",
                     "_search_nodes", "_trees"):
            setattr(g, name, getattr(self, name).copy())
        g._answers = list(self._answers)
        g._redeals = list(self._redeals)
        return g

    @property
    def scores(self) -> tuple[int, int]:
        from targi_sim.engine.scoring import total_score

        S = self._S if self._over else self.frozen
        m = self.match
        return (int(total_score(S, m.D, m.R, 0)), int(total_score(S, m.D, m.R, 1)))

    @property
    def winner(self) -> int | None:
        """0 or 1, -1 for a draw, None while the game goes on."""
        if not self._over:
            return None
        return self.result_row()[2]

    def result_row(self) -> np.ndarray:
        """The engine's per-game result row (records.G_*), once the game is over."""
        if not self._over:
            raise ValueError("the game is not over yet")
        G = np.zeros((1, G_SIZE), dtype=np.int64)
        m = self.match
        write_result(self._S, m.D, m.R, G, 0, self.game_id)
        return G[0]

    def record(self) -> GameRecord:
        """The full record of a finished game (as `play_game` returns it)."""
        state = GameState(self._S.copy(), self.match.deck, self.match.rules)
        return game_record(self.seed, self.match.strategies, self.result_row(), self._L, state)


def drive(game: Game) -> None:
    """Play a game to its end, asking each Python seat's strategy (match.python)."""
    seats = game.match.python
    for p, seat in enumerate(seats):
        if seat is not None:
            seat.strategy.new_game(p, game.seed)
    while not game.is_over:
        d = game.decision
        assert d is not None
        seat = seats[d.player]
        if seat is None:
            raise StrategyError(f"seat {d.player} is decided from Python but has no strategy")
        strategy = seat.strategy
        name = game.match.strategies[d.player]
        try:
            if resamples(strategy):  # a search: re-dealt copies, never the game itself
                i = strategy.choose(game.view(d.player), d, partial(game.resample, detach=True))
            else:
                i = strategy.choose(game.view(d.player), d)
        except Exception as exc:
            raise StrategyError(
                f"strategy {name!r} (seat {d.player}) raised {type(exc).__name__}: {exc} at a "
                f"{d.type!r} decision in game {game.game_id} (seed {game.seed})") from exc
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not (
                0 <= i < len(d.values)):
            raise StrategyError(
                f"strategy {name!r} (seat {d.player}) answered {i!r} to a {d.type!r} decision "
                f"with {len(d.values)} options in game {game.game_id} (seed {game.seed}); "
                f"choose must return an index 0..{len(d.values) - 1}")
        game.apply(int(i))


def play_python_plan(match: Match, seeds: np.ndarray, first: np.ndarray, ids: np.ndarray,
                     G: np.ndarray, L: np.ndarray, start: int) -> int:
    """play_plan for matches with a Python seat: one Game at a time into G and L."""
    for i in range(start, len(seeds)):
        if not room_for_game(L):
            return i
        game = Game(match, int(seeds[i]), int(first[i]), int(ids[i]), logs=L)
        drive(game)
        G[i] = game.result_row()
    return len(seeds)


def new_game(seed: int = 0, *, p0: StrategySpec | None = None, p1: StrategySpec | None = None,
             deck: str | Deck = "base", rules: str | Rules = "default",
             first_player: int = 0, trace: bool = True, transcript: bool = False) -> Game:
    """A new game; a seat given no strategy is decided from Python (`Game.apply`).
    `transcript`: keep each round's answers (`Game.round_answers`), e.g. for a search."""
    seats: Sequence[StrategySpec] = (p0 if p0 is not None else external_strategy(),
                                     p1 if p1 is not None else external_strategy())
    match = prepare_match(seats, deck, rules)
    return Game(match, seed, first_player, trace_rows=MAX_TRACE if trace else 0,
                transcript=transcript)


__all__ = ["EXTERNAL", "Game", "drive", "external_strategy", "new_game", "play_python_plan",
           "resamples"]
