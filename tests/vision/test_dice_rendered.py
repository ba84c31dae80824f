"""The dice reader on frames from the project's renderer: flat dice read, cocked dice flagged.

The renderer draws dice of several colours at the table camera's scale (about 15 px wide, far
smaller than in the photos) as cubes, with the side faces the camera sees, and tilts some onto an
edge; the reader is told each camera's parallax as a calibration would tell it. These frames use
seeds that the training tool never renders (it uses `seed * 100_003 + i` with small i).
"""

from __future__ import annotations

import dataclasses
import json
import math

import cv2
import numpy as np
import pytest

from controller.words.events import BackgammonBoard
from tests.cli import spieltisch
from tests.vision.dice_requirements import needs_model
from vision import dice_model as dm
from vision import renderer
from vision.dice import DiceReader
from vision.dice_eval import LabelledDie, evaluate, load_labels, score_image
from vision.die_outline import OUTLINE_LEAK, OUTLINE_MAX_LONG, body_outline
from vision.geometry import load_geometry
from vision.markers import marker_detector
from vision.parallax import Parallax
from vision.render_board import DIE_SIZE_MM, PALETTES
from vision.render_dataset import random_scene, write_dataset

pytestmark = needs_model

FRAMES = 40  # per board
#: The renderer's white and ivory dice (`render_board.DIE_BODIES`).
LIGHT_BODIES = (0, 3)


@pytest.fixture(scope="module", params=["backgammon", "maedn"])
def outcomes(request: pytest.FixtureRequest) -> dict[str, int]:
    """Counts over FRAMES rendered frames of one board, 40 % of dice cocked."""
    game = request.param
    rng = np.random.default_rng(2024)
    counts = dict.fromkeys(
        ("flat", "flat_right", "cocked", "cocked_flagged", "cocked_given_value", "false"), 0
    )
    for i in range(FRAMES):
        scene = random_scene(rng, game, cocked=0.4)
        frame = renderer.render(scene, 900_000 + i)
        reader = DiceReader(die_size_px=DIE_SIZE_MM * frame.camera.px_per_mm,
                            parallax=frame.camera.parallax())
        got = [(r.value, r.box) for r in reader.read(frame.image)]
        labels = [
            LabelledDie(d.value, box, d.cocked)
            for d, box in zip(frame.dice, frame.dice_boxes, strict=True)
        ]
        counts["false"] += score_image(got, labels).false_dice
        for label in labels:
            one = score_image(got, [label])
            if label.cocked:
                counts["cocked"] += 1
                counts["cocked_flagged"] += one.right
                counts["cocked_given_value"] += one.wrong_value
            else:
                counts["flat"] += 1
                counts["flat_right"] += one.right
    return {"game": game, **counts}


# Measured with these seeds, dice drawn as cubes (classifier step 6): flat dice right 52/52
# (backgammon) and 24/24 (Mensch); cocked dice flagged 25/28 on the backgammon felt and 15/16 on
# the Mensch board (22/28 and 6/16 for the classifier before its cocked class, with the same
# parallax; 14/16 before two faces nearer than a die were taken for one die, 2026-12-01); false
# dice 1 and 0 in 40 frames (2 and 1 before that, 8 and 3 before the cocked class: a cocked
# die's second face taken for a second die). With the table camera's own classifier
# (2026-12-01, evening): flat 52/52 and 24/24, cocked flagged 28/28 and 14/16, false 1 and 0.
# With the cocked-die judge (2026-12-02): flat 52/52 and 24/24, cocked flagged 28/28 and
# 16/16, false 1 and 0 (0 and 0 with step table 7 of the table classifier); the bounds leave
# one die of slack for another machine's arithmetic.
COCKED_FLAGGED = {"backgammon": 0.95, "maedn": 0.93}


def test_rendered_flat_dice_are_read(outcomes) -> None:
    assert outcomes["flat"] >= 20
    assert outcomes["flat_right"] >= 0.9 * outcomes["flat"], outcomes


def test_rendered_cocked_dice_are_flagged_not_read(outcomes) -> None:
    assert outcomes["cocked"] >= 10
    share = COCKED_FLAGGED[outcomes["game"]]
    assert outcomes["cocked_flagged"] >= share * outcomes["cocked"], outcomes


def test_rendered_frames_give_few_false_dice(outcomes) -> None:
    assert outcomes["false"] <= 2, outcomes


def test_light_dice_on_the_light_mensch_board_are_flagged_when_cocked() -> None:
    """White and ivory dice on the Mensch board's cream: their body colour runs into the board,
    so no body outline tells a cocked one from a flat one. Measured on these frames with the
    cocked-die judge: 14 of 14 cocked flagged, 0 of 15 flat (with the silhouette rule and the
    classifier's cocked class before it: 10 of 14, 0 of 15; the classifier before its cocked
    class flagged 0 of these 14 once the side faces of the parallax were taken away)."""
    rng = np.random.default_rng(4242)
    flagged = {True: 0, False: 0}
    seen = {True: 0, False: 0}
    for i in range(60):
        scene = random_scene(rng, "maedn", cocked=0.5)
        frame = renderer.render(scene, 950_000 + i)
        size = DIE_SIZE_MM * frame.camera.px_per_mm
        readings = DiceReader(die_size_px=size, parallax=frame.camera.parallax()).read(frame.image)
        for die, box in zip(frame.dice, frame.dice_boxes, strict=True):
            if die.body not in LIGHT_BODIES:
                continue
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            seen[die.cocked] += 1
            flagged[die.cocked] += any(
                r.cocked and r.box[0] <= cx <= r.box[2] and r.box[1] <= cy <= r.box[3]
                for r in readings
            )
    assert seen[True] >= 10 and seen[False] >= 10, seen
    assert flagged[True] >= 0.9 * seen[True], (flagged, seen)
    assert flagged[False] <= 0.1 * seen[False], (flagged, seen)


def test_a_light_die_touching_a_light_points_tip_is_read_not_called_cocked() -> None:
    """A white die lying against the tip of a cream point (the backgammon dice area reaches
    between the points' tips): its body colour runs on into the point, an outline longer than
    a die on its edge can show (`OUTLINE_MAX_LONG`). The outline rule used to call it cocked."""
    scene = renderer.Scene(BackgammonBoard((0,) * 24), dice=(2,))
    frame = renderer.render(scene, 990_235)
    die, box = frame.dice[0], frame.dice_boxes[0]
    tip = load_geometry().board("backgammon").point_triangle(20)[2]
    assert die.body in LIGHT_BODIES and not die.cocked
    assert math.dist(die.centre, tip) < 0.7 * DIE_SIZE_MM, (die.centre, tip)
    reader = DiceReader(die_size_px=DIE_SIZE_MM * frame.camera.px_per_mm,
                        parallax=frame.camera.parallax())
    x0, y0, x1, y1 = box
    c = next(c for c in reader.detect(frame.image) if x0 <= c.cx <= x1 and y0 <= c.cy <= y1)
    ex, ey = reader.parallax.shift(c.cx, c.cy)
    size = reader.die_size_px
    long, _ = body_outline(frame.image, c.cx, c.cy, size, (ex / size, ey / size))
    assert OUTLINE_MAX_LONG <= long < OUTLINE_LEAK, long
    assert [(r.value, r.cocked) for r in reader.read(frame.image)] == [(2, False)]


def _pressed_together(seed: int, count: int) -> list[tuple[renderer.RenderedFrame, DiceReader]]:
    """`count` backgammon frames whose two dice lie pressed face to face (one colour, as a
    pair of dice is), each with a reader told its camera."""
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(count):
        scene = dataclasses.replace(random_scene(rng, "backgammon"), touching=True)
        frame = renderer.render(scene, 5000 + i)
        frames.append((frame, DiceReader(die_size_px=DIE_SIZE_MM * frame.camera.px_per_mm,
                                         parallax=frame.camera.parallax())))
    return frames


def test_dice_pressed_face_to_face_are_read_each_by_its_own_outline() -> None:
    """Two dice of one colour pressed together are one region of their body colour, long like
    a die on its edge: a 5 and a 2 (frame 13 of these), the 5 was called cocked. Each die's
    outline now ends halfway to the other's centre."""
    frame, reader = _pressed_together(11, 14)[13]
    labels = [LabelledDie(d.value, box, False)
              for d, box in zip(frame.dice, frame.dice_boxes, strict=True)]
    got = [(r.value, r.box) for r in reader.read(frame.image)]
    assert score_image(got, labels).right == 2, (got, labels)


def test_dice_pressed_face_to_face_are_read_or_asked_for_again_never_misread() -> None:
    """40 frames of two flat dice pressed together: measured 79 of 80 read right with the
    cocked-die judge and the table classifier taught no cocked class (step table 7; 74 with
    the judge and the classifier before), 73 before the judge (74 before
    the table classifier's step table 3, 70 before each die's outline ended halfway to the
    other's, 64 before the faces of one die were told from two dice by 0.8 rather than 0.9
    die sizes); the others are called cocked."""
    right = misread = 0
    for frame, reader in _pressed_together(11, 40):
        labels = [LabelledDie(d.value, box) for d, box in
                  zip(frame.dice, frame.dice_boxes, strict=True)]
        got = [(r.value, r.box) for r in reader.read(frame.image)]
        right += score_image(got, labels).right
        valued = score_image([(v, box) for v, box in got if v is not None], labels)
        misread += valued.wrong_value + valued.false_dice
    assert misread == 0
    assert right >= 76, right


def test_tall_checker_stacks_are_rarely_taken_for_dice() -> None:
    """Fifteen checkers on one point overlap into a column whose rims look like a 4 to the
    classifier; the detector finds such columns only weakly (0.17-0.40, dice 0.45 and up).
    Measured on these 30 frames (two 15-stacks each, whole frames read): 14 false dice with
    the detector threshold 0.15, 5 with 0.3; every die read right either way."""
    rng = np.random.default_rng(77)
    false = right = dice = 0
    for i in range(30):
        points = [0] * 24
        white, black = rng.choice(24, 2, replace=False)
        points[white], points[black] = 15, -15
        values = tuple(int(v) for v in rng.integers(1, 7, 2))
        frame = renderer.render(renderer.Scene(BackgammonBoard(tuple(points)), dice=values),
                                1_300_000 + i)
        reader = DiceReader(die_size_px=DIE_SIZE_MM * frame.camera.px_per_mm,
                            parallax=frame.camera.parallax())
        labels = [LabelledDie(d.value, box, d.cocked)
                  for d, box in zip(frame.dice, frame.dice_boxes, strict=True)]
        score = score_image([(r.value, r.box) for r in reader.read(frame.image)], labels)
        false += score.false_dice
        right += score.right
        dice += len(labels)
    assert right >= 0.95 * dice, (right, dice)
    assert false <= 7, false


def test_eval_reads_the_renderers_folder_at_its_own_die_size(tmp_path) -> None:
    """`spieltisch vision eval DIR` on the renderer's output needs no --die-size: each entry
    says how wide its dice are (at the photos' 40 px the 16 px dice gave 17 false dice per
    image)."""
    write_dataset(tmp_path, "maedn", 12, seed=33, players=4, cocked=0.0, hand=0.0)
    result = spieltisch("vision", "eval", str(tmp_path), "--json")
    report = json.loads(result.stdout)
    assert report["dice"] == 12
    assert report["right"] >= 11 and report["false_dice"] == 0, report


def test_rendered_dataset_folder_is_read_by_eval(tmp_path) -> None:
    """The renderer's dataset writer and `vision eval` agree on the labels.json format."""
    write_dataset(tmp_path, "backgammon", 4, seed=31, cocked=0.0, hand=0.0, test_share=0.0)
    labels = json.loads((tmp_path / "labels.json").read_text())
    images = load_labels(tmp_path, "train")
    assert len(images) == 4
    widths = [d["box"][2] - d["box"][0] for entry in labels for d in entry["dice"]]
    reader = DiceReader(die_size_px=float(np.median(widths)))
    report = evaluate(lambda im: [(d.value, d.box) for d in reader.read(im)], images)
    assert report.dice == sum(len(entry["dice"]) for entry in labels)
    assert report.right >= report.dice - 1, report.as_dict()


def _folder_frame(seed: int, index: int, game: str = "maedn", cocked: float = 0.3,
                  ) -> tuple[np.ndarray, renderer.RenderedFrame, DiceReader]:
    """Frame `index` of `spieltisch render --game GAME --seed SEED --cocked COCKED --players 4
    --hand 0`, as stored (JPEG) and read by `vision eval`, whose labels round the camera (nadir
    to 0.1 px, the die to 0.01 px)."""
    rng = np.random.default_rng(seed)
    camera = renderer.Camera.random(np.random.default_rng([seed, 1]),
                                    load_geometry().board_size(game), (1280, 720))
    rng.random()  # frame 0 (the start position) only draws its split
    for _ in range(index):  # frames 1..index each draw a scene, then a split
        scene = random_scene(rng, game, 4, 0.0, cocked, PALETTES["hofer"])
        rng.random()
    frame = renderer.render(scene, seed * 1_000_003 + index, camera=camera)
    ok, jpeg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    nadir = tuple(round(v, 1) for v in camera.parallax().nadir)
    reader = DiceReader(die_size_px=round(DIE_SIZE_MM * camera.px_per_mm, 2),
                        parallax=Parallax.of_camera(nadir, round(camera.position[2], 1)))
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR), frame, reader


def test_the_two_faces_of_a_cocked_die_are_not_two_dice() -> None:
    """A cocked die on the Mensch board (seed 82, frame 25): the detector finds its top face
    (read as a 5) and, hidden under that box, its side face (read as a 1 with 0.46). A hidden
    candidate becomes a die of its own only when its value is read surely (`split_duplicates`,
    `DiceReader`); one reading was two dice before that condition. (With the exact camera the
    side face's crop reads as cocked.)"""
    image, frame, reader = _folder_frame(82, 25)
    (die,), (box,) = frame.dice, frame.dice_boxes
    assert die.cocked, die
    got = [(r.value, r.box) for r in reader.read(image)]
    score = score_image(got, [LabelledDie(die.value, box, True)])
    assert len(got) == 1 and score.false_dice == 0, got


def test_two_faces_nearer_than_a_die_are_one_cocked_die() -> None:
    """A cocked 6 on the Mensch board (seed 82, frame 54) shows its top face and a side face,
    0.69 die sizes apart: the detector finds both, the classifier reads them as a 6 and a 2,
    neither looking cocked, and each face's own outline is a flat face's. Two flat dice lie
    about a die apart, so with the table's die size known they are one die on its edge
    (`DiceReader._two_faces`); before, they were two dice, one of them false."""
    image, frame, reader = _folder_frame(82, 54)
    (die,), (box,) = frame.dice, frame.dice_boxes
    assert die.cocked, die
    readings = reader.read(image)
    assert [r.cocked for r in readings] == [True], readings
    score = score_image([(r.value, r.box) for r in readings], [LabelledDie(die.value, box, True)])
    assert score.right == 1 and score.false_dice == 0


def test_dice_a_die_apart_are_two_dice_and_nearer_one_cocked_die() -> None:
    """The rule behind the test above, on its own: readings of the detector's candidates a die
    apart (flat dice side by side) are both kept; 0.75 die sizes apart, the weaker is the
    stronger's second face and the stronger is cocked — when the classifier finds the weaker
    surely a die; else it is the same die found again and changes nothing. Without a
    calibration (photos of dice of many sizes read at one nominal size) nothing is merged."""
    reader = DiceReader(die_size_px=20.0, parallax=Parallax.of_camera((640.0, 360.0), 700.0))
    c = [dm.Candidate(100.0, 100.0, 20.0, 20.0, 0.9), dm.Candidate(120.0, 100.0, 20.0, 20.0, 0.8),
         dm.Candidate(300.0, 100.0, 20.0, 20.0, 0.9), dm.Candidate(315.0, 100.0, 20.0, 20.0, 0.8)]
    chosen = [(i, (0, 0, 1, 1)) for i in range(4)]
    sure = np.full(4, 0.95)
    kept, cocked = reader._two_faces(c, chosen, sure)
    assert [i for i, _ in kept] == [0, 1, 2] and cocked == {2}
    unsure = np.array([0.95, 0.95, 0.95, 0.6])
    kept, cocked = reader._two_faces(c, chosen, unsure)
    assert [i for i, _ in kept] == [0, 1, 2] and cocked == set()
    photos = DiceReader(die_size_px=20.0)
    assert photos._two_faces(c, chosen, sure) == (chosen, set())


def test_a_small_detection_on_a_flat_dies_corner_is_not_its_other_face() -> None:
    """A flat 6 on the Mensch board (seed 76, frame 2, a clear set): beside the die the
    detector also finds a box half a die wide on its corner (its side face and shadow), 0.7 die
    sizes from its centre, which the classifier finds a die with only 0.6. Taken for the
    other face of a die on its edge, it made the 6 a cocked die."""
    image, frame, reader = _folder_frame(76, 2, cocked=0.0)
    labels = [LabelledDie(d.value, box, d.cocked)
              for d, box in zip(frame.dice, frame.dice_boxes, strict=True)]
    assert [d.value for d in labels] == [6] and not labels[0].cocked, labels
    got = [(r.value, r.box) for r in reader.read(image)]
    assert score_image(got, labels).all_right, (got, labels)


@pytest.mark.parametrize(("seed", "index", "game"), [(76, 153, "maedn"), (70, 207, "backgammon")])
def test_a_weak_cocked_looking_candidate_found_again_leaves_a_flat_die_flat(
        seed: int, index: int, game: str) -> None:
    """Flat dice of clear sets (`--cocked 0`): inside each die's box the detector finds the die
    again, a crop that the classifier finds more likely cocked than a value but a die only
    with 0.72 (seed 76) and 0.76 (seed 70). It made the die cocked; a die's side face is found
    surely (0.9 and more on the cube renders), a weaker crop is a part of the die's edge
    (`OTHER_FACE_P_DIE`)."""
    image, frame, reader = _folder_frame(seed, index, game, cocked=0.0)
    labels = [LabelledDie(d.value, box, d.cocked)
              for d, box in zip(frame.dice, frame.dice_boxes, strict=True)]
    assert labels and not any(d.cocked for d in labels), labels
    got = [(r.value, r.box) for r in reader.read(image)]
    assert score_image(got, labels).all_right, (got, labels)


@pytest.mark.parametrize(("game", "index"), [("maedn", 136), ("maedn", 238), ("backgammon", 249)])
def test_the_table_classifier_reads_blurred_fours_the_photo_classifier_did_not(
        game: str, index: int) -> None:
    """Flat 4s of the clear set `--seed 79 --cocked 0` (the set the table classifier was
    chosen on, docs/vision-dice.md), blurred at 13-14 px: the classifier trained on the photos
    called the first cocked and read the others as 6s; the table camera's own classifier
    (`dice_classifier_table.onnx`) reads each as a 4."""
    image, frame, reader = _folder_frame(79, index, game, cocked=0.0)
    assert reader.die_size_px < dm.TABLE_DIE_PX
    labels = [LabelledDie(d.value, box, d.cocked)
              for d, box in zip(frame.dice, frame.dice_boxes, strict=True)]
    assert any(d.value == 4 for d in labels), labels
    got = [(r.value, r.box) for r in reader.read(image)]
    assert score_image(got, labels).all_right, (got, labels)


@pytest.mark.parametrize(("seed", "index"), [(78, 30), (71, 99), (71, 124), (71, 143)])
def test_fours_blurred_into_two_bars_are_read_as_fours(seed: int, index: int) -> None:
    """Flat 4s of the clear backgammon sets (`--cocked 0`; seed 78 is the issue's), 13–15 px
    wide and blurred along their pip columns into two bars like a 6's: the table classifier
    read each as a 6 (0.50–0.68); the 4-or-6 judge (`vision.pair_judge`), which sees the
    top face closer, reads them as 4s."""
    _assert_read_entirely_right(seed, index, "backgammon", cocked=0.0)


@pytest.mark.parametrize(("seed", "index", "game"),
                         [(60, 72, "maedn"), (79, 29, "backgammon"), (79, 134, "backgammon")])
def test_twos_blurred_along_their_diagonal_are_read_as_twos(seed: int, index: int,
                                                            game: str) -> None:
    """Flat 2s of the clear sets, blurred along their diagonal so that the smear crosses the
    face's centre where a 3 has its middle pip: the table classifier read each as a 3
    (0.49–0.59); the 2-or-3 judge (`vision.pair_judge`) reads them as 2s."""
    _assert_read_entirely_right(seed, index, game, cocked=0.0)


#: Cocked dice of the cube renders (`spieltisch render --count 61 --seed S --hand 0 --cocked 0.3
#: --players 4`) given a value before step table 3: (seed, frame, game).
_COCKED_SEEN_BY_ONE_FACE = ((81, 46, "backgammon"), (82, 25, "maedn"), (84, 28, "maedn"),
                            (85, 33, "maedn"))


def test_cocked_dice_the_detector_finds_by_one_face_are_flagged_not_read() -> None:
    """The detector mostly finds one face of a cocked die, a quarter die off its centre; the
    table classifier learnt cocked dice from crops around the whole die and read such a face
    as its value. Step table 3 also cuts its cocked crops where the detector finds cocked
    dice: each of these four is now flagged, with no reading giving it a value (with the
    classifier before it, all four were given a value, checked)."""
    for seed, index, game in _COCKED_SEEN_BY_ONE_FACE:
        image, frame, reader = _folder_frame(seed, index, game)
        readings = [(r.value, r.box) for r in reader.read(image)]
        cocked = [LabelledDie(d.value, box, True) for d, box in
                  zip(frame.dice, frame.dice_boxes, strict=True) if d.cocked]
        assert cocked, (seed, index)
        for die in cocked:
            score = score_image(readings, [die])
            assert score.right == 1 and score.wrong_value == 0, (seed, index, die, readings)


def test_the_boards_corner_markers_are_not_dice() -> None:
    """An ArUco marker beside the backgammon board (seed 78, frame 1 of a clear set) was read
    as a cocked die: the detector finds die-sized parts of the corner markers on nearly every
    frame (2774 times on 1004 frames of seeds 77 and 79), the classifier rejects almost all.
    Read as `vision eval` reads a whole frame, no die is reported on a marker (measured as the
    reader measures it) and the frame's two dice are its only dice."""
    image, frame, reader = _folder_frame(78, 1, "backgammon", cocked=0.0)
    corners, ids, _ = marker_detector().detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    board_markers = [q.reshape(4, 2) for q, i in zip(corners, ids.ravel(), strict=True)
                     if i <= 3]
    assert len(board_markers) == 4
    got = reader.read(image)
    on_markers = [r.box for r in got
                  if any(cv2.pointPolygonTest(q, ((r.box[0] + r.box[2]) / 2,
                                                  (r.box[1] + r.box[3]) / 2), False) >= 0
                         for q in board_markers)]
    assert on_markers == []
    truth = [LabelledDie(d.value, box, d.cocked)
             for d, box in zip(frame.dice, frame.dice_boxes, strict=True)]
    assert score_image([(r.value, r.box) for r in got], truth).false_dice == 0, got


def test_only_a_marker_wider_than_a_die_drops_a_die_on_it() -> None:
    """OpenCV's default ArUco setting decodes a die showing a 5 as marker 17, a die wide (seed
    79, frame 234); the reader's setting decodes none of the 1506 dice of seeds 77 and 79, but
    a die must not vanish if one ever does: only a marker `MARKER_DIE_SIZES` die sizes wide is
    the board's. A real marker drawn a die wide on a frame is no reason to drop a die on it,
    the same marker drawn at the board's size (40 mm) is."""
    image, _, reader = _folder_frame(79, 234, "backgammon", cocked=0.0)
    die = round(reader.die_size_px)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for side, dropped in ((die, False), (round(40 / DIE_SIZE_MM * die), True)):
        marked = image.copy()
        x0, y0, quiet = 200, 300, max(3, side // 5)
        marked[y0 - quiet:y0 + side + quiet, x0 - quiet:x0 + side + quiet] = 245
        marked[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(
            dictionary, 17, side)[..., None]
        centre = (x0 + side // 2, y0 + side // 2)
        box = (centre[0] - die // 2, centre[1] - die // 2, centre[0] + die // 2,
               centre[1] + die // 2)
        assert reader._on_marker(marked, box) is dropped, side


def _assert_read_entirely_right(seed: int, index: int, game: str, cocked: float) -> None:
    """Frame `index` of a rendered set (see `_folder_frame`) holds dice (a cocked one when
    `cocked` > 0, none when 0) and is read entirely right: every value, every cocked die
    flagged, no false die."""
    image, frame, reader = _folder_frame(seed, index, game, cocked=cocked)
    labels = [LabelledDie(d.value, box, d.cocked)
              for d, box in zip(frame.dice, frame.dice_boxes, strict=True)]
    assert labels and any(d.cocked for d in labels) == (cocked > 0), labels
    got = [(r.value, r.box) for r in reader.read(image)]
    assert score_image(got, labels).all_right, (got, labels)


#: Flat dice of the clear sets (`--cocked 0`) that the rules before the cocked-die judge called
#: cocked (commit 5a6c5cd): by their body outline (seeds 71, 76, 77 frames 65 and 80, 79) or
#: the classifier's cocked class on a flat 1 (seed 77 frames 98 and 156).
_FLAT_CALLED_COCKED = ((71, 38), (76, 225), (77, 65), (77, 80), (79, 8), (77, 98), (77, 156))
#: Cocked dice of the cube renders (`--cocked 0.3`) that the same rules gave a value.
_COCKED_GIVEN_A_VALUE = ((80, 42, "backgammon"), (82, 2, "maedn"), (83, 31, "maedn"),
                         (86, 17, "backgammon"), (91, 8, "maedn"))


@pytest.mark.parametrize(("seed", "index"), _FLAT_CALLED_COCKED)
def test_flat_dice_the_outline_or_the_classifier_called_cocked_are_read(
        seed: int, index: int) -> None:
    """The judge (`vision.cocked_judge`) sees these backgammon dice whole, with the point's tip
    or the ragged edge of a blue die on green that lengthened their outline, and finds them
    flat; each was asked for again before it."""
    _assert_read_entirely_right(seed, index, "backgammon", cocked=0.0)


@pytest.mark.parametrize(("seed", "index", "game"), _COCKED_GIVEN_A_VALUE)
def test_cocked_dice_the_rules_gave_a_value_are_flagged(seed: int, index: int, game: str) -> None:
    """Cocked dice whose face the classifier read surely and whose outline looked flat: the
    judge finds them cocked, so the referee asks for the throw again instead of taking it."""
    _assert_read_entirely_right(seed, index, game, cocked=0.3)


@pytest.mark.parametrize("index", [22, 57, 120])
def test_a_flat_die_far_off_the_lens_is_not_cocked_by_its_boxs_aspect(index: int) -> None:
    """A low camera (seed 60: 527 mm) sees the dice area 0.43 die sizes of side face deep; the
    detector's box holds less of it than the labels, so its box less the lean came out 1.5-1.6
    times longer than wide and the aspect rule called these flat dice cocked. With the judge
    deciding, the aspect no longer does at the table."""
    _assert_read_entirely_right(60, index, "backgammon", cocked=0.0)


@pytest.mark.parametrize(("seed", "index", "game"), [(80, 22, "backgammon"), (82, 34, "maedn"),
                                                      (82, 55, "maedn"), (87, 2, "backgammon")])
def test_a_cocked_dies_other_face_is_not_a_second_die(seed: int, index: int, game: str) -> None:
    """Cube renders: beside each cocked die the detector also finds its other face, under
    a die size away, and the classifier read it as a value: a false die next to the cocked one.
    Readings that near a die the judge finds cocked are that die (`_one_cocked_die`)."""
    _assert_read_entirely_right(seed, index, game, cocked=0.3)
