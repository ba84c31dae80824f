"""The answer to "was this allowed?", shared by both games' transition checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from controller.words.reasons import Reason

PlayT = TypeVar("PlayT")


@dataclass(frozen=True, slots=True)
class Verdict(Generic[PlayT]):
    """`legal` with the play that explains the observed position, or the reason it is illegal.

    `nearest` lists the legal plays whose results differ least from what was observed, so the
    referee can tell players what they probably meant.
    """

    legal: bool
    play: PlayT | None = None
    reason: Reason | None = None
    nearest: tuple[PlayT, ...] = field(default=())
