"""Reading dice in a photo whose die size nobody gave (issue 27): a search over scales.

The sized reader (`vision.dice.DiceReader`) shrinks the picture so that dice of the size it is
told are 20 px wide for its detector. A photo of unknown dice may hold dice 10 px or 180 px
wide, several sizes in one picture when the camera looks at the table from the side. Run at
one wrong size, a big die's pips look like dice (a 2 became two dice showing 1) and a tilted
die's side face like another die.

`AnySizeDiceReader` runs a detector trained on dice of every size (`dice_detector_any.onnx`)
on a pyramid of the picture, each level half the size of the one before, and keeps from each
level only the candidates whose box comes out in that level's band of sizes. Every candidate
is then cut from the full picture at its own size and read by a classifier trained on real
dice of every size and view, kept upright (`dice_classifier_any.onnx`), which learned pips,
pip groups, side faces and groups of dice as "not a die" (the sized reader's photo classifier
gives a second opinion on the value, and has the only say in a photo seen from above:
`with_second_opinion`, `seen_from_above`). Candidates are taken strongest first
(detector score x the classifier's P(die) x P(value)); one whose centre lies in a taken
die's box, or whose box holds a taken die's centre, is that die seen at another scale (or a
part of it) and dropped: one die gives one reading. A second pass then runs the sized
reader's detector once at the photo's own die size (the median of the first pass's readings,
`photo_die_size`): its candidates that the classifier is sure are dice join the first pass's
and the same rule chooses again (a die whose box came out too small at every level is found).
The models come from `tools/train_dice_any_size.py` (`vision/models/README.md`).
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from vision import dice_model as dm
from vision.dice import DiceInputError, DieReading, _as_bgr, classify_views

DETECTOR_FILE = dm.MODEL_DIR / "dice_detector_any.onnx"
CLASSIFIER_FILE = dm.MODEL_DIR / "dice_classifier_any.onnx"

#: A die's width at the detector's input on the level that keeps it: the geometric middle of
#: the band below (the sized reader's `detector_die_px` too).
LEVEL_DIE_PX = dm.REFERENCE_DIE_PX * dm.DETECTOR_SCALE
#: Each pyramid level is this much smaller than the one before.
LEVEL_STEP = 2.0
#: A level keeps the candidates whose box (its longer side, at the detector's input) lies in
#: this band: the level's own octave, a little wider each way so a die on the border between
#: two levels is kept by one of them at least (the taking order drops the other).
BAND = (LEVEL_DIE_PX / math.sqrt(LEVEL_STEP) * 0.9, LEVEL_DIE_PX * math.sqrt(LEVEL_STEP) * 1.1)
#: Dice narrower than this cannot be read (their pips are a pixel or two) ...
SMALLEST_DIE_PX = 10.0
#: ... nor narrower than the picture's short side over this: a large frame is not searched for
#: dice a thousandth of it (that level alone would cost more than all others).
SHORT_SIDE_DICE = 80.0
#: And no die is wider than half the picture's short side.
LARGEST_SHARE = 0.5
#: The second pass's candidates count only when the classifier is this sure they are dice: on
#: the train photos (with the classifier before the upright one) 0.97 found 19 of the 91
#: oblique and 10 of the 16 top-down dice the first pass missed, for 14 more false dice in 295
#: oblique photos (0.9: 25 and 11 found, 58 more false).
SECOND_PASS_P_DIE = 0.97
#: Two readings conflict (one die seen twice, or a part of a die seen as a die) when one's
#: centre lies in the other's box shrunk by this (`conflicts`). 0.9, not the sized reader's
#: 0.8: an oblique die's box from one level is often off its centre, and its pips or side
#: face read at another level then fell just outside the smaller box (other train photos:
#: 53 -> 43 false dice in 236 oblique photos, one die fewer right of 941; held-out train
#: unchanged; 1.0 lost 4 oblique dice and a top-down one).
OVERLAP = 0.9
#: Each classifier's say in a die's value is its best value's share to this power
#: (`with_second_opinion`; 0 would be the plain mean).
OPINION_POWER = 2.0
#: A photo with at least this many dice read, their sizes within this factor of each other,
#: is taken as seen from above (`seen_from_above`): its values are the photos' classifier's.
ABOVE_DICE = 5
ABOVE_SPREAD = 1.5


def pyramid_scales(height: int, width: int) -> list[float]:
    """The factors the picture is resized by for the detector, largest first: one level per
    octave of die sizes from the smallest readable die to half the picture."""
    short = min(height, width)
    smallest = max(SMALLEST_DIE_PX, short / SHORT_SIDE_DICE)
    largest = LARGEST_SHARE * short
    scales = []
    die = smallest * math.sqrt(LEVEL_STEP)  # the middle of the first level's octave
    while die / math.sqrt(LEVEL_STEP) < largest:
        scales.append(LEVEL_DIE_PX / die)
        die *= LEVEL_STEP
    return scales


def in_band(c: dm.Candidate, scale: float) -> bool:
    """True when the candidate's box, at the detector's input of its level, is that level's."""
    return BAND[0] <= max(c.width, c.height) * scale <= BAND[1]


def detect_levels(net: cv2.dnn.Net, image: np.ndarray, threshold: float) -> list[dm.Candidate]:
    """The detector's candidates over the pyramid, each kept by its own level only, the same
    die's several peaks on one level merged (`dm.split_duplicates`; the hidden ones dropped)."""
    h, w = image.shape[:2]
    found: list[dm.Candidate] = []
    for scale in pyramid_scales(h, w):
        net.setInput(dm.to_blob([dm.detector_input(image, scale)]))
        level = dm.decode_detections(net.forward()[0], scale, threshold, max_candidates=128)
        found += dm.split_duplicates([c for c in level if in_band(c, scale)])[0]
    return found


def _read_sides(readings: list[DieReading]) -> list[float]:
    """The longer box side of each die read with a value."""
    return [max(r.box[2] - r.box[0], r.box[3] - r.box[1]) for r in readings
            if r.value is not None]


def photo_die_size(readings: list[DieReading]) -> float | None:
    """The photo's own die size: the median longer box side of the dice read with a value
    (None when there are none)."""
    sides = _read_sides(readings)
    return float(np.median(sides)) if sides else None


def detect_at_size(net: cv2.dnn.Net, image: np.ndarray, die_px: float,
                   threshold: float) -> list[dm.Candidate]:
    """The sized reader's detector's candidates (`net`, `dm.DETECTOR_FILE`) with the picture
    resized so dice `die_px` wide are `LEVEL_DIE_PX` at its input, as the sized reader does."""
    scale = LEVEL_DIE_PX / die_px
    net.setInput(dm.to_blob([dm.detector_input(image, scale)]))
    return dm.split_duplicates(dm.decode_detections(net.forward()[0], scale, threshold))[0]


def die_crop(image: np.ndarray, cx: float, cy: float, side: float, angle_deg: float = 0.0,
             mirrored: bool = False) -> np.ndarray:
    """The classifier's `dm.CROP_SIZE` square showing `side` px around (cx, cy), turned by
    `angle_deg` and mirrored if asked (training). A large die is first shrunk with area
    averaging, so its crop is not an aliased sample of every fifth pixel."""
    factor = dm.CROP_SIZE / side
    if factor < 0.5:
        reach = int(side) + 2  # covers the square turned by any angle
        x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
        part = image[y0 : int(cy) + reach + 1, x0 : int(cx) + reach + 1]
        pre = 2.0 * factor  # leave the last factor 2 to the warp
        image = cv2.resize(part, None, fx=pre, fy=pre, interpolation=cv2.INTER_AREA)
        cx, cy, side = (cx - x0) * pre, (cy - y0) * pre, side * pre
    m = dm.crop_matrix(cx, cy, side, angle_deg)
    if mirrored:
        m[0] = -m[0]
        m[0, 2] += dm.CROP_SIZE
    return cv2.warpAffine(image, m, (dm.CROP_SIZE, dm.CROP_SIZE), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def conflicts(a: dm.Candidate, b: dm.Candidate, shrink: float) -> bool:
    """True when either one's centre lies in the other's box shrunk by `shrink`: one die seen
    twice, or a part of a die (pips, a side face) seen as a die of its own."""
    dx, dy = abs(a.cx - b.cx), abs(a.cy - b.cy)
    return ((dx <= shrink * b.width / 2 and dy <= shrink * b.height / 2)
            or (dx <= shrink * a.width / 2 and dy <= shrink * a.height / 2))


class AnySizeDiceReader:
    """Finds and reads dice of any size in BGR images; construct once, call `read` per image.

    Thresholds as in `vision.dice.DiceReader`: `detect_threshold` on the detector's heat,
    `die_threshold` on P(die) (0.8, not the sized reader's 0.5: on the held-out train photos
    0.8 dropped 10 of 18 false oblique dice against 0.7 and lost one die), `read_threshold` on
    the best value's probability (below it the die is reported unread: `value=None,
    cocked=True`, so nobody takes a guess for a roll); `views` and `sure` as there, for the
    photos' classifier (the upright any-size one sees an unsure crop mirrored only:
    `classify_upright`). `overlap`: two readings conflict when one's centre lies in the
    other's box shrunk by it (`conflicts`). `second_opinion`: the value is the weighted mean
    of this classifier's and the photos' classifier's (`with_second_opinion`).
    `second_pass_p_die`: the second pass's candidates from the sized detector at the photo's
    die size count when their P(die) is at least this; None: no second pass. `own_level`: the
    second pass also runs this reader's detector once more at the photo's die size (a level
    centred on the photo's dice; its candidates need `die_threshold`, as the pyramid's do).
    Not thread-safe (OpenCV DNN networks).
    """

    def __init__(self, model_dir: Path | None = None, *, detect_threshold: float = 0.3,
                 die_threshold: float = 0.8, read_threshold: float = 0.35, views: int = 8,
                 sure: float = 0.9, overlap: float = OVERLAP, second_opinion: bool = True,
                 second_pass_p_die: float | None = SECOND_PASS_P_DIE, gate: bool = True,
                 own_level: bool = True) -> None:
        folder = Path(model_dir) if model_dir is not None else dm.MODEL_DIR
        self._detector = dm.load_net(folder / DETECTOR_FILE.name)
        #: the sized reader's detector, run once more at the photo's own die size
        self._sized_detector = (dm.load_net(folder / dm.DETECTOR_FILE.name)
                                if second_pass_p_die is not None else None)
        self.second_pass_p_die = second_pass_p_die or 0.0
        self.own_level = own_level
        self._classifier = dm.load_net_with_outputs(
            folder / CLASSIFIER_FILE.name, (1, 3, dm.CROP_SIZE, dm.CROP_SIZE), dm.NUM_CLASSES,
            f"the reader needs {dm.NUM_CLASSES} classes (train it anew with "
            "tools/train_dice_any_size.py)")
        self.gate = gate
        #: the sized reader's classifier for photos, asked about every value too
        self._second = (dm.load_net_with_outputs(
            folder / dm.CLASSIFIER_FILE.name, (1, 3, dm.CROP_SIZE, dm.CROP_SIZE),
            dm.NUM_CLASSES, "the photos' classifier of the sized reader") if second_opinion
            else None)
        if not 0.0 < overlap <= 1.0:
            raise ValueError(f"overlap must lie in (0, 1], got {overlap}")
        self.detect_threshold = detect_threshold
        self.die_threshold = die_threshold
        self.read_threshold = read_threshold
        self.views = views
        self.sure = sure
        self.overlap = overlap

    def detect(self, image_bgr: np.ndarray) -> list[dm.Candidate]:
        """Stage 1 alone: every level's candidates, before the classifier and the choice."""
        return detect_levels(self._detector, _as_bgr(image_bgr), self.detect_threshold)

    def read(self, image_bgr: np.ndarray) -> list[DieReading]:
        """The dice in the image, highest confidence first, one reading per die."""
        image = _as_bgr(image_bgr)
        if min(image.shape[:2]) < 2 * SMALLEST_DIE_PX:
            raise DiceInputError(f"image is {image.shape[1]}x{image.shape[0]} pixels: too "
                                 f"small to hold a readable die")
        candidates = detect_levels(self._detector, image, self.detect_threshold)
        opinions = self.opinions(image, candidates)
        readings = choose(candidates, self.combined(*opinions), image.shape[:2],
                          self.die_threshold, self.read_threshold, self.overlap)
        above = seen_from_above(readings) and self._second is not None
        size = photo_die_size(readings)
        found_more = False
        for more, p_die in self._second_pass(image, size):
            extra = self.opinions(image, more)
            sure = 1.0 - extra[0][:, dm.NOT_A_DIE] >= p_die
            if sure.any():
                found_more = True
                candidates = candidates + [c for c, s in zip(more, sure, strict=True) if s]
                opinions = tuple(np.concatenate([a, b[sure]])
                                 for a, b in zip(opinions, extra, strict=True))
        if not (found_more or above):
            return readings  # nothing new to choose among
        return choose(candidates, self.combined(*opinions, from_above=above),
                      image.shape[:2], self.die_threshold, self.read_threshold, self.overlap)

    def _second_pass(self, image: np.ndarray, size: float | None
                     ) -> list[tuple[list[dm.Candidate], float]]:
        """The second pass's candidates at the photo's die size `size`, each group with the
        P(die) its candidates need: the sized detector's (dice whose box came out too small
        at every pyramid level), and with `own_level` this reader's detector's (the pyramid's
        levels lie an octave apart, so the photo's dice may sit at the edge of two levels'
        bands; at their own size they sit in the middle of what the detector learned)."""
        if size is None or self._sized_detector is None:
            return []
        passes = [(detect_at_size(self._sized_detector, image, size, self.detect_threshold),
                   self.second_pass_p_die)]
        if self.own_level:
            passes.append((detect_at_size(self._detector, image, size, self.detect_threshold),
                           self.die_threshold))
        return passes

    def combined(self, own: np.ndarray, second: np.ndarray, turned: np.ndarray,
                 from_above: bool = False) -> np.ndarray:
        """`with_second_opinion`, the photos' classifier's say weighted by `half_turn_agreement`
        (with `gate`)."""
        return with_second_opinion(own, second, from_above,
                                   half_turn_agreement(own, turned) if self.gate else None)

    def opinions(self, image: np.ndarray, candidates: list[dm.Candidate]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Class probabilities (not-a-die, 1..6, cocked) of each candidate's crop at its own
        size, one row per candidate: the any-size classifier's, the photos' classifier's (the
        same again without a second opinion), and the any-size classifier's on the crop turned
        half a turn (`half_turn_agreement`; the first again without `gate`)."""
        if not candidates:
            empty = np.zeros((0, dm.NUM_CLASSES))
            return empty, empty, empty
        crops = [die_crop(image, c.cx, c.cy, dm.crop_side(c.width, c.height))
                 for c in candidates]
        own = classify_upright(self._classifier, crops, self.sure)
        if self._second is None:
            return own, own, own
        turned = (classify_upright(self._classifier, [c[::-1, ::-1] for c in crops], self.sure)
                  if self.gate else own)
        return own, classify_views(self._second, crops, self.views, self.sure), turned


def classify_upright(net: cv2.dnn.Net, crops: list[np.ndarray], sure: float) -> np.ndarray:
    """The any-size classifier's probabilities, one row per crop: it learned crops kept
    upright (seen from the side, a die's top face is the one above its side faces), so a crop
    whose most likely class is below `sure` is seen again mirrored left-right only, never
    turned, and the two averaged."""
    probs = classify_views(net, crops, 1, sure)
    unsure = np.flatnonzero(probs.max(axis=1) < sure)
    if len(unsure):
        mirrored = [crops[i][:, ::-1] for i in unsure.tolist()]
        probs[unsure] = (probs[unsure] + classify_views(net, mirrored, 1, sure)) / 2
    return probs


def seen_from_above(readings: list[DieReading]) -> bool:
    """True when at least `ABOVE_DICE` dice were read with a value and their boxes' longer
    sides lie within a factor `ABOVE_SPREAD` of each other: a photo from the side shows near
    dice larger than far ones."""
    sides = _read_sides(readings)
    return len(sides) >= ABOVE_DICE and max(sides) <= ABOVE_SPREAD * min(sides)


def half_turn_agreement(own: np.ndarray, turned: np.ndarray) -> np.ndarray:
    """How likely the any-size classifier reads the same value in a crop and in the crop
    turned half a turn (the sum over values of the product of the two value shares), one per
    crop. Every die face looks the same turned half a turn, so a die seen from above reads
    alike both ways (held-out top-down train dice: median 0.97); a die seen from the side
    does not, its side faces coming out above its top face (held-out oblique: median 0.55)."""
    a, b = (p[:, 1 : dm.COCKED] / np.clip(p[:, 1 : dm.COCKED].sum(axis=1, keepdims=True),
                                          1e-9, None) for p in (own, turned))
    return (a * b).sum(axis=1)


def with_second_opinion(own: np.ndarray, second: np.ndarray, from_above: bool = False,
                        agreement: np.ndarray | None = None) -> np.ndarray:
    """Class probabilities whose P(die) is the any-size classifier's (`own`: it alone learned
    parts and groups of dice as no die) and whose value is a mean of both classifiers' value
    distributions, each weighted by the square of its own best value's share
    (`OPINION_POWER`): the surer one has the larger say. The sized reader's photo classifier
    (`second`) reads top-down dice well (99 % on its test photos), the any-size one oblique
    dice and side faces; each is unsure mostly where the other is right. On the train photos
    (second pass, the classifier before the upright one) the weighted mean read 7 oblique dice
    of 1204 and 2 top-down of 1487 more right than the plain mean (docs/vision-dice.md, "Dice
    without a size"). `from_above` (`seen_from_above`): the value is the photos' classifier's
    alone."""
    out = np.zeros_like(own)
    p_die = 1.0 - own[:, dm.NOT_A_DIE]
    shares = [p[:, 1 : dm.COCKED] / np.clip(p[:, 1 : dm.COCKED].sum(axis=1, keepdims=True),
                                            1e-9, None) for p in (own, second)]
    weights = [sh.max(axis=1, keepdims=True) ** OPINION_POWER for sh in shares]
    if from_above:
        weights[0] = np.zeros_like(weights[0])
    elif agreement is not None:
        weights[1] = weights[1] * agreement[:, None]
    out[:, dm.NOT_A_DIE] = own[:, dm.NOT_A_DIE]
    out[:, 1 : dm.COCKED] = p_die[:, None] * ((weights[0] * shares[0] + weights[1] * shares[1])
                                              / (weights[0] + weights[1]))
    return out


def choose(candidates: list[dm.Candidate], probs: np.ndarray, shape: tuple[int, int],
           die_threshold: float, read_threshold: float, overlap: float) -> list[DieReading]:
    """One reading per die from every level's candidates and their class probabilities
    (not-a-die, 1..6, cocked): strongest first (detector score x P(die) x P(best value), so
    the scale at which a die reads most surely wins), dropping those below `die_threshold`
    and those that conflict with one taken (`conflicts` at `overlap`). A die whose best
    value is below `read_threshold` is reported unread (`value=None, cocked=True`)."""
    h, w = shape
    p_die = 1.0 - probs[:, dm.NOT_A_DIE]
    values = np.argmax(probs[:, 1 : dm.COCKED], axis=1) + 1
    p_value = probs[np.arange(len(candidates)), values]
    strength = np.array([c.score for c in candidates]) * p_die * p_value
    taken: list[int] = []
    for i in np.argsort(-strength, kind="stable").tolist():
        if p_die[i] < die_threshold:
            continue
        if any(conflicts(candidates[i], candidates[j], overlap) for j in taken):
            continue
        taken.append(i)
    readings = []
    for i in taken:
        c = candidates[i]
        box = (max(0, round(c.cx - c.width / 2)), max(0, round(c.cy - c.height / 2)),
               min(w, round(c.cx + c.width / 2)), min(h, round(c.cy + c.height / 2)))
        if p_value[i] < read_threshold:
            readings.append(DieReading(None, box, float(p_die[i]), True))
        else:
            readings.append(DieReading(int(values[i]), box, float(p_value[i]), False))
    readings.sort(key=lambda r: -r.confidence)
    return readings
