"""The configuration file: every default written out, every mistake named with key and file."""

from __future__ import annotations

import dataclasses
import subprocess
import tomllib
from pathlib import Path

import pytest

from controller import config
from tests.cli import spieltisch


def test_default_file_equals_the_dataclass_defaults() -> None:
    parsed = config.parse(config.default_text(), "defaults")
    assert parsed == dataclasses.replace(config.Config(), source="defaults")


def test_default_file_writes_out_every_key() -> None:
    written = tomllib.loads(config.default_text())
    for section in dataclasses.fields(config.Config):
        if section.name == "source":
            continue
        cls = type(getattr(config.Config(), section.name))
        keys = {f.name for f in dataclasses.fields(cls)}
        assert section.name in written, f"section [{section.name}] missing"
        assert set(written[section.name]) == keys, section.name


def test_no_file_and_no_environment_gives_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(config.ENV_VAR, raising=False)
    assert config.load() == config.Config()


def test_environment_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[game]\ngame = "maedn"\nvariant = "vegas"\nplayers = 3\n', "utf-8")
    monkeypatch.setenv(config.ENV_VAR, str(path))
    loaded = config.load()
    assert (loaded.game.game, loaded.game.variant, loaded.game.players) == ("maedn", "vegas", 3)
    assert loaded.source == str(path)
    assert loaded.camera == config.CameraConfig()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('colour = "red"\n', "colour"),
        ('[camera]\nsorce = "opencv"\n', "camera.sorce"),
        ("[gaem]\nplayers = 2\n", "gaem"),
        ('[simulation]\nseeds = 3\n', "simulation.seeds"),
    ],
)
def test_unknown_key_is_an_error_naming_key_and_file(text: str, named: str) -> None:
    with pytest.raises(config.ConfigError) as err:
        config.parse(text, "/etc/spieltisch/config.toml")
    message = str(err.value)
    assert "/etc/spieltisch/config.toml" in message
    assert f"unknown key {named}" in message


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[game]\nplayers = "4"\n', "game.players"),
        ("[camera]\ndevice = 1.5\n", "camera.device"),
        ("[camera]\nfps = true\n", "camera.fps"),
        ('[display]\nport = 3\n', "display.port"),
        ('[seats]\nmaedn = "red"\n', "seats.maedn"),
        ("[seats]\nbackgammon = [\"white\", 2]\n", "seats.backgammon[1]"),
        ('camera = "opencv"\n', "camera"),
        ('[simulation]\ngames = ["backgammon-standard"]\n', "simulation.games[0]"),
    ],
)
def test_wrong_type_is_an_error_naming_key_and_file(text: str, named: str) -> None:
    with pytest.raises(config.ConfigError) as err:
        config.parse(text, "table.toml")
    assert str(err.value).startswith("table.toml: ")
    assert named in str(err.value)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[game]\ngame = "chess"\n', "chess"),
        ('[game]\nvariant = "vegas"\n', "vegas"),
        ('[game]\ngame = "maedn"\nvariant = "hofer"\nplayers = 5\n', "not 5"),
        ("[game]\nplayers = 4\n", "not 4"),
        ('[seats]\nmaedn = ["red", "red", "green", "yellow"]\n', "seats.maedn"),
        ('[seats]\nbackgammon = ["white"]\n', "seats.backgammon"),
        ('[seats]\nbackgammon = ["white", "purple"]\n', "seats.backgammon[1]"),
        ('[camera]\nsource = "webcam"\n', "camera.source"),
        ("[camera]\nfps = 0\n", "camera.fps"),
        ('[display]\nlanguage = "fr"\n', "display.language"),
        ('[display]\nport = ""\n', "display.port"),
        ("[display]\npage_s = 0\n", "display.page_s"),
        ('[pins]\nfactory = "rpigpio"\n', "pins.factory"),
        ("[simulation]\nhand_rate = 1.5\n", "simulation.hand_rate"),
        ('[simulation]\ngames = ["maedn/hofer/7"]\n', "simulation.games[0]"),
        ("[simulation]\ngames = []\n", "simulation.games"),
    ],
)
def test_impossible_value_is_an_error_naming_it(text: str, named: str) -> None:
    with pytest.raises(config.ConfigError) as err:
        config.parse(text, "table.toml")
    assert "table.toml" in str(err.value)
    assert named in str(err.value)


def test_broken_toml_and_missing_file_are_named(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match=r"broken\.toml: not valid TOML"):
        config.parse("[game\n", "broken.toml")
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(config.ConfigError, match=r"nowhere\.toml: cannot read"):
        config.load(missing)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return spieltisch("config", *args, timeout=60)


def test_cli_prints_defaults_that_check_clean(tmp_path: Path) -> None:
    printed = _cli("--print-defaults")
    assert printed.returncode == 0
    path = tmp_path / "config.toml"
    path.write_text(printed.stdout, "utf-8")
    checked = _cli("--check", str(path))
    assert checked.returncode == 0, checked.stderr
    assert "OK" in checked.stdout


def test_cli_check_reports_the_bad_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[display]\nport = "/dev/ttyACM0"\nbaud = 9600\n', "utf-8")
    checked = _cli("--check", str(path))
    assert checked.returncode == 1
    assert str(path) in checked.stderr
    assert "display.baud" in checked.stderr
