"""Reading dice from a top-down photo or camera frame.

`DiceReader.read` finds dice with a small centre-heat-map detector and reads each one with a crop
classifier (see `vision.dice_model`); `read_dice` uses one default reader loaded on first use.
A die that is found but whose face cannot be read with confidence, whose box is far from square,
or whose body outline is elongated and longer than a die (a die leaning on another or on its
edge shows a side face beside the top face; for a lone die coloured like the board around it,
its silhouette against that board) is reported as *cocked*: `value=None, cocked=True`,
so the referee asks for a re-roll instead of guessing: a misread die accuses a correct player.
At the table (a calibrated camera) a network trained for it judges flat or cocked instead of
those rules (`vision.cocked_judge`), and others settle a blurred 4 or 6, 2 or 3
(`vision.pair_judge`).

A reader holds OpenCV DNN networks, which are not thread-safe: use one reader per thread.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import dice_model as dm
from vision.cocked_judge import JUDGE_FILE, CockedJudge
from vision.dice_model import DiceModelError as DiceModelError  # callers catch it from here
from vision.die_outline import (
    ALONE_DIE_SIZES,
    OUTLINE_LEAK,
    OUTLINE_MAX_LONG,
    OUTLINE_MAX_SHORT,
    OUTLINE_MIN_SHORT,
    SILHOUETTE_LONG,
    SILHOUETTE_MAX_SHORT,
    body_outline,
    silhouette,
)
from vision.markers import marker_detector, quad_side
from vision.pair_judge import PAIR_FILES, PairJudge
from vision.parallax import Parallax

log = logging.getLogger(__name__)


class DiceInputError(ValueError):
    """The image or mask handed to the reader cannot be read; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die: its value (None when cocked), box (x0, y0, x1, y1) in pixels and confidence."""

    value: int | None
    box: tuple[int, int, int, int]
    confidence: float
    cocked: bool

    def to_json(self) -> dict[str, object]:
        return {
            "value": self.value,
            "box": list(self.box),
            "confidence": round(self.confidence, 4),
            "cocked": self.cocked,
        }


class DiceReader:
    """Finds and reads the dice in BGR images; construct once, call `read` per frame.

    `die_size_px` is the expected die width in the images (the models were trained on ~40 px
    dice; other sizes are rescaled for the detector so that dice are `detector_die_px` wide
    there: 20 px by default, the middle of what it was trained on, 14–29 px); dice narrower
    than `dm.TABLE_DIE_PX` are read by the table camera's own classifier. Thresholds:
    `detect_threshold` on the detector's heat, `die_threshold` on the classifier's probability
    that a crop is a die, `read_threshold` on the probability of the best value (below it the
    die counts as cocked; so does a die the classifier finds more likely cocked than showing
    its best value), raised for the values in `value_thresholds` (value → probability: faces
    that blur into one another need more certainty), `max_aspect` on the box's long/short side
    ratio (above it, cocked).
    `outline_long` and `outline_aspect`: a die whose body outline (see `body_outline`) is longer
    than that many die sizes (but not beyond `OUTLINE_MAX_LONG`) AND that much longer than wide
    shows a side face, so it is cocked.
    `views` (1, 2, 4 or 8) averages the classifier over that many quarter-turns (8: and their
    mirror images) of each crop whose first view is unsure, i.e. whose most likely class has a
    probability below `sure`: a die's value does not change when it turns, and averaging
    steadies the crops that are hard, while the many easy crops cost one view only. A candidate
    whose centre lies in an accepted die's box shrunk by `duplicate_box` is that die again and
    dropped; outside it, it is a die of its own (dice leaning on each other overlap in the
    photo, so a neighbour's centre can lie near the corner of the other's box). `parallax`
    (the table camera's, from its calibration) says which side faces a flat die shows where:
    the classifier then sees the top face centred, and the aspect and outline checks judge
    the die without them. With a `parallax` the table camera's dice (narrower than
    `dm.TABLE_DIE_PX`) are judged flat or cocked by a network of their own instead of the
    classifier's cocked class, the two-faces rule, the box's aspect and the outline
    (`vision.cocked_judge`): cocked when its probability is at least `judge_threshold`; and
    a die of theirs the classifier reads as a 4 or a 6 (a 2 or a 3) with less than
    `pair_sure` is settled between the two by a network that sees its top face closer
    (`vision.pair_judge`): blur along a 4's pip columns smears it into a 6's two bars, and
    along a 2's diagonal into a 3's.
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        die_size_px: float = dm.REFERENCE_DIE_PX,
        detector_die_px: float = dm.REFERENCE_DIE_PX * dm.DETECTOR_SCALE,
        detect_threshold: float = 0.3,
        die_threshold: float = 0.5,
        read_threshold: float = 0.35,
        value_thresholds: Mapping[int, float] | None = None,
        max_aspect: float = 1.5,
        outline_long: float = 1.25,
        outline_aspect: float = 1.2,
        views: int = 8,
        sure: float = 0.9,
        duplicate_box: float = 0.8,
        parallax: Parallax | None = None,
        judge_threshold: float = 0.4,
        pair_sure: float = 0.97,
    ) -> None:
        if die_size_px <= 0:
            raise ValueError(f"die_size_px must be positive, got {die_size_px}")
        folder = Path(model_dir) if model_dir is not None else dm.MODEL_DIR
        self._detector = dm.load_net(folder / dm.DETECTOR_FILE.name)
        classifier_file = folder / (dm.TABLE_CLASSIFIER_FILE.name if die_size_px < dm.TABLE_DIE_PX
                                    else dm.CLASSIFIER_FILE.name)
        self._classifier = dm.load_net_with_outputs(
            classifier_file, (1, 3, dm.CROP_SIZE, dm.CROP_SIZE), dm.NUM_CLASSES,
            f"the reader needs {dm.NUM_CLASSES} classes (train it anew with "
            "tools/train_dice_model.py)")
        #: the table camera's dice are judged flat or cocked by a network; with a parallax only
        self._judge = (CockedJudge(folder / JUDGE_FILE.name) if die_size_px < dm.TABLE_DIE_PX
                       else None)
        #: ... and a 4 or a 6, a 2 or a 3 read unsurely is settled by a network of its own
        self._pair_judges = ([PairJudge(pair, folder / path.name)
                              for pair, path in PAIR_FILES.items()]
                             if die_size_px < dm.TABLE_DIE_PX else [])
        self.die_size_px = die_size_px
        if detector_die_px <= 0:
            raise ValueError(f"detector_die_px must be positive, got {detector_die_px}")
        self.scale = detector_die_px / die_size_px
        self.detect_threshold = detect_threshold
        self.die_threshold = die_threshold
        self.read_threshold = read_threshold
        self.value_thresholds = dict(value_thresholds or {})
        if not set(self.value_thresholds) <= set(range(1, 7)):
            raise ValueError(f"value_thresholds are for die values 1..6, got "
                             f"{sorted(self.value_thresholds)}")
        self.max_aspect = max_aspect
        self.outline_long = outline_long
        self.outline_aspect = outline_aspect
        if views not in VIEW_TURNS:
            raise ValueError(f"views must be one of {sorted(VIEW_TURNS)}, got {views}")
        self.views = views
        self.sure = sure
        if not 0.0 < duplicate_box <= 1.0:
            raise ValueError(f"duplicate_box must lie in (0, 1], got {duplicate_box}")
        self.duplicate_box = duplicate_box
        self.parallax = parallax
        if not 0.0 < judge_threshold < 1.0:
            raise ValueError(f"judge_threshold must lie in (0, 1), got {judge_threshold}")
        self.judge_threshold = judge_threshold
        if not 0.0 <= pair_sure <= 1.0:
            raise ValueError(f"pair_sure must lie in [0, 1], got {pair_sure}")
        self.pair_sure = pair_sure
        self._markers = marker_detector()

    def read(
        self, image_bgr: np.ndarray, mask: np.ndarray | DiceRegions | None = None
    ) -> list[DieReading]:
        """The dice in the image, highest confidence first.

        `mask` (same height and width, non-zero where dice may lie) drops dice whose centre
        falls outside it, e.g. outside the board's dice area; the detector only looks at its
        parts. For many frames of one camera pass `DiceRegions(mask)`, which finds them once.
        A whole frame of the table camera (`parallax` given, no mask) shows the board's corner
        markers too: a die found on one is part of the marker and dropped (see `_on_marker`).
        """
        image = _as_bgr(image_bgr)
        if mask is None:
            candidates, hidden = dm.split_duplicates(self._candidates(image))
        else:
            regions = mask if isinstance(mask, DiceRegions) else DiceRegions(np.asarray(mask))
            if regions.mask.shape[:2] != image.shape[:2]:
                raise DiceInputError(
                    f"mask is {regions.mask.shape[:2]}, image is {image.shape[:2]}: "
                    "sizes must match"
                )
            candidates, hidden = dm.split_duplicates(self._detect_in_regions(image, regions))
        if not candidates:
            return []
        found = candidates + hidden
        tops = [top_face(c.cx, c.cy, c.width, c.height, self.parallax) for c in found]
        crops = [dm.crop_die(image, x, y, dm.crop_side(w, h)) for x, y, w, h in tops]
        probs = self._settle_pairs(image, tops, self.classify(crops))
        readings = self._choose(image, found, tops, probs, len(candidates))
        if mask is None and self.parallax is not None:
            readings = [r for r in readings if not self._on_marker(image, r.box)]
        return readings

    def classify(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (not-a-die, 1..6, cocked) of classifier crops, one row per crop.

        Every crop is seen once; the unsure ones (see the class doc) again in the other views,
        and their probabilities are the mean over all views.
        """
        return classify_views(self._classifier, crops, self.views, self.sure)

    def _settle_pairs(self, image: np.ndarray, tops: list[tuple[float, float, float, float]],
                      probs: np.ndarray) -> np.ndarray:
        """For the table camera's dice with a calibration: the candidates that are dice, read
        as one value of a judged pair (4 or 6, 2 or 3) with less than `pair_sure`, have their
        probability of "either of the pair" split between the two by that pair's judge
        (`vision.pair_judge`), which sees the top face closer than the classifier; other rows
        are left as they are."""
        if not self._pair_judges or self.parallax is None or len(probs) == 0:
            return probs
        values = np.argmax(probs[:, 1 : dm.COCKED], axis=1) + 1
        unsure = ((probs[np.arange(len(probs)), values] < self.pair_sure)
                  & (1.0 - probs[:, dm.NOT_A_DIE] >= self.die_threshold))
        settled = probs.copy()
        for judge in self._pair_judges:
            low, high = judge.pair
            ask = np.flatnonzero(unsure & np.isin(values, judge.pair))
            if len(ask) == 0:
                continue
            faces = [(tops[i][0], tops[i][1], max(tops[i][2], tops[i][3]))
                     for i in ask.tolist()]
            p_high = judge.p_higher(image, faces)
            either = probs[ask, low] + probs[ask, high]
            settled[ask, low] = either * (1.0 - p_high)
            settled[ask, high] = either * p_high
        return settled

    def detect(self, image: np.ndarray) -> list[dm.Candidate]:
        """Stage 1 alone: the detector's candidates in a BGR image, one per die found, before
        the classifier rejects any (the candidates `dm.split_duplicates` hides are left out)."""
        return dm.split_duplicates(self._candidates(image))[0]

    def _candidates(self, image: np.ndarray) -> list[dm.Candidate]:
        """Every peak of the detector above the threshold, the same die's several among them."""
        small = dm.detector_input(image, self.scale)
        self._detector.setInput(dm.to_blob([small]))
        out = self._detector.forward()[0]
        return dm.decode_detections(out, self.scale, self.detect_threshold)

    def _detect_in_regions(self, image: np.ndarray, regions: DiceRegions) -> list[dm.Candidate]:
        """Run the detector on each part of the mask (plus a die of margin), not on the
        picture around them: the detector is most of the reading's time. Duplicates are left
        in (the caller splits them)."""
        h, w = image.shape[:2]
        margin = round(self.die_size_px)  # a die half outside the region still shows whole
        smallest = 0.25 * self.die_size_px**2  # slivers left between fields by rasterising
        mask = regions.mask
        found = []
        for bx0, by0, bx1, by1, area in regions.parts:
            if area < smallest:
                continue
            x0, y0 = max(0, bx0 - margin), max(0, by0 - margin)
            x1, y1 = min(w, bx1 + margin), min(h, by1 + margin)
            found += [
                dm.Candidate(c.cx + x0, c.cy + y0, c.width, c.height, c.score)
                for c in self._candidates(image[y0:y1, x0:x1])
                if mask[min(h - 1, max(0, int(c.cy + y0))), min(w - 1, max(0, int(c.cx + x0)))]
            ]
        return found

    def _choose(
        self, image: np.ndarray, candidates: list[dm.Candidate],
        tops: list[tuple[float, float, float, float]], probs: np.ndarray, n_kept: int
    ) -> list[DieReading]:
        """Keep the crops that are dice, strongest first; one reading per die.

        A die on its edge shows two faces, and the detector may find each: a candidate in the
        whole box of an accepted die, or nearer to its centre than `COCKED_SAME_DIE` die sizes,
        is that die again when either looks cocked — and the die is cocked, unless the one that
        looks cocked is the candidate found again and the classifier is not sure it is a die
        (below `OTHER_FACE_P_DIE`: a part of the die's edge, not its side face).
        The candidates from `n_kept` on are the detector's hidden ones (`dm.split_duplicates`),
        looked at after all others: one is a die of its own (dice leaning on each other) only
        when its value is read `sure`ly and it lies in the boxes of accepted dice that are read
        as other values, neither looking cocked; else it is dropped and changes nothing (the two
        faces of a cocked die read as two values, each unsure).

        Which dice are cocked: for the table camera's dice with a calibration, those the judge
        finds cocked (`_judged_cocked`) and those whose value is not read surely enough; else
        also by the rules of the class doc (classifier, two faces, box aspect, outline).
        """
        h, w = image.shape[:2]
        p_die = 1.0 - probs[:, dm.NOT_A_DIE]
        looks_cocked = probs[:, dm.COCKED] > probs[:, 1 : dm.COCKED].max(axis=1)
        values = np.argmax(probs[:, 1 : dm.COCKED], axis=1) + 1
        p_value = probs[np.arange(len(candidates)), values]
        readable = np.array([p >= max(self.read_threshold, self.value_thresholds.get(v, 0.0))
                             for p, v in zip(p_value.tolist(), values.tolist(), strict=True)])
        surely = readable & ~looks_cocked & (p_value >= self.sure)
        strength = p_die * np.array([c.score for c in candidates])
        order = np.concatenate([np.argsort(-strength[:n_kept]),
                                n_kept + np.argsort(-strength[n_kept:])])
        chosen: list[tuple[int, tuple[int, int, int, int]]] = []
        for i in order.tolist():
            c = candidates[i]
            if p_die[i] < self.die_threshold:
                continue
            if i >= n_kept:  # hidden: a die of its own only on dice read as other values
                under = [j for j, box in chosen if _inside(c.cx, c.cy, box, 1.0)]
                if not (surely[i] and under and all(
                        readable[j] and not looks_cocked[j] and values[j] != values[i]
                        for j in under)):
                    continue
            else:
                again = [j for j, box in chosen
                         if self._same_die(c, candidates[j], box,
                                           looks_cocked[i] or looks_cocked[j])]
                if again:
                    looks_cocked[again[0]] |= looks_cocked[i] and p_die[i] >= OTHER_FACE_P_DIE
                    continue
            box = (
                max(0, round(c.cx - c.width / 2)),
                max(0, round(c.cy - c.height / 2)),
                min(w, round(c.cx + c.width / 2)),
                min(h, round(c.cy + c.height / 2)),
            )
            chosen.append((i, box))
        chosen, two_faces = self._two_faces(candidates, chosen, p_die)
        centres = np.array([(candidates[i].cx, candidates[i].cy) for i, _ in chosen])
        judged = self._judged_cocked(image, centres)
        if judged is not None:
            chosen, judged = self._one_cocked_die(centres, chosen, judged)
        kept: list[DieReading] = []
        for k, (i, box) in enumerate(chosen):
            if judged is not None:  # the table camera, calibrated: the judge decides
                cocked = not readable[i] or judged[k]
            else:
                _, _, top_w, top_h = tops[i]
                aspect = max(top_w, top_h) / max(1e-6, min(top_w, top_h))
                cocked = (not readable[i] or looks_cocked[i] or i in two_faces
                          or aspect > self.max_aspect
                          or self._shows_side_face(image, candidates[i], centres))
            if cocked:
                kept.append(DieReading(None, box, float(p_die[i]), True))
            else:
                kept.append(DieReading(int(values[i]), box, float(p_value[i]), False))
        kept.sort(key=lambda r: -r.confidence)
        return kept

    def _judged_cocked(self, image: np.ndarray, centres: np.ndarray) -> np.ndarray | None:
        """For the table camera's dice with a calibration (`parallax`): which of the dice
        found at `centres` the judge (`vision.cocked_judge`) finds cocked; else None, and the
        outline rule decides (`_shows_side_face`)."""
        if self._judge is None or self.parallax is None or len(centres) == 0:
            return None
        p = self._judge.p_cocked(image, [tuple(c) for c in centres.tolist()], self.die_size_px,
                                 self.parallax)
        return p >= self.judge_threshold

    def _one_cocked_die(
        self, centres: np.ndarray, chosen: list[tuple[int, tuple[int, int, int, int]]],
        judged: np.ndarray,
    ) -> tuple[list[tuple[int, tuple[int, int, int, int]]], np.ndarray]:
        """Readings nearer than `COCKED_SAME_DIE` die sizes to a die the judge finds cocked
        are that die's other faces: the strongest (first in `chosen`) stays, cocked, the others
        go. Flat dice lie a die apart; a die pressed against a cocked one is thrown again with
        it anyway."""
        near = (np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
                < COCKED_SAME_DIE * self.die_size_px)
        keep = np.ones(len(chosen), bool)
        cocked = judged.copy()
        for k in range(len(chosen)):
            if not keep[k]:
                continue
            group = near[k] & keep
            group[k] = False
            if (judged[k] or judged[group].any()) and group.any():
                keep[group] = False
                cocked[k] = True
        return [c for c, kept in zip(chosen, keep.tolist(), strict=True) if kept], cocked[keep]

    def _two_faces(
        self, candidates: list[dm.Candidate], chosen: list[tuple[int, tuple[int, int, int, int]]],
        p_die: np.ndarray,
    ) -> tuple[list[tuple[int, tuple[int, int, int, int]]], set[int]]:
        """With a calibrated camera (`parallax` given, so the die size is the table's), two
        dice nearer than `TWO_FACES` die sizes cannot both lie flat (flat dice side by side are
        about a die apart): they are one die. The weaker (later in `chosen`) is dropped; when
        the classifier finds it a die surely (`p_die` at least `OTHER_FACE_P_DIE`) it is the
        other face of a die on its edge, and the stronger is returned among the cocked, else it
        is the same face found again, which changes nothing. Without a calibration (photos of
        dice of many sizes read at one nominal size) nothing changes.
        """
        if self.parallax is None:
            return chosen, set()
        kept: list[tuple[int, tuple[int, int, int, int]]] = []
        cocked: set[int] = set()
        for i, box in chosen:
            c = candidates[i]
            near = [j for j, _ in kept
                    if math.hypot(c.cx - candidates[j].cx, c.cy - candidates[j].cy)
                    < TWO_FACES * self.die_size_px]
            if not near:
                kept.append((i, box))
            elif p_die[i] >= OTHER_FACE_P_DIE:
                cocked.add(near[0])
        return kept, cocked

    def _same_die(self, c: dm.Candidate, accepted: dm.Candidate,
                  box: tuple[int, int, int, int], cocked: bool) -> bool:
        """True when candidate `c` is the `accepted` die (with `box`) found again."""
        if not cocked:
            return _inside(c.cx, c.cy, box, self.duplicate_box)
        near = math.hypot(c.cx - accepted.cx, c.cy - accepted.cy)
        return _inside(c.cx, c.cy, box, 1.0) or near < COCKED_SAME_DIE * self.die_size_px

    def _on_marker(self, image: np.ndarray, box: tuple[int, int, int, int]) -> bool:
        """True when the box's centre lies on an ArUco marker at least `MARKER_DIE_SIZES` die
        sizes wide (the board's corner markers; a die showing a 5 can decode as a marker too,
        but one a die wide). Only the picture around the die is searched."""
        h, w = image.shape[:2]
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        reach = round(MARKER_REACH * self.die_size_px)
        x0, y0 = max(0, round(cx) - reach), max(0, round(cy) - reach)
        x1, y1 = min(w, round(cx) + reach), min(h, round(cy) + reach)
        grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        corners, _, _ = self._markers.detectMarkers(grey)
        for quad in corners:
            q = quad.reshape(4, 2) + np.array([x0, y0], np.float32)
            if (quad_side(q) >= MARKER_DIE_SIZES * self.die_size_px
                    and cv2.pointPolygonTest(q, (cx, cy), False) >= 0):
                return True
        return False

    def _shows_side_face(self, image: np.ndarray, c: dm.Candidate, centres: np.ndarray) -> bool:
        """True when the die's body outline is elongated and longer than a flat die's face,
        once the side faces any flat die shows this camera (`parallax`) are taken away. The
        outline ends halfway to each neighbour (another of the dice at `centres` within
        `ALONE_DIE_SIZES`): dice of one colour pressed together are one region of their
        colour. Only dice `COCKED_SAME_DIE` die sizes away or more are neighbours; a nearer
        one may be this die's own other face (`TWO_FACES` merges the nearest), and halving
        the region between two faces would hide the side face.

        When the body's colour runs on into the board around it (a light die on a light
        board), a die lying alone (no other of the dice at `centres` within `ALONE_DIE_SIZES`)
        is measured by its silhouette against the board instead.
        """
        gaps = np.hypot(centres[:, 0] - c.cx, centres[:, 1] - c.cy)
        near = gaps < ALONE_DIE_SIZES * self.die_size_px
        alone = int(near.sum()) == 1
        neighbours = centres[near & (gaps >= COCKED_SAME_DIE * self.die_size_px)]
        ex, ey = self.parallax.shift(c.cx, c.cy) if self.parallax is not None else (0.0, 0.0)
        lean = (ex / self.die_size_px, ey / self.die_size_px)
        long, short = body_outline(image, c.cx, c.cy, self.die_size_px, lean, neighbours)
        if long >= OUTLINE_LEAK and alone:
            long, short = silhouette(image, c.cx, c.cy, self.die_size_px, lean)
            return SILHOUETTE_LONG <= long < OUTLINE_LEAK and short <= SILHOUETTE_MAX_SHORT
        return (
            self.outline_long <= long < OUTLINE_MAX_LONG
            and OUTLINE_MIN_SHORT <= short <= OUTLINE_MAX_SHORT
            and long >= self.outline_aspect * short
        )


def top_face(cx: float, cy: float, width: float, height: float,
             parallax: Parallax | None) -> tuple[float, float, float, float]:
    """Centre, width and height of the top face of a flat die seen as the box (cx, cy, width,
    height): without `parallax` the whole box, else the box less the side faces the camera
    sees (the reader's crops and the classifier's training crops are cut around it)."""
    if parallax is None:
        return cx, cy, width, height
    ex, ey = parallax.shift(cx, cy)
    return (cx + ex / 2, cy + ey / 2, max(width - abs(ex), 0.6 * width),
            max(height - abs(ey), 0.6 * height))


class DiceRegions:
    """Where dice may lie in one camera's frames: a mask (non-zero where a die's centre may be)
    and its connected parts as boxes (x0, y0, x1, y1, pixel count), found once."""

    def __init__(self, mask: np.ndarray) -> None:
        self.mask = mask
        on = (np.asarray(mask) > 0).astype(np.uint8)
        if on.ndim != 2:
            raise DiceInputError(f"a mask has one channel, got shape {on.shape}")
        _, _, stats, _ = cv2.connectedComponentsWithStats(on, connectivity=8)
        self.parts = tuple(
            (x, y, x + bw, y + bh, area) for x, y, bw, bh, area in stats[1:].tolist()
        )


#: The views of a crop for each `views` setting: (quarter-turns, mirrored), the plain crop first.
VIEW_TURNS: dict[int, tuple[tuple[int, bool], ...]] = {
    1: ((0, False),),
    2: ((0, False), (2, False)),
    4: ((0, False), (2, False), (1, False), (3, False)),
    8: tuple((k, m) for m in (False, True) for k in (0, 2, 1, 3)),
}


def turned_view(crop: np.ndarray, view: tuple[int, bool]) -> np.ndarray:
    """One view of a crop (an entry of `VIEW_TURNS`): mirrored left-right, then turned."""
    turns, mirrored = view
    return np.rot90(crop[:, ::-1] if mirrored else crop, turns)


def classify_views(net: cv2.dnn.Net, crops: list[np.ndarray], views: int,
                   sure: float) -> np.ndarray:
    """A crop classifier's probabilities, one row per crop: every crop seen once, those whose
    most likely class is below `sure` again in the other `views` (see `VIEW_TURNS`), averaged."""
    probs = _forward(net, crops)
    if views == 1:
        return probs
    unsure = np.flatnonzero(probs.max(axis=1) < sure)
    if len(unsure) == 0:
        return probs
    others = VIEW_TURNS[views][1:]
    batch = [turned_view(crops[i], turn) for turn in others for i in unsure.tolist()]
    more = _forward(net, batch).reshape(len(others), len(unsure), dm.NUM_CLASSES)
    probs[unsure] = (probs[unsure] + more.sum(axis=0)) / views
    return probs


def _forward(net: cv2.dnn.Net, crops: list[np.ndarray]) -> np.ndarray:
    net.setInput(dm.to_blob(crops))
    return dm.softmax(net.forward().reshape(len(crops), dm.NUM_CLASSES))


#: A decoded ArUco marker at least this many die sizes wide is one of the board's (40 mm against
#: 16 mm dice: 2.5); a die showing a 5 decodes as one about a die wide. The search around a die
#: reaches this many die sizes each way: the whole marker and its white margin.
MARKER_DIE_SIZES = 1.8
MARKER_REACH = 3.5
#: Two faces of one cocked die are found this many die sizes apart at most (0.7 for a die
#: tilted 45°, plus the detector's scatter); flat dice lying side by side are a die apart.
COCKED_SAME_DIE = 0.9
#: Two dice nearer than this many die sizes are one die on its edge, with a calibrated camera
#: (`DiceReader._two_faces`). The detector finds the two faces of a cocked die 0.66–0.86 die
#: sizes apart (cube renders, seeds 80–85: 17 of 20 pairs below 0.8), and two flat dice pressed
#: face to face 0.77 and more (200 renders: 1 pair below 0.8, 9 below 0.9): they are found a
#: little nearer than they lie, their side faces pulling the centres together.
TWO_FACES = 0.8
#: The weaker of two such candidates is a die's other face only when the classifier is this
#: sure it is a die: on the cube renders (seeds 80-91) the 16 side faces found scored 0.92 and
#: more; on the flat renders (seeds 76, 77, 79) two small detections on a flat die's corner
#: (its side face and shadow, boxes half a die wide), 0.60 and 0.68. Likewise a candidate
#: found again inside a die's box that looks cocked (`DiceReader._choose`): on cocked dice
#: (44 of the cube renders) 0.90 and more, on the flat renders one, 0.72 (and on seed 70,
#: rendered to check the rule, one at 0.76).
OTHER_FACE_P_DIE = 0.8
def _inside(x: float, y: float, box: tuple[int, int, int, int], shrink: float) -> bool:
    """True when (x, y) lies in `box` shrunk by `shrink` around its centre."""
    half_w, half_h = shrink * (box[2] - box[0]) / 2, shrink * (box[3] - box[1]) / 2
    mx, my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return abs(x - mx) <= half_w and abs(y - my) <= half_h


def _as_bgr(image: object) -> np.ndarray:
    """Accept BGR, BGRA or grey uint8 images; anything else is a clear error."""
    if not isinstance(image, np.ndarray):
        raise DiceInputError(f"expected an image array, got {type(image).__name__}")
    if image.size == 0:
        raise DiceInputError(f"empty image (shape {image.shape})")
    if image.dtype != np.uint8:
        raise DiceInputError(f"expected 8-bit pixels, got {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise DiceInputError(f"expected a BGR, BGRA or grey image, got shape {image.shape}")


@functools.cache
def default_reader() -> DiceReader:
    """The reader `read_dice` uses, loaded once from `vision/models/`."""
    return DiceReader()


def read_dice(image_bgr: np.ndarray) -> list[DieReading]:
    """Read the dice in one image with the default reader (see `DiceReader.read`)."""
    return default_reader().read(image_bgr)
