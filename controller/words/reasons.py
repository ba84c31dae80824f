"""One catalog of every reason shown at the table, in German and English.

Each reason has one stable key; the display, the logs and the table log all say the same words.
Engines declare their reasons at import time with `reason(key, de, en)`.
"""

from __future__ import annotations

from dataclasses import dataclass

LANGUAGES = ("de", "en")


@dataclass(frozen=True, slots=True)
class Reason:
    """Why something is not allowed (or what must happen), in words a player understands."""

    key: str
    de: str
    en: str

    def text(self, lang: str = "de") -> str:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
        return self.de if lang == "de" else self.en


CATALOG: dict[str, Reason] = {}


def reason(key: str, de: str, en: str) -> Reason:
    """Register a reason; the same key may not be declared twice with different words."""
    existing = CATALOG.get(key)
    new = Reason(key, de, en)
    if existing is not None and existing != new:
        raise ValueError(f"reason {key!r} declared twice with different texts")
    CATALOG[key] = new
    return new


def lookup(key: str) -> Reason:
    """The reason registered under `key` (KeyError names the key when unknown)."""
    try:
        return CATALOG[key]
    except KeyError:
        raise KeyError(f"no reason registered under {key!r}") from None
