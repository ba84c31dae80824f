"""The referee: events in, signals out; a pure, deterministic state machine.

No clock, pin or port inside (time arrives in events), so the table, the simulator, the tests
and a replay of a journal or table log all get the same signals from the same events.
`Referee.handle` never loses state on bad input: an event that cannot apply raises
`RefereeInputError` before anything changes.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import Any

from controller.referee.backgammon import BackgammonReferee
from controller.referee.maedn import MaednReferee
from controller.referee.turns import Phase, TableSettings, TurnReferee, expect_roll, notice
from controller.rules.errors import RulesError
from controller.rules.games import Game, game_named
from controller.rules.match import Match
from controller.words.buttons import Button
from controller.words.events import (
    Board,
    ButtonPressed,
    DiceObserved,
    ElectronicRoll,
    Event,
    NewGame,
)
from controller.words.reasons import reason
from controller.words.signals import Signal

log = logging.getLogger(__name__)

NO_GAME = reason("referee.no_game")
MATCH_OVER = reason("referee.match_over")


REFEREES: dict[str, type[TurnReferee[Any]]] = {
    referee.game.name: referee for referee in (BackgammonReferee, MaednReferee)
}


class RefereeInputError(ValueError):
    """An event that cannot apply (unknown variant, bad option); the state is unchanged."""


class Referee:
    """Judges one table. `handle(event)` returns the signals that event causes, in order."""

    def __init__(self, settings: TableSettings | None = None) -> None:
        self.base_settings = settings or TableSettings()
        self.game: TurnReferee[Any] | None = None
        self.new_game_event: NewGame | None = None

    @property
    def phase(self) -> Phase | None:
        return self.game.state.phase if self.game else None

    @property
    def match(self) -> Match | None:
        """The backgammon match being played (score, cube, Crawford), None otherwise."""
        return self.game.state.match if self.game else None

    @property
    def rules(self) -> Game | None:
        """The game being judged (how many dice a roll has, ...), None before the first."""
        return self.game.game if self.game else None

    def candidate_boards(self) -> tuple[Board, ...]:
        """The distinct boards the legal plays of the open turn leave (the unchanged board only
        when nothing can move); () when the referee waits for no play."""
        return self.game.candidate_boards() if self.game else ()

    def position_board(self) -> Board | None:
        """The board the position before the open play shows; None before the first game."""
        return self.game.board_of(self.game.state.pos) if self.game else None

    def handle(self, event: Event) -> list[Signal]:
        if isinstance(event, NewGame):
            return self._new_game(event)
        if self.game is None:
            asked = isinstance(event, ButtonPressed | DiceObserved | ElectronicRoll)
            return [notice(NO_GAME)] if asked else []
        if isinstance(event, ButtonPressed) and event.name is Button.NEW_GAME:
            return self._next_game()
        return self.game.handle(event)

    def replay(self, events: Iterable[Event]) -> list[Signal]:
        """Feed many events; all their signals (used to resume from a journal)."""
        out: list[Signal] = []
        for event in events:
            out += self.handle(event)
        return out

    def _new_game(self, event: NewGame, carry: Any = None) -> list[Signal]:
        table = {k: v for k, v in event.options if k in TableSettings.KEYS}
        try:
            settings = dataclasses.replace(self.base_settings, **table)
            options = rule_options(event)
            game = REFEREES[event.game].start(options, settings, event, carry)
        except (RulesError, TypeError, ValueError) as exc:
            raise RefereeInputError(f"cannot start {event.game} {event.variant!r}: {exc}") from None
        self.game = game
        self.new_game_event = event
        log.info("new game: %s %s, %d players", event.game, event.variant, event.players)
        return [expect_roll(game.seat())]

    def _next_game(self) -> list[Signal]:
        """The new-game button: the next game of the match (or the same game again)."""
        assert self.new_game_event is not None
        carry = None
        game = self.game
        if game is not None and game.state.phase is Phase.OVER:
            carry = game.carry()
            if carry is not None and game.match_over():
                return [notice(MATCH_OVER)]
        return self._new_game(self.new_game_event, carry)


def rule_options(event: NewGame) -> Any:
    """The rules a new game is played by: its variant's preset with the single rules its
    options switch (the table settings among them left out). RulesError or RefereeInputError
    names an unknown game, variant or option."""
    rules = {k: v for k, v in event.options if k not in TableSettings.KEYS}
    return _with_rules(game_named(event.game).options(event.variant), rules)


def _with_rules(options: Any, rules: dict[str, Any]) -> Any:
    if not rules:
        return options
    known = {f.name for f in dataclasses.fields(options)}
    unknown = sorted(set(rules) - known)
    if unknown:
        raise RefereeInputError(f"unknown rule option(s) {', '.join(unknown)}")
    return dataclasses.replace(options, **rules)
