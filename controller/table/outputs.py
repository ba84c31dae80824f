"""The table's outputs for the referee's signals: seat LEDs, buzzer, status LED and display."""

from __future__ import annotations

import numpy as np

from controller.config import Config
from controller.words.events import Event, NewGame
from controller.words.signals import Signal
from hardware.devices import TableDevices
from hardware.display_link import DisplayLink
from hardware.seat_colours import SeatColours
from hardware.signal_outputs import Light, SignalOutputs


class TableOutputs:
    """Seat LEDs, buzzer, status LED and display board through `hardware.signal_outputs`.

    Listens for new games so that the seat colours follow the game on the table.
    """

    def __init__(self, config: Config, devices: TableDevices, display: DisplayLink | None) -> None:
        self.config = config
        self.devices = devices
        self.display = display
        self.outputs = self._outputs(config.game.game)

    def _outputs(self, game: str) -> SignalOutputs:
        seats = SeatColours.for_game(game, self.config.seats.colours(game))
        return SignalOutputs(self.devices, seats, self.display, lang=self.config.language,
                             page_s=self.config.display.page_s)

    def on_frame(self, t: float, image: np.ndarray) -> None:
        return None

    def on_event(self, event: Event, source: str) -> None:
        if isinstance(event, NewGame):  # the seat colours change with the game
            self.outputs.close()
            self.outputs = self._outputs(event.game)

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        return None

    def show(self, signals: list[Signal]) -> None:
        self.outputs.apply_all(signals)

    def lights(self) -> dict[int, Light]:
        """What each lit seat LED shows now (the others are dark)."""
        return dict(self.outputs.lights)

    def close(self) -> None:
        self.outputs.close()

    def __repr__(self) -> str:
        return "seat LEDs, buzzer and display"
