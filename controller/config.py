"""The table's one configuration file: TOML read with `tomllib` into frozen dataclasses.

Every key has a default (`config_default.toml`, shipped as package data, is the documentation
and is checked against these dataclasses by the tests). An unknown key, a value of the wrong type
or an impossible value raises `ConfigError` naming the key and the file, so a typo on the table
never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, get_args, get_type_hints

from controller.rules.games import GAMES as RULES
from controller.rules.games import NAMES
from controller.words import catalogue

log = logging.getLogger(__name__)

GAMES = NAMES
VARIANTS = {name: game.variants for name, game in RULES.items()}
PLAYERS = {name: game.players for name, game in RULES.items()}
COLOURS = ("white", "black", "yellow", "green", "red", "blue")
CAMERA_SOURCES = ("simulated", "opencv", "picamera2")
PIN_FACTORIES = ("mock", "lgpio", "default")
LANGUAGES = catalogue.LANGUAGES
ENV_VAR = "SPIELTISCH_CONFIG"


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    game: str = "backgammon"
    variant: str = "standard"
    players: int = 2
    match_length: int = 1


@dataclass(frozen=True, slots=True)
class SeatsConfig:
    backgammon: tuple[str, ...] = ("white", "black")
    maedn: tuple[str, ...] = ("yellow", "green", "red", "black")

    def colours(self, game: str) -> tuple[str, ...]:
        """The seat colours for `game`, seat 0 first."""
        return getattr(self, game)


@dataclass(frozen=True, slots=True)
class CameraConfig:
    source: str = "simulated"
    device: int = 0
    width: int = 1280
    height: int = 720
    fps: int = 15
    settle_ms: int = 300
    calibration: str = ""
    lost_after_s: float = 2.0
    skip_still_frames: bool = True


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    port: str = "simulated"
    baudrate: int = 115200
    language: str = "de"
    page_s: float = 3.0


@dataclass(frozen=True, slots=True)
class PinsConfig:
    factory: str = "mock"
    map: str = ""
    stuck_changes_per_s: int = 10
    stuck_after_s: float = 10.0


@dataclass(frozen=True, slots=True)
class DataConfig:
    directory: str = "~/.local/share/spieltisch"

    def path(self) -> Path:
        """The data directory with "~" expanded (not created here)."""
        return Path(self.directory).expanduser()


@dataclass(frozen=True, slots=True)
class SimulatedGame:
    """One game of the simulated table, written "game/variant/players" in the file."""

    game: str
    variant: str
    players: int

    def __str__(self) -> str:
        return f"{self.game}/{self.variant}/{self.players}"


@dataclass(frozen=True, slots=True)
class SimulationConfig:
    games: tuple[SimulatedGame, ...] = (
        SimulatedGame("backgammon", "standard", 2),
        SimulatedGame("maedn", "hofer", 4),
    )
    seed: int = 1
    speed: float = 0.0
    width: int = 1280
    height: int = 720
    illegal_rate: float = 0.1
    hand_rate: float = 0.2
    cocked_rate: float = 0.05
    dim_rate: float = 0.0
    max_turns: int = 3000


@dataclass(frozen=True, slots=True)
class Config:
    game: GameConfig = field(default_factory=GameConfig)
    seats: SeatsConfig = field(default_factory=SeatsConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    data: DataConfig = field(default_factory=DataConfig)
    simulation: SimulationConfig = field(default_factory=SimulationConfig)
    source: str = "<defaults>"

    @property
    def simulated(self) -> bool:
        """True when the camera is the renderer: the bots play and the table watches them."""
        return self.camera.source == "simulated"

    @property
    def language(self) -> str:
        return self.display.language


def default_text() -> str:
    """The documented default file, exactly as shipped (what `--print-defaults` prints)."""
    return resources.files("controller").joinpath("config_default.toml").read_text("utf-8")


def load(path: str | os.PathLike[str] | None = None) -> Config:
    """Read the configuration from `path`; None means `$SPIELTISCH_CONFIG`, else the defaults."""
    if path is None:
        path = os.environ.get(ENV_VAR) or None
    if path is None:
        return Config()
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{name}: cannot read the configuration file: {exc.strerror}") from None
    return parse(raw.decode("utf-8", errors="replace"), name)


def parse(text: str, name: str = "<string>") -> Config:
    """Parse TOML text into a `Config`; `name` is the file named in every error."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None
    config = _build(Config, data, name, "", skip=("source",))
    return validate(dataclasses.replace(config, source=name))


def _build(cls: type, data: dict[str, Any], name: str, prefix: str, skip: tuple[str, ...] = ()):
    hints = get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls) if f.name not in skip}
    for key in data:
        if key not in known:
            raise ConfigError(
                f"{name}: unknown key {prefix}{key} (known here: {', '.join(sorted(known))})"
            )
    values: dict[str, Any] = {}
    for key, value in data.items():
        values[key] = _convert(hints[key], value, name, f"{prefix}{key}")
    return cls(**values)


def _convert(hint: Any, value: Any, name: str, key: str) -> Any:
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ConfigError(f"{name}: {key} must be a table [{key}], not {_kind(value)}")
        return _build(hint, value, name, f"{key}.")
    if hint == tuple[SimulatedGame, ...]:
        if not isinstance(value, list):
            raise ConfigError(f"{name}: {key} must be a list of \"game/variant/players\"")
        return tuple(_simulated_game(v, name, f"{key}[{i}]") for i, v in enumerate(value))
    if getattr(hint, "__origin__", None) is tuple:
        item = get_args(hint)[0]
        if not isinstance(value, list):
            raise ConfigError(f"{name}: {key} must be a list, not {_kind(value)}")
        return tuple(_convert(item, v, name, f"{key}[{i}]") for i, v in enumerate(value))
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{name}: {key} must be true or false, not {_kind(value)}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{name}: {key} must be a number, not {_kind(value)}")
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name}: {key} must be a whole number, not {_kind(value)}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{name}: {key} must be a text in quotes, not {_kind(value)}")
        return value
    raise ConfigError(f"{name}: {key} has a type the table cannot read ({hint})")


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _simulated_game(value: Any, name: str, key: str) -> SimulatedGame:
    parts = value.split("/") if isinstance(value, str) else []
    if len(parts) != 3 or not parts[2].isdigit():
        raise ConfigError(f"{name}: {key} must read \"game/variant/players\", not {value!r}")
    game = SimulatedGame(parts[0], parts[1], int(parts[2]))
    _check_game(game.game, game.variant, game.players, name, key)
    return game


def _check_game(game: str, variant: str, players: int, name: str, key: str) -> None:
    if game not in GAMES:
        raise ConfigError(f"{name}: {key}: unknown game {game!r} (known: {', '.join(GAMES)})")
    if variant not in VARIANTS[game]:
        raise ConfigError(
            f"{name}: {key}: unknown {game} variant {variant!r} "
            f"(known: {', '.join(VARIANTS[game])})"
        )
    if players not in PLAYERS[game]:
        raise ConfigError(
            f"{name}: {key}: {game} is played by {' or '.join(map(str, PLAYERS[game]))} "
            f"players, not {players}"
        )


def _choice(value: str, allowed: tuple[str, ...], name: str, key: str) -> None:
    if value not in allowed:
        raise ConfigError(f"{name}: {key} = {value!r} is not one of: {', '.join(allowed)}")


def _positive(value: float, name: str, key: str, zero_ok: bool = False) -> None:
    if value < 0 or (value == 0 and not zero_ok):
        raise ConfigError(f"{name}: {key} = {value} must be {'>= 0' if zero_ok else '> 0'}")


def validate(config: Config) -> Config:
    """Check the values (not only their types); returns `config`, raises ConfigError."""
    name = config.source
    game = config.game
    _check_game(game.game, game.variant, game.players, name, "game")
    _positive(game.match_length, name, "game.match_length")
    for game_name, rules in RULES.items():
        needed = max(rules.players)
        colours = config.seats.colours(game_name)
        key = f"seats.{game_name}"
        if len(colours) != needed:
            raise ConfigError(f"{name}: {key} needs {needed} colours, not {len(colours)}")
        for i, colour in enumerate(colours):
            _choice(colour, COLOURS, name, f"{key}[{i}]")
        if len(set(colours)) != len(colours):
            raise ConfigError(f"{name}: {key} uses a colour twice: {list(colours)}")
    cam = config.camera
    _choice(cam.source, CAMERA_SOURCES, name, "camera.source")
    _positive(cam.device, name, "camera.device", zero_ok=True)
    for key in ("width", "height", "fps", "lost_after_s"):
        _positive(getattr(cam, key), name, f"camera.{key}")
    _positive(cam.settle_ms, name, "camera.settle_ms", zero_ok=True)
    if not config.display.port:
        raise ConfigError(f"{name}: display.port is empty (use \"none\" for no display)")
    _positive(config.display.baudrate, name, "display.baudrate")
    _positive(config.display.page_s, name, "display.page_s")
    _choice(config.display.language, LANGUAGES, name, "display.language")
    _choice(config.pins.factory, PIN_FACTORIES, name, "pins.factory")
    _positive(config.pins.stuck_changes_per_s, name, "pins.stuck_changes_per_s")
    _positive(config.pins.stuck_after_s, name, "pins.stuck_after_s")
    if not config.data.directory:
        raise ConfigError(f"{name}: data.directory is empty")
    sim = config.simulation
    if not sim.games:
        raise ConfigError(f"{name}: simulation.games is empty")
    _positive(sim.speed, name, "simulation.speed", zero_ok=True)
    _positive(sim.width, name, "simulation.width")
    _positive(sim.height, name, "simulation.height")
    _positive(sim.max_turns, name, "simulation.max_turns", zero_ok=True)
    for key in ("illegal_rate", "hand_rate", "cocked_rate", "dim_rate"):
        rate = getattr(sim, key)
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"{name}: simulation.{key} = {rate} must lie between 0 and 1")
    return config
