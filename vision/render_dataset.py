"""Random game states and labelled folders of rendered frames (`spieltisch render`), and the
score of the frame reader on such a folder.

`labels.json` has the format of the shared dice photos (`../shared/data/dice-topdown`): a list of
`{"image": "images/x.jpg", "split": ..., "dice": [{"value", "box"}]}`, so `spieltisch vision
eval DIR` reads it. Each die also says `"cocked"`; each entry adds the truth behind the frame:
`"game"`, `"board"` (the referee's board as JSON), `"blocked"` (a hand or shadow over the board)
and `"seed"`, and `"die_px"`: a die's width in pixels, which the camera's calibration would tell
the table (`vision eval` reads each image at that size unless `--die-size` is given), and
`"nadir_px"` and `"camera_height_mm"`: where the lens looks straight down and how high it hangs,
so `vision eval` knows how much side face a flat die shows there (`vision.parallax`).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision.calibration import STANDARD_BACKGAMMON, maedn_start
from vision.geometry import DIE_SIZE_MM, GAMES, MaednGeometry, load_geometry
from vision.render_board import HOFER, PALETTES, Palette
from vision.renderer import Camera, Scene, render

log = logging.getLogger(__name__)


def random_backgammon(rng: np.random.Generator) -> BackgammonBoard:
    """15 checkers of each colour spread over points, bar and trays (one colour per point)."""
    points = [0] * 24
    extra = {"bar_white": 0, "bar_black": 0, "off_white": 0, "off_black": 0}
    for sign, colour in ((1, "white"), (-1, "black")):
        left = 15
        off = int(rng.integers(0, 16)) if rng.random() < 0.3 else 0
        bar = int(rng.integers(0, 3)) if rng.random() < 0.3 else 0
        bar = min(bar, left - off)
        extra[f"off_{colour}"], extra[f"bar_{colour}"] = off, bar
        left -= off + bar
        free = [i for i in range(24) if points[i] == 0]
        while left:
            i = int(rng.choice(free))
            n = int(rng.integers(1, left + 1)) if rng.random() < 0.15 else \
                int(rng.integers(1, min(left, 5) + 1))
            points[i] = sign * n
            free.remove(i)
            left -= n
    return BackgammonBoard(tuple(points), **extra)


def random_maedn(rng: np.random.Generator, players: int = 2) -> MaednBoard:
    """Four pieces per seat, never two on one field (house, track and goal mixed)."""
    geo = MaednGeometry()
    colours = geo.seat_colours(players)
    taken: set[str] = set()
    seats = []
    for colour in colours:
        mine: list[int] = []
        for _ in range(4):
            while True:
                roll = rng.random()
                pos = -1 if roll < 0.3 else (int(rng.integers(40, 44)) if roll < 0.45
                                             else int(rng.integers(0, 40)))
                name = geo.field_name(colour, pos, sum(p == -1 for p in mine))
                if pos == -1 or name not in taken:
                    break
            if pos != -1:
                taken.add(name)
            mine.append(pos)
        seats.append(tuple(sorted(mine)))
    return MaednBoard(tuple(seats))


def board_json(board: BackgammonBoard | MaednBoard) -> dict:
    """The board as plain JSON (tuples become lists)."""
    return json.loads(json.dumps(asdict(board)))


def random_scene(rng: np.random.Generator, game: str, players: int = 2, hand: float = 0.0,
                 cocked: float = 0.0, palette: Palette = HOFER) -> Scene:
    """A random position with dice; `hand` and `cocked` are the chances of a hand or a
    cocked die."""
    board = random_backgammon(rng) if game == "backgammon" else random_maedn(rng, players)
    count = 2 if game == "backgammon" else 1
    dice = tuple(int(v) for v in rng.integers(1, 7, count))
    tilted = tuple(bool(rng.random() < cocked) for _ in dice)
    return Scene(board, dice=dice, cocked=tilted, hand=bool(rng.random() < hand),
                 palette=palette)


def write_dataset(outdir: Path | str, game: str, count: int, seed: int, players: int = 2,
                  hand: float = 0.1, cocked: float = 0.1, test_share: float = 0.2,
                  size: tuple[int, int] = (1280, 720), palette: str = "hofer") -> Path:
    """Render `count` frames with one fixed camera into `outdir/images` plus `labels.json`.

    Frame 0 shows the start position without a hand, for `spieltisch calibrate`.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    if palette not in PALETTES:
        raise ValueError(f"unknown palette {palette!r}; expected one of {', '.join(PALETTES)}")
    colours = PALETTES[palette]
    out = Path(outdir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    start = STANDARD_BACKGAMMON if game == "backgammon" else maedn_start(players)
    first = Scene(start, dice=(3, 1) if game == "backgammon" else (6,), palette=colours)
    camera = Camera.random(np.random.default_rng([seed, 1]), load_geometry().board_size(game),
                           size)
    labels = []
    for i in range(count):
        scene = first if i == 0 else random_scene(rng, game, players, hand, cocked, colours)
        frame_seed = seed * 1_000_003 + i
        frame = render(scene, frame_seed, camera=camera, size=size)
        name = f"images/{game}_{seed}_{i:05d}.jpg"
        if not cv2.imwrite(str(out / name), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 95]):
            raise OSError(f"cannot write {out / name}")
        labels.append({
            "image": name,
            "split": "test" if rng.random() < test_share else "train",
            "dice": [{"value": d.value, "box": list(box), "cocked": d.cocked}
                     for d, box in zip(frame.dice, frame.dice_boxes, strict=True)],
            "game": game,
            "board": board_json(scene.board),
            "blocked": frame.blocked,
            "seed": frame_seed,
            "die_px": round(DIE_SIZE_MM * camera.px_per_mm, 2),
            "nadir_px": [round(v, 1) for v in camera.parallax().nadir],
            "camera_height_mm": round(camera.position[2], 1),
        })
    (out / "labels.json").write_text(json.dumps(labels, indent=1), "utf-8")
    log.info("wrote %d frames to %s", count, out)
    return out / "labels.json"



@dataclass(frozen=True, slots=True)
class BoardScore:
    """How the frame reader did on a labelled folder (frame 0 is used for calibration)."""

    frames: int
    clear: int
    clear_right: int
    occluded: int
    occluded_blocked: int
    wrong: int  # frames read as a board that is not the true one (clear or occluded)

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def board_from_json(data: dict) -> BackgammonBoard | MaednBoard:
    """The inverse of `board_json` (a `"board"` entry of labels.json)."""
    if "pieces" in data:
        return MaednBoard(tuple(tuple(int(p) for p in seat) for seat in data["pieces"]))
    return BackgammonBoard(tuple(int(p) for p in data["points"]),
                           **{k: int(v) for k, v in data.items() if k != "points"})


def score_boards(folder: Path | str) -> BoardScore:
    """Calibrate on frame 0 of a folder written by `write_dataset`, read every other frame and
    compare with the truth in labels.json (dice are scored by `spieltisch vision eval`)."""
    from vision.calibrate import calibrate
    from vision.frame_reader import FrameReader

    root = Path(folder)
    labels = json.loads((root / "labels.json").read_text("utf-8"))
    images = [cv2.imread(str(root / entry["image"]), cv2.IMREAD_COLOR) for entry in labels]
    missing = [entry["image"] for entry, image in zip(labels, images, strict=True)
               if image is None]
    if missing:
        raise ValueError(f"{root}: cannot read {', '.join(missing[:3])}")
    start = board_from_json(labels[0]["board"])
    players = len(start.pieces) if isinstance(start, MaednBoard) else 2
    calib = calibrate(images[0], labels[0]["game"], start=start, players=players)
    reader = FrameReader(calib, players=players, dice_reader=None)
    counts = {"clear": 0, "clear_right": 0, "occluded": 0, "occluded_blocked": 0, "wrong": 0}
    for entry, image in zip(labels[1:], images[1:], strict=True):
        truth = board_from_json(entry["board"])
        obs = reader.read(image)
        kind = "occluded" if entry["blocked"] else "clear"
        counts[kind] += 1
        if obs.board is not None and obs.board != truth:
            counts["wrong"] += 1
        elif kind == "clear" and obs.board == truth:
            counts["clear_right"] += 1
        elif kind == "occluded" and obs.blocked:
            counts["occluded_blocked"] += 1
    return BoardScore(frames=len(labels) - 1, **counts)
