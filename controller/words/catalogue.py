"""One catalogue of everything the table says, in every language it speaks.

A language is one TOML file in `controller/words/languages/` (`de.toml`, `en.toml`): the same
keys in every file, each text with the same `{placeholders}`. Adding a language is adding a
file; the code names keys only, and the outputs (display, terminal view, self-test, logs)
choose the words in the table's language when they show something.
"""

from __future__ import annotations

import logging
import string
import tomllib
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

log = logging.getLogger(__name__)

FOLDER = "languages"


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, f"{name}."))
        else:
            out[name] = str(value)
    return out


def load(folder: Traversable) -> dict[str, dict[str, str]]:
    """Every language file in `folder` (named like the language: `de.toml`), key -> text."""
    found = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".toml"):
            words = tomllib.loads(entry.read_text("utf-8"))
            found[entry.name.removesuffix(".toml")] = _flatten(words)
    return found


WORDS: dict[str, dict[str, str]] = load(resources.files("controller.words").joinpath(FOLDER))
#: Every language the table speaks, German (the table's own) first.
LANGUAGES: tuple[str, ...] = tuple(sorted(WORDS, key=lambda lang: (lang != "de", lang)))
FALLBACK = "en"


def has(key: str) -> bool:
    """Whether every language has a text for `key`."""
    return all(key in words for words in WORDS.values())


def text(key: str, lang: str = "de", **params: Any) -> str:
    """The words for `key` in `lang` with its placeholders filled (a `Reason` as a parameter is
    put in the same language). A key a language lacks falls back to English, then to the key
    itself, so a table never stops for a missing word (tests/controller/test_words.py keeps
    every language complete)."""
    if lang not in WORDS:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    template = WORDS[lang].get(key) or WORDS.get(FALLBACK, {}).get(key)
    if template is None:
        log.warning("no words for %r in %s", key, lang)
        return key
    if not params:
        return template
    values = {k: v.text(lang) if hasattr(v, "text") else v for k, v in params.items()}
    return template.format(**values)


def placeholders(template: str) -> set[str]:
    """The `{names}` a text fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
