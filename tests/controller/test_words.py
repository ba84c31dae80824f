"""The catalogue of words: every language complete, every key the code names has words, and a
language is one file."""

from __future__ import annotations

import ast
import shutil
from importlib import resources
from pathlib import Path

import pytest

# Every module that declares reasons, so that the catalogue of reasons is whole.
import controller.referee
import controller.rules.games
import controller.table.notices  # noqa: F401
import vision.calibration  # noqa: F401
from controller import config
from controller.rules.games import GAMES
from controller.words import catalogue
from controller.words.buttons import Button
from controller.words.reasons import CATALOG, Reason, reason
from controller.words.signals import EXPECTS
from hardware.seat_colours import COLOURS

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "controller" / "words" / catalogue.FOLDER


@pytest.mark.parametrize("lang", catalogue.LANGUAGES)
def test_every_language_has_every_key_with_the_same_placeholders(lang: str) -> None:
    german = catalogue.WORDS["de"]
    words = catalogue.WORDS[lang]
    assert sorted(words) == sorted(german)
    for key, template in words.items():
        assert template.strip(), key
        assert catalogue.placeholders(template) == catalogue.placeholders(german[key]), key


def test_german_and_english_say_every_reason_differently() -> None:
    assert len(CATALOG) > 70
    for key, declared in CATALOG.items():
        assert declared.de and declared.en and declared.de != declared.en, key


def test_every_key_the_code_names_has_words() -> None:
    """Keys written out in the code (`text("...")`, `reason("...")`), and the families the
    outputs build keys from (`expect.<expect>`, `colour.<colour>`, ...)."""
    named = set()
    for path in [*(ROOT / "controller").rglob("*.py"), *(ROOT / "hardware").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("text", "reason") and node.args
                    and isinstance(node.args[0], ast.Constant)):
                named.add(node.args[0].value)
    named |= {f"expect.{expect}" for expect in EXPECTS}
    named |= {f"result.{result}" for result in ("single", "gammon", "backgammon", "drop")}
    named |= {f"colour.{colour}" for colour in COLOURS}
    named |= {f"button.{button}" for button in Button} | {"button.dice_tray"}
    named |= {f"led.{pattern}" for pattern in ("off", "on", "slow", "fast", "pulse")}
    named |= {f"game.{game}" for game in GAMES}
    assert len(named) > 60
    assert [key for key in sorted(named) if not catalogue.has(key)] == []


def test_a_reason_carries_its_parameters_into_every_language() -> None:
    stuck = reason("table.sensor_stuck").with_params(input="Würfelschale")
    assert stuck.de.endswith(": Würfelschale") and stuck.en.startswith("Sensor stuck")
    nested = reason("table.sensor_stuck").with_params(input=Reason("button.dice_tray"))
    assert nested.de.endswith("Würfelschale") and nested.en.endswith("dice tray")


def test_a_reason_the_catalogue_does_not_know_or_declared_with_other_words_is_refused() -> None:
    with pytest.raises(ValueError, match="no words"):
        reason("nobody.wrote.this")
    with pytest.raises(ValueError, match="other de words"):
        reason("referee.undone", "Zurück!", None)


def test_adding_a_language_is_one_file(tmp_path: Path) -> None:
    for name in ("de.toml", "en.toml"):
        shutil.copy(FOLDER / name, tmp_path / name)
    english = (FOLDER / "en.toml").read_text("utf-8")
    (tmp_path / "xx.toml").write_text(english.replace('= "', '= "xx '), "utf-8")
    words = catalogue.load(resources.files("controller.words").joinpath(catalogue.FOLDER))
    assert sorted(words) == sorted(catalogue.LANGUAGES) == ["de", "en"]
    more = catalogue.load(tmp_path)
    assert sorted(more) == ["de", "en", "xx"]
    assert more["xx"]["table.sensor_stuck"] == "xx Sensor stuck, now ignored: {input}"
    assert sorted(more["xx"]) == sorted(more["de"])


def test_the_table_speaks_the_languages_the_catalogue_has() -> None:
    assert config.LANGUAGES == catalogue.LANGUAGES
    with pytest.raises(ValueError, match="unknown language"):
        catalogue.text("expect.roll", "fr")
