"""Why something is not allowed, or what must happen: a key into the catalogue, with parameters.

Engines and the referee declare their reasons at import time with `reason(key)`; the words
live in the catalogue (`controller.words.catalogue`, one file per language), so a signal
carries only the key and the parameters, and each output says it in the table's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.words import catalogue
from controller.words.catalogue import LANGUAGES

__all__ = ["CATALOG", "LANGUAGES", "Reason", "lookup", "reason"]


@dataclass(frozen=True, slots=True)
class Reason:
    """A catalogue key and the values of its placeholders (`{dice}`, `{input}`, ...)."""

    key: str
    params: tuple[tuple[str, Any], ...] = ()

    def text(self, lang: str = "de") -> str:
        """The words in `lang` (any language of the catalogue)."""
        return catalogue.text(self.key, lang, **dict(self.params))

    @property
    def de(self) -> str:
        return self.text("de")

    @property
    def en(self) -> str:
        return self.text("en")

    def with_params(self, **params: Any) -> Reason:
        """The same reason with (more) placeholder values."""
        return Reason(self.key, (*self.params, *params.items()))


CATALOG: dict[str, Reason] = {}


def reason(key: str, de: str | None = None, en: str | None = None) -> Reason:
    """Declare a reason shown at the table; every language file must have words for `key`.

    Texts given here (older callers keep their German and English next to the key) must be the
    catalogue's, so the code and the language files cannot drift apart.
    """
    if not catalogue.has(key):
        missing = [lang for lang in LANGUAGES if key not in catalogue.WORDS[lang]]
        raise ValueError(f"reason {key!r} has no words in {', '.join(missing)} (catalogue)")
    for lang, given in (("de", de), ("en", en)):
        if given is not None and given != catalogue.WORDS[lang][key]:
            raise ValueError(f"reason {key!r} is declared with other {lang} words than the "
                             f"catalogue's: {given!r}")
    declared = CATALOG.setdefault(key, Reason(key))
    return declared


def lookup(key: str) -> Reason:
    """The reason declared under `key` (KeyError names the key when unknown)."""
    try:
        return CATALOG[key]
    except KeyError:
        raise KeyError(f"no reason registered under {key!r}") from None
