"""A Targi game as the game-AI frameworks step it: a deal by number, the legal actions of
the pending decision, an answer by action number, the result, and the narration.

Both seats are decided from outside (`play.session.Game` with two external seats), so
each step is one decision of either seat. Deal `k` of a `Table` is game `k` of
`targi-sim run --seed RUN_SEED --pairing one_per_deal`: engine seed
`(run_seed << 32) | k`, seat `k % 2` first in round 1, game id `k`; a game played
through the frameworks is therefore the game `targi-sim run` plays on that deal with
the same answers (tests/test_ai_fidelity.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from targi_sim.ai.actions import action_of, describe
from targi_sim.ai.encoding import ME, NOBODY, OPPONENT, Encoding
from targi_sim.engine.buffers import make_logs
from targi_sim.errors import ConfigError
from targi_sim.game.decisions import Decision
from targi_sim.game.deck import Deck
from targi_sim.game.narration import Narrator, cell_name
from targi_sim.game.view import View
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import pair_seed
from targi_sim.play.session import MAX_TRACE, Game, external_strategy

DEFAULT_DEALS = 2**16
MAX_DEALS = 2**20  # OpenSpiel lists every chance outcome: a million is already 100 MB
MAX_RUN_SEED = 2**31 - 1


@dataclass(frozen=True)
class TableSettings:
    """What a table's games depend on (the OpenSpiel game's parameters)."""

    deck: str = "base"
    rules: str = "default"
    run_seed: int = 0
    deals: int = DEFAULT_DEALS
    logs: bool = True


class Table:
    """Deals games of one deck and rules, both seats decided from outside.

    ConfigError (one line naming the setting) for a bad number, UsageError for an
    unknown deck or rules name, DataError for a malformed file."""

    def __init__(self, settings: TableSettings) -> None:
        _check(settings)
        self.settings = settings
        self.match = prepare_match((external_strategy(), external_strategy()),
                                   settings.deck, settings.rules)
        self.encoding = Encoding(self.match.deck)

    @classmethod
    def of(cls, match: Match) -> Table:
        """The table of a match whose two seats are decided from outside (a bot's
        world: play.session.Game.resample with `detach`)."""
        table = cls.__new__(cls)
        deck, rules = match.deck, match.rules
        # names only: such a table deals no games (its states come from a bot's world)
        table.settings = TableSettings(deck=deck.name, rules=rules.name)
        table.match = match
        table.encoding = Encoding(deck)
        return table

    @property
    def deck(self) -> Deck:
        return self.match.deck

    def deal(self, k: int) -> Game:
        """Deal `k` (0 <= k < deals): game k of a one-game-per-deal run (module docstring)."""
        s = self.settings
        if not 0 <= k < s.deals:
            raise ValueError(f"deal {k} is not one of this table's deals 0..{s.deals - 1}")
        logs = None if s.logs else make_logs(0)
        return Game(self.match, pair_seed(s.run_seed, k), first_player=k % 2, game_id=k,
                    trace_rows=MAX_TRACE, logs=logs, transcript=True)


def _check(s: TableSettings) -> None:
    for name in ("deck", "rules"):
        if not isinstance(getattr(s, name), str) or not getattr(s, name):
            raise ConfigError(name, f"must be a shipped name or a file path; got "
                              f"{getattr(s, name)!r}")
    if isinstance(s.run_seed, bool) or not isinstance(s.run_seed, int) or \
            not 0 <= s.run_seed <= MAX_RUN_SEED:
        raise ConfigError("run_seed", f"must be a whole number from 0 to {MAX_RUN_SEED:,}; "
                          f"got {s.run_seed!r}")
    if isinstance(s.deals, bool) or not isinstance(s.deals, int) or \
            not 1 <= s.deals <= MAX_DEALS:
        raise ConfigError("deals", f"must be a whole number from 1 to {MAX_DEALS:,}; "
                          f"got {s.deals!r}")
    if not isinstance(s.logs, bool):
        raise ConfigError("logs", f"must be true or false; got {s.logs!r}")


class Position:
    """A session game seen through action numbers; caches the pending decision's."""

    __slots__ = ("game", "_legal")

    def __init__(self, game: Game) -> None:
        self.game = game
        self._legal: tuple[list[int], dict[int, int]] | None = None

    def copy(self) -> Position:
        p = Position(self.game.clone())
        p._legal = self._legal  # never changed in place: shared until the next answer
        return p

    @property
    def current_player(self) -> int | None:
        return self.game.current_player

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    def legal(self) -> tuple[list[int], dict[int, int]]:
        """(the legal actions in ascending order, action -> option index)."""
        if self._legal is None:
            d = self.game.decision
            if d is None:
                self._legal = ([], {})
            else:
                index = {action_of(d.type, v): i for i, v in enumerate(d.values)}
                self._legal = (sorted(index), index)
        return self._legal

    def apply(self, action: int) -> None:
        index = self.legal()[1].get(int(action))
        if index is None:
            d = self.game.decision
            what = "the game is over" if d is None else f"the pending decision is {d.type!r}"
            raise ValueError(f"action {action} ({describe(action)}) is not legal here: {what}")
        self._legal = None
        self.game.apply(index)

    def returns(self) -> list[float]:
        """+1 for the winner, -1 for the loser, 0 each for a draw (and while it goes on)."""
        w = self.game.winner
        if w is None or w < 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if w == 0 else [-1.0, 1.0]

    def to_move(self, seat: int) -> int:
        p = self.game.current_player
        return NOBODY if p is None else ME if p == seat else OPPONENT

    def view(self, seat: int) -> View:
        return self.game.view(seat)

    def observation(self, seat: int) -> tuple[View, int, Decision | None]:
        """(view, to_move, decision): what `seat` may know, for the encoding."""
        who = self.to_move(seat)
        return self.view(seat), who, self.game.decision if who == ME else None

    def action_text(self, action: int) -> str:
        """The option's words when it is legal here (unique within the decision), else
        the action's type and code."""
        index = self.legal()[1].get(int(action))
        d = self.game.decision
        if index is None or d is None:
            return describe(action)
        text = d.options[index].text
        if sum(o.text == text for o in d.options) > 1:
            return f"{text} (option code {d.values[index]})"
        return text


def slot_names(narrator: Narrator, view: View, seat: int) -> dict[int, str]:
    """Action slot -> what it is this round, as the text replay says it (public: the
    Targis and markers of both seats lie open on the board)."""
    h = view.me if view.player == seat else view.opponent
    out = {k: f"its Targi on {narrator.border(b)}" for k, b in enumerate(h.targis)}
    out.update({3 + k: f"its tribe marker on {cell_name(c)}" for k, c in enumerate(h.markers)})
    return out


class Narration:
    """Each decision of a game in the words of `targi-sim replay` (game.narration), told
    once: call `after_answer` after every answer, read `take()` for the new lines."""

    def __init__(self, game: Game) -> None:
        self.narrator = Narrator(game.match.deck)
        self.told = 0
        self.round = 0
        self.lines: list[str] = []
        self._slots = self._current_slots(game)

    def _current_slots(self, game: Game) -> dict[int, dict[int, str]]:
        view = game.view(0)
        return {p: slot_names(self.narrator, view, p) for p in range(2)}

    def after_answer(self, game: Game) -> None:
        """Narrate the decisions logged since the last call: an action slot is named from
        the board of its round (now, or as it was before the answer ended the round)."""
        rows = game.history(self.told)
        now_round = game.view(0).round
        now = self._current_slots(game)
        for r in rows:
            if r["round"] != self.round:
                self.round = r["round"]
                self.lines.append(f"Round {self.round}")
            slots = (now if r["round"] == now_round else self._slots)[r["player"]]
            text = self.narrator.decision(r["decision"], r["choice"], r["context"], slots)
            self.lines.append(f"  seat {r['player']} {text}")
        self.told += len(rows)
        self._slots = now
        if game.is_over:
            s = game.scores
            w = game.winner
            result = "a draw" if w is None or w < 0 else f"seat {w} wins"
            self.lines.append(f"Final: seat 0 scores {s[0]}, seat 1 scores {s[1]}: {result}")

    def take(self) -> list[str]:
        out, self.lines = self.lines, []
        return out


__all__ = ["DEFAULT_DEALS", "MAX_DEALS", "MAX_RUN_SEED", "Narration", "Position", "Table",
           "TableSettings", "slot_names"]
