"""Board geometry in millimetres: where every point, tray, field and marker lies on the board.

Vision reads fields by sampling a top-down warp of the board at these known positions, and the
renderer draws from the same numbers, so both always agree. Sizes come from a TOML file (the Hofer
12-in-1 table by default, `boards/hofer.toml`); the origin is the board's outer top-left
corner as the camera sees it, x to the right, y down. See docs/geometry.md.
"""

from __future__ import annotations

import functools
import logging
import math
import tomllib
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

GAMES = ("backgammon", "maedn")
DIE_SIZE_MM = 16.0  # the table's dice (the dice reader is told how many pixels that is)
ROW = 5  # checkers a player lays side by side on a point before they overlap
Rect = tuple[float, float, float, float]
Point = tuple[float, float]


class GeometryError(ValueError):
    """A geometry file is wrong: names the file and the key."""


@dataclass(frozen=True, slots=True)
class Lane:
    """A strip where checkers lie in a row: a point, one half of the bar, or a bear-off tray.

    Checkers start at `origin` and stack along `direction`; `pitch` is the room one checker takes
    (its diameter, or its thickness when it stands on its edge in a tray). With `compress`, more
    checkers than fit into `stack_length` overlap like shingles, evenly spaced.
    """

    name: str
    origin: Point
    direction: Point
    width: float
    pitch: float
    stack_length: float
    compress: bool
    background: str  # "point0", "point1", "bar" or "tray": what shows when the lane is empty

    def offsets(self, count: int) -> list[float]:
        """Where each of `count` checkers begins, measured from the origin along the lane.

        Players lay up to `ROW` checkers in a row (past a short point's tip if need be);
        more overlap evenly over the stack's length (or the row's, if that is longer)."""
        if count <= 0:
            return []
        step = self.pitch
        span = max(self.stack_length, ROW * self.pitch)
        if self.compress and count > ROW and self.pitch * count > span:
            step = (span - self.pitch) / (count - 1)
        return [k * step for k in range(count)]

    @property
    def row(self) -> int:
        """How many checkers lie side by side before they overlap."""
        return ROW if self.compress else round(self.stack_length / self.pitch)

    def extent(self, count: int) -> float:
        """How far along the lane `count` checkers reach."""
        offs = self.offsets(count)
        return offs[-1] + self.pitch if offs else 0.0

    def at(self, along: float, across: float = 0.0) -> Point:
        """The board position `along` the lane and `across` it (to the right of the direction)."""
        dx, dy = self.direction
        return (
            self.origin[0] + along * dx - across * dy,
            self.origin[1] + along * dy + across * dx,
        )


TRAY_SIDES = ("right", "left", "both", "none")
TRAY_PLACES = ("right top", "right bottom", "left top", "left bottom")
HOME_SIDES = ("right", "left")


@dataclass(frozen=True, slots=True)
class BackgammonGeometry:
    """Backgammon board: 24 points, a bar (or none), bear-off trays (left, right, both or none).

    Left to right as the camera sees it: `frame`, [left tray, `tray_gap`], six points, the bar,
    six points, [`tray_gap`, right tray], `frame`. White sits at the bottom of the picture; its
    home board (points 1–6) lies on the `white_home` side. A tray column is split into a top and
    a bottom compartment by a piece `tray_gap` wide; `off_white` / `off_black` name the
    compartment each colour bears off into.
    """

    frame: float = 15.0
    point_width: float = 36.0
    point_length: float = 160.0
    bar_width: float = 40.0
    trays: str = "right"
    tray_width: float = 45.0
    tray_gap: float = 15.0
    off_white: str = "right bottom"
    off_black: str = "right top"
    white_home: str = "right"
    height: float = 420.0
    checker_diameter: float = 30.0
    checker_thickness: float = 8.0
    stack_length: float = 150.0

    @property
    def tray_sides(self) -> tuple[str, ...]:
        return {"right": ("right",), "left": ("left",), "both": ("left", "right"),
                "none": ()}[self.trays]

    @property
    def width(self) -> float:
        trays = len(self.tray_sides) * (self.tray_width + self.tray_gap)
        return 2 * self.frame + 12 * self.point_width + self.bar_width + trays

    @property
    def left_x(self) -> float:
        """Left edge of the left half."""
        left_tray = "left" in self.tray_sides
        return self.frame + (self.tray_width + self.tray_gap if left_tray else 0.0)

    @property
    def bar_x(self) -> float:
        return self.left_x + 6 * self.point_width

    @property
    def right_x(self) -> float:
        """Left edge of the right half."""
        return self.bar_x + self.bar_width

    @property
    def inner_rect(self) -> Rect:
        """The playing surface: both halves and the bar, without the trays."""
        return (self.left_x, self.frame, self.right_x + 6 * self.point_width,
                self.height - self.frame)

    @property
    def bar_rect(self) -> Rect | None:
        """The bar between the halves; None on a board whose halves meet."""
        if self.bar_width <= 0:
            return None
        return (self.bar_x, self.frame, self.right_x, self.height - self.frame)

    def half_rects(self) -> tuple[Rect, Rect]:
        """The left and the right half's playing area (points and the felt between them)."""
        y0, y1 = self.frame, self.height - self.frame
        return ((self.left_x, y0, self.bar_x, y1),
                (self.right_x, y0, self.right_x + 6 * self.point_width, y1))

    def tray_rects(self) -> dict[str, Rect]:
        """Every tray compartment there is, by place ("right top", "left bottom", ...)."""
        inner = self.height - 2 * self.frame
        half = (inner - self.tray_gap) / 2
        xs = {"left": self.frame,
              "right": self.right_x + 6 * self.point_width + self.tray_gap}
        out: dict[str, Rect] = {}
        for side in self.tray_sides:
            x = xs[side]
            out[f"{side} top"] = (x, self.frame, x + self.tray_width, self.frame + half)
            y1 = self.height - self.frame
            out[f"{side} bottom"] = (x, y1 - half, x + self.tray_width, y1)
        return out

    def tray_rect(self, colour: str) -> Rect:
        """The compartment `colour` ("white" or "black") bears off into."""
        place = self.off_white if colour == "white" else self.off_black
        return self.tray_rects()[place]

    @property
    def dice_area(self) -> Rect:
        """Where the dice are thrown: the middle strip of the right half, between the stacks."""
        mid = self.height / 2
        free = self.height / 2 - self.frame - self.stack_length
        return (self.right_x + 4, mid - free + 4, self.right_x + 6 * self.point_width - 4,
                mid + free - 4)

    def point_centre_x(self, point: int) -> float:
        """x of the centre of White's `point` (1..24)."""
        if not 1 <= point <= 24:
            raise ValueError(f"point must be 1..24, got {point}")
        pw = self.point_width
        # As if White's home were on the right; mirrored below for a home on the left.
        if point <= 6:
            offset = 6 + 6 - point + 0.5
        elif point <= 12:
            offset = 12 - point + 0.5
        elif point <= 18:
            offset = point - 13 + 0.5
        else:
            offset = 6 + point - 19 + 0.5
        if self.white_home == "left":
            offset = 12 - offset
        half = self.left_x if offset < 6 else self.right_x - 6 * pw
        return half + offset * pw

    def lanes(self) -> tuple[Lane, ...]:
        """Every lane: p1..p24, then bar_white and bar_black (when the board has a bar), then
        off_white and off_black (when it has trays), in that order."""
        return _lanes(self)

    def _build_lanes(self) -> tuple[Lane, ...]:
        out: list[Lane] = []
        d = self.checker_diameter
        for point in range(1, 25):
            bottom = point <= 12
            y = self.height - self.frame if bottom else self.frame
            out.append(Lane(
                name=f"p{point}", origin=(self.point_centre_x(point), y),
                direction=(0.0, -1.0) if bottom else (0.0, 1.0), width=self.point_width,
                pitch=d, stack_length=self.stack_length, compress=True,
                background=f"point{point % 2}",
            ))
        if self.bar_rect is not None:
            bar_cx = self.bar_x + self.bar_width / 2
            gap = 4.0
            # White's hit checkers wait in the half of the bar next to Black's home (top).
            out.append(Lane("bar_white", (bar_cx, self.height / 2 - gap), (0.0, -1.0),
                            self.bar_width, d, self.stack_length, True, "bar"))
            out.append(Lane("bar_black", (bar_cx, self.height / 2 + gap), (0.0, 1.0),
                            self.bar_width, d, self.stack_length, True, "bar"))
        if self.trays != "none":
            for colour in ("white", "black"):
                x0, y0, x1, y1 = self.tray_rect(colour)
                top = (self.off_white if colour == "white" else self.off_black).endswith("top")
                origin = ((x0 + x1) / 2, y0 if top else y1)
                out.append(Lane(f"off_{colour}", origin, (0.0, 1.0) if top else (0.0, -1.0),
                                x1 - x0, self.checker_thickness, y1 - y0, False, "tray"))
        return tuple(out)

    def lane(self, name: str) -> Lane | None:
        """The lane called `name`, or None where the board has no such place."""
        return next((lane for lane in self.lanes() if lane.name == name), None)

    def point_triangle(self, point: int) -> tuple[Point, Point, Point]:
        """The three corners of a point's triangle (base left, base right, tip)."""
        lane = self.lanes()[point - 1]
        half = self.point_width / 2
        return (lane.at(0, -half), lane.at(0, half), lane.at(self.point_length, 0))


@functools.lru_cache(maxsize=16)
def _lanes(geo: BackgammonGeometry) -> tuple[Lane, ...]:
    return geo._build_lanes()


@dataclass(frozen=True, slots=True)
class MaednGeometry:
    """Mensch ärgere Dich nicht board: an 11×11 grid with 40 track, 16 goal and 16 house fields.

    Colours 0..3 sit clockwise; colour c's start field is track field 10·c. Colour 0 starts on
    the left side, moving right and then up, as the camera sees the board.
    """

    cell: float = 40.0
    margin: float = 20.0
    frame: float = 12.0
    field_diameter: float = 30.0
    piece_diameter: float = 26.0
    seat_colours_2: tuple[int, ...] = (0, 2)
    seat_colours_3: tuple[int, ...] = (0, 1, 2)
    seat_colours_4: tuple[int, ...] = (0, 1, 2, 3)

    @property
    def width(self) -> float:
        return 2 * self.margin + 11 * self.cell

    @property
    def height(self) -> float:
        return self.width

    def cell_centre(self, col: float, row: float) -> Point:
        return (self.margin + (col + 0.5) * self.cell, self.margin + (row + 0.5) * self.cell)

    def track(self) -> tuple[Point, ...]:
        """Centres of the 40 track fields, index 0 = colour 0's start field, clockwise."""
        quarter = [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4), (4, 3), (4, 2), (4, 1), (4, 0), (5, 0)]
        cells = [_rotate(c, r, k) for k in range(4) for c, r in quarter]
        return tuple(self.cell_centre(c, r) for c, r in cells)

    def goal(self, colour: int) -> tuple[Point, ...]:
        """Colour's four goal fields, from the entrance inwards (positions 40..43)."""
        return tuple(self.cell_centre(*_rotate(c, 5, colour)) for c in (1, 2, 3, 4))

    def house(self, colour: int) -> tuple[Point, ...]:
        """Colour's four house fields (the order carries no meaning)."""
        return tuple(self.cell_centre(*_rotate(c, r, colour))
                     for c, r in ((0, 0), (1, 0), (0, 1), (1, 1)))

    def fields(self) -> tuple[tuple[str, Point, str], ...]:
        """Every field as (name, centre, empty look): t0..t39, g<colour><i>, h<colour><i>.

        The empty look is "track", or "tint<colour>" for goal, house and start fields.
        """
        out = [(f"t{i}", p, "track" if i % 10 else f"tint{i // 10}")
               for i, p in enumerate(self.track())]
        for colour in range(4):
            out += [(f"g{colour}{i}", p, f"tint{colour}") for i, p in enumerate(self.goal(colour))]
        for colour in range(4):
            out += [(f"h{colour}{i}", p, f"tint{colour}")
                    for i, p in enumerate(self.house(colour))]
        return tuple(out)

    def seat_colours(self, players: int) -> tuple[int, ...]:
        """Which colour each seat plays (two players sit opposite: colours 0 and 2)."""
        table = {2: self.seat_colours_2, 3: self.seat_colours_3, 4: self.seat_colours_4}
        if players not in table:
            raise ValueError(f"Mensch ärgere Dich nicht needs 2..4 players, got {players}")
        return table[players]

    @staticmethod
    def field_name(colour: int, position: int, house_index: int = 0) -> str:
        """The field a piece of `colour` at seat-relative `position` stands on."""
        if position == -1:
            return f"h{colour}{house_index}"
        if 0 <= position <= 39:
            return f"t{(10 * colour + position) % 40}"
        if 40 <= position <= 43:
            return f"g{colour}{position - 40}"
        raise ValueError(f"a Mensch position is -1..43, got {position}")

    @property
    def dice_area(self) -> Rect:
        """The free corner between the bottom-right house and the track."""
        lo = self.margin + 7.0 * self.cell
        hi = self.margin + 9.0 * self.cell - 2.0
        return (lo, lo, hi, hi)


def _rotate(col: int, row: int, quarters: int) -> tuple[int, int]:
    """Rotate a grid cell clockwise about the board's centre by `quarters` × 90°."""
    for _ in range(quarters % 4):
        col, row = 10 - row, col
    return col, row


@dataclass(frozen=True, slots=True)
class MarkerGeometry:
    """ArUco markers (DICT_4X4_50) just outside the board's corners, ids 0..3 clockwise."""

    size: float = 40.0
    gap: float = 10.0

    def corners(self, width: float, height: float) -> dict[int, tuple[Point, ...]]:
        """Each marker's four corners in board mm, in ArUco's order (clockwise from top-left)."""
        s, g = self.size, self.gap
        tops = {0: (-g - s, -g - s), 1: (width + g, -g - s), 2: (width + g, height + g),
                3: (-g - s, height + g)}
        return {i: ((x, y), (x + s, y), (x + s, y + s), (x, y + s)) for i, (x, y) in tops.items()}


@dataclass(frozen=True, slots=True)
class TableGeometry:
    backgammon: BackgammonGeometry
    maedn: MaednGeometry
    markers: MarkerGeometry

    def board_size(self, game: str) -> tuple[float, float]:
        """Outer (width, height) of the game's board in mm."""
        board = self.board(game)
        return board.width, board.height

    def board(self, game: str) -> BackgammonGeometry | MaednGeometry:
        if game == "backgammon":
            return self.backgammon
        if game == "maedn":
            return self.maedn
        raise ValueError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")


def load_geometry(path: Path | str | None = None) -> TableGeometry:
    """Read a geometry TOML (default: the Hofer table); unknown or wrong keys name key and file."""
    if path is None:
        text = resources.files("vision").joinpath("boards", "hofer.toml").read_text("utf-8")
        source = "vision/boards/hofer.toml"
    else:
        source = str(path)
        try:
            text = Path(path).read_text("utf-8")
        except OSError as exc:
            raise GeometryError(f"{source}: cannot read geometry file: {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GeometryError(f"{source}: not valid TOML: {exc}") from exc
    sections: dict[str, type] = {"backgammon": BackgammonGeometry, "maedn": MaednGeometry,
                                 "markers": MarkerGeometry}
    unknown = set(data) - set(sections)
    if unknown:
        raise GeometryError(f"{source}: unknown section(s) {sorted(unknown)}")
    built = {name: _build(cls, data.get(name, {}), source, name) for name, cls in sections.items()}
    geometry = TableGeometry(**built)
    _check(geometry, source)
    log.debug("geometry from %s: backgammon %.0f×%.0f mm, maedn %.0f mm", source,
              geometry.backgammon.width, geometry.backgammon.height, geometry.maedn.width)
    return geometry


#: Sizes that may be 0: a board without a bar, without a frame or without trays.
MAY_BE_ZERO = {"bar_width", "frame", "tray_width", "tray_gap"}
#: Keys that take one of a few words.
CHOICES = {"trays": TRAY_SIDES, "off_white": TRAY_PLACES, "off_black": TRAY_PLACES,
           "white_home": HOME_SIDES}


def _build(cls: type, values: dict[str, Any], source: str, section: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise GeometryError(f"{source}: unknown key [{section}].{key}")
        default = known[key].default
        if isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
                raise GeometryError(f"{source}: [{section}].{key} must be a list of integers")
            kwargs[key] = tuple(value)
            continue
        if isinstance(default, str):
            if value not in CHOICES[key]:
                words = ", ".join(f'"{c}"' for c in CHOICES[key])
                raise GeometryError(f"{source}: [{section}].{key} must be one of {words}, "
                                    f"got {value!r}")
            kwargs[key] = value
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GeometryError(f"{source}: [{section}].{key} must be a number, got {value!r}")
        if not math.isfinite(value) or value < 0 or (value == 0 and key not in MAY_BE_ZERO):
            least = "0 or more" if key in MAY_BE_ZERO else "positive"
            raise GeometryError(f"{source}: [{section}].{key} must be {least}, got {value}")
        kwargs[key] = float(value)
    return cls(**kwargs)


def _check(geometry: TableGeometry, source: str) -> None:
    """Sizes that cannot fit together are errors too, named like the keys."""
    bg, ma = geometry.backgammon, geometry.maedn
    if bg.stack_length < bg.checker_diameter or bg.stack_length > bg.point_length:
        raise GeometryError(f"{source}: [backgammon].stack_length must lie between "
                            "checker_diameter and point_length")
    if bg.checker_diameter > bg.point_width * 1.05:
        raise GeometryError(f"{source}: [backgammon].checker_diameter "
                            f"{bg.checker_diameter:g} is wider than a point "
                            f"(point_width {bg.point_width:g})")
    if bg.trays != "none":
        if bg.tray_width < bg.checker_thickness:
            raise GeometryError(f"{source}: [backgammon].tray_width must be given for trays "
                                f"\"{bg.trays}\"")
        places = bg.tray_rects()
        for key in ("off_white", "off_black"):
            if getattr(bg, key) not in places:
                raise GeometryError(f"{source}: [backgammon].{key} is \"{getattr(bg, key)}\", "
                                    f"but trays = \"{bg.trays}\" has only "
                                    f"{', '.join(places)}")
        if bg.off_white == bg.off_black:
            raise GeometryError(f"{source}: [backgammon].off_white and off_black name the same "
                                "tray compartment")
    if 2 * (bg.frame + bg.stack_length) >= bg.height:
        raise GeometryError(f"{source}: [backgammon].height leaves no room between the stacks")
    if ma.field_diameter >= ma.cell or ma.piece_diameter > ma.field_diameter:
        raise GeometryError(f"{source}: [maedn].field_diameter must be below cell and at least "
                            "piece_diameter")
    for players in (2, 3, 4):
        colours = getattr(ma, f"seat_colours_{players}")
        if len(colours) != players or len(set(colours)) != players or \
                not all(0 <= c <= 3 for c in colours):
            raise GeometryError(f"{source}: [maedn].seat_colours_{players} must list {players} "
                                "different colours 0..3")
