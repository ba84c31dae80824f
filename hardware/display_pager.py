"""Turns the display's pages, so that nothing the referee says is lost on a 20x4 display.

One referee step often says two things (an illegal move's reason and fields, then "correct the
board"; the dice read, then "make your move"), and a long reason needs more than four rows. The
pager shows the step's pages one after the other, `period` seconds each, round and round, until
the next step: the display always ends up saying what to do now, and the players can read why.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hardware.display_link import DisplayLink

#: Seconds each page stays: long enough to read three rows of text at the table.
PAGE_S = 3.0


class DisplayPager:
    """Shows pages of up to four lines on `display`; `show` returns at once."""

    def __init__(self, display: DisplayLink, period: float = PAGE_S) -> None:
        if period <= 0:
            raise ValueError(f"period must be positive, got {period}")
        self.display = display
        self.period = period
        self._pages: tuple[tuple[str, ...], ...] = ()
        self._index = 0
        self._turned_at = 0.0
        self._stopped = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def show(self, pages: Sequence[Sequence[str]]) -> None:
        """Show the first of `pages` now and, when there are more, each in turn after it."""
        if not pages:
            raise ValueError("no pages to show")
        with self._cond:
            if self._stopped:
                raise RuntimeError("the pager is stopped")
            self._pages = tuple(tuple(page) for page in pages)
            self._index = 0
            self._turned_at = time.monotonic()
            self.display.show_lines(self._pages[0])
            if len(self._pages) > 1 and self._thread is None:
                self._thread = threading.Thread(target=self._run, name="display-pager",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()

    def stop(self) -> None:
        """Stop turning pages; the display keeps the step's last page (what to do now, or how
        the game ended), the one that matters once nothing follows."""
        with self._cond:
            self._stopped = True
            if len(self._pages) > 1 and self._index != len(self._pages) - 1:
                self._index = len(self._pages) - 1
                self.display.show_lines(self._pages[self._index])
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                if len(self._pages) < 2:
                    self._cond.wait()
                    continue
                wait = self._turned_at + self.period - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                self._index = (self._index + 1) % len(self._pages)
                self._turned_at = time.monotonic()
                self.display.show_lines(self._pages[self._index])
