"""Board prints for the photoreal scenes, drawn with OpenCV from the reader's geometry.

Deliberately not vision/render_board.py: other palettes, felt, leather, wood inlay and paper
looks, printed outlines and numbers, worn paper with stains and a fold crease. Each print is
a texture over the board's whole top (4 px per mm) plus a gloss mask (1 where the print shines:
paint on wood, metallic ink), and a palette the pieces take their colours from.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np
import textures as tx

from vision.geometry import BackgammonGeometry, MaednGeometry

PX_PER_MM = 4.0
SHIFT = 4  # sub-pixel bits for OpenCV drawing
Colour = tx.Colour


@dataclass
class Print:
    image: np.ndarray  # BGR uint8, covers the board's outer rectangle
    gloss: np.ndarray  # uint8 0..255
    tints: tuple[Colour, ...]  # Mensch: colours 0..3 as printed; backgammon: point colours
    surface: dict  # roughness, sheen, bump for Blender


class Canvas:
    """A board-sized image addressed in millimetres."""

    def __init__(self, width_mm: float, height_mm: float) -> None:
        self.w = round(width_mm * PX_PER_MM)
        self.h = round(height_mm * PX_PER_MM)
        self.img = np.zeros((self.h, self.w, 3), np.float32)
        self.gloss = np.zeros((self.h, self.w), np.float32)

    def pts(self, points: list[tuple[float, float]]) -> np.ndarray:
        return np.array([[round(x * PX_PER_MM * 16), round(y * PX_PER_MM * 16)]
                         for x, y in points], np.int32)

    def rect_mask(self, rect: tuple[float, float, float, float]) -> np.ndarray:
        x0, y0, x1, y1 = rect
        mask = np.zeros((self.h, self.w), np.float32)
        cv2.rectangle(mask, (round(x0 * PX_PER_MM), round(y0 * PX_PER_MM)),
                      (round(x1 * PX_PER_MM) - 1, round(y1 * PX_PER_MM) - 1), 1.0, -1)
        return mask

    def poly_mask(self, points: list[tuple[float, float]]) -> np.ndarray:
        mask = np.zeros((self.h, self.w), np.float32)
        cv2.fillPoly(mask, [self.pts(points)], 1.0, cv2.LINE_AA, SHIFT)
        return mask

    def circle_mask(self, centre: tuple[float, float], radius: float,
                    thickness: float = -1) -> np.ndarray:
        mask = np.zeros((self.h, self.w), np.float32)
        c = self.pts([centre])[0]
        t = -1 if thickness < 0 else max(1, round(thickness * PX_PER_MM))
        cv2.circle(mask, (int(c[0]), int(c[1])), round(radius * PX_PER_MM * 16), 1.0, t,
                   cv2.LINE_AA, SHIFT)
        return mask

    def lay(self, mask: np.ndarray, fill: np.ndarray | Colour, gloss: float | None = None) -> None:
        """Paint `fill` (RGB colour or BGR image) where `mask` is 1."""
        x, y, w, h = cv2.boundingRect((mask > 0).astype(np.uint8))
        if w == 0:
            return
        box = (slice(y, y + h), slice(x, x + w))
        src = np.array(fill[::-1], np.float32) if isinstance(fill, tuple) else fill[box]
        m = mask[box][..., None]
        self.img[box] = self.img[box] * (1 - m) + src * m
        if gloss is not None:
            self.gloss[box] = self.gloss[box] * (1 - m[..., 0]) + gloss * m[..., 0]

    def line(self, a: tuple[float, float], b: tuple[float, float], colour: Colour,
             width_mm: float) -> None:
        p = self.pts([a, b])
        cv2.line(self.img, tuple(int(v) for v in p[0]), tuple(int(v) for v in p[1]),
                 colour[::-1], max(1, round(width_mm * PX_PER_MM)), cv2.LINE_AA, SHIFT)

    def outline(self, points: list[tuple[float, float]], colour: Colour, width_mm: float,
                dashed: bool = False) -> None:
        closed = [*points, points[0]]
        for a, b in itertools.pairwise(closed):
            if not dashed:
                self.line(a, b, colour, width_mm)
                continue
            n = max(1, int(math.dist(a, b) / 3.0))
            for k in range(0, n, 2):
                p = (a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n)
                q = (a[0] + (b[0] - a[0]) * (k + 1) / n, a[1] + (b[1] - a[1]) * (k + 1) / n)
                self.line(p, q, colour, width_mm)

    def text(self, label: str, centre: tuple[float, float], height_mm: float,
             colour: Colour, angle: float = 0.0) -> None:
        scale = height_mm * PX_PER_MM / 22
        thick = max(1, round(scale * 2))
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        patch = np.zeros((th * 3, tw + th * 2), np.uint8)
        cv2.putText(patch, label, (th, th * 2), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick,
                    cv2.LINE_AA)
        patch = patch.astype(np.float32) / 255
        if angle:
            m = cv2.getRotationMatrix2D((patch.shape[1] / 2, patch.shape[0] / 2), angle, 1)
            patch = cv2.warpAffine(patch, m, (patch.shape[1], patch.shape[0]))
        cx, cy = round(centre[0] * PX_PER_MM), round(centre[1] * PX_PER_MM)
        y0, x0 = cy - patch.shape[0] // 2, cx - patch.shape[1] // 2
        if y0 < 0 or x0 < 0 or y0 + patch.shape[0] > self.h or x0 + patch.shape[1] > self.w:
            return
        full = np.zeros((self.h, self.w), np.float32)
        full[y0:y0 + patch.shape[0], x0:x0 + patch.shape[1]] = patch
        self.lay(full, colour)


def texture(rng: np.random.Generator, canvas: Canvas, kind: str, colour: Colour,
            dark: Colour | None = None) -> np.ndarray:
    """A full-board fill image: felt, leather, wood, paper or plain (lightly mottled) ink."""
    shape = (canvas.h, canvas.w)
    dark = dark or tuple(int(c * 0.72) for c in colour)
    if kind == "wood":
        return tx.wood(rng, shape, colour, dark, ring_px=rng.uniform(20, 40)).astype(np.float32)
    if kind == "felt":
        base = tx.paint(tx.noise(rng, shape, 8, 4) * 0.5, colour, tx.jitter(rng, colour, 0.12))
        return tx.cloth(rng, base, thread_px=2.0, wrinkles=0.0).astype(np.float32)
    if kind == "leather":
        grain = tx.noise(rng, shape, 260, 2)
        base = tx.paint(0.6 * tx.noise(rng, shape, 5, 4) + 0.4 * grain, colour, dark)
        return base
    if kind == "paper":
        fibres = tx.streaks(rng, shape, 6, 80)
        mottle = tx.noise(rng, shape, 6, 5)
        return tx.paint(0.25 * mottle + 0.1 * fibres, colour, dark)
    return tx.paint(tx.noise(rng, shape, 6, 4), colour, tx.jitter(rng, colour, 0.05))


def wear(rng: np.random.Generator, canvas: Canvas, creases: list[tuple[str, float]]) -> None:
    """Worn paper: yellowed edges, faded ink, tea stains, scuffs and fold creases."""
    h, w = canvas.h, canvas.w
    img = canvas.img
    grey = img.mean(axis=2, keepdims=True)
    img[:] = img * 0.8 + grey * 0.2 + 12  # faded ink
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    edge = np.minimum(np.minimum(xx, w - xx), np.minimum(yy, h - yy)) / (40 * PX_PER_MM)
    yellow = np.clip(1 - edge, 0, 1) * 0.25 * tx.noise(rng, (h, w), 5, 3)
    img[:] = img * (1 - yellow[..., None]) + np.array([90, 160, 190], np.float32) * \
        yellow[..., None]
    for _ in range(int(rng.integers(2, 5))):
        ring = np.zeros((h, w), np.float32)
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        r = int(rng.uniform(15, 40) * PX_PER_MM)
        cv2.ellipse(ring, centre, (r, int(r * rng.uniform(0.8, 1.0))), rng.uniform(0, 180), 0,
                    360, 1.0, max(2, r // 14))
        blot = np.zeros((h, w), np.float32)
        cv2.circle(blot, centre, r, 0.35, -1)
        stain = cv2.GaussianBlur(ring + blot, (0, 0), 3) * rng.uniform(0.2, 0.45)
        stain *= tx.noise(rng, (h, w), 12, 3) + 0.3
        img[:] = img * (1 - stain[..., None]) + np.array([40, 90, 140], np.float32) * \
            stain[..., None]
    scuffs = (tx.noise(rng, (h, w), 220, 2) > 0.93).astype(np.float32) * \
        (tx.noise(rng, (h, w), 4, 2) > 0.5)
    img[:] = img * (1 - 0.5 * scuffs[..., None]) + 235 * 0.5 * scuffs[..., None]
    for axis, at_mm in creases:
        at = round(at_mm * PX_PER_MM)
        line = np.zeros((h, w), np.float32)
        if axis == "x":
            line[:, max(0, at - 1): at + 1] = 1
        else:
            line[max(0, at - 1): at + 1, :] = 1
        soft = cv2.GaussianBlur(line, (0, 0), 4)
        img[:] = img * (1 - 0.25 * soft[..., None]) + 255 * 0.25 * soft[..., None]
        img[:] *= 1 - 0.35 * line[..., None]


# --- backgammon -------------------------------------------------------------------------------

BG_STYLES = {
    "bg_classic": {"field": ("felt", (40, 92, 58)), "points": ((150, 34, 38), (226, 214, 186)),
                   "frame": ("wood", (150, 98, 58)), "bar": ("wood", (150, 98, 58)),
                   "tray": ("felt", (40, 92, 58)), "outline": None, "numbers": False},
    "bg_navy": {"field": ("felt", (182, 190, 196)), "points": ((30, 44, 84), (236, 228, 206)),
                "frame": ("wood", (96, 62, 40)), "bar": ("plain", (140, 150, 160)),
                "tray": ("felt", (30, 44, 84)), "outline": None, "numbers": True},
    "bg_outline": {"field": ("plain", (244, 242, 236)), "points": ((28, 28, 30), (196, 30, 36)),
                   "frame": ("plain", (30, 30, 32)), "bar": ("plain", (120, 120, 124)),
                   "tray": ("plain", (210, 208, 200)), "outline": ((20, 20, 20), 0.8),
                   "numbers": True},
    "bg_tournament": {"field": ("leather", (176, 128, 80)), "points": ((110, 26, 34),
                                                                       (230, 216, 180)),
                      "frame": ("leather", (70, 40, 24)), "bar": ("leather", (70, 40, 24)),
                      "tray": ("leather", (40, 70, 48)), "outline": ((236, 222, 190), 0.6),
                      "dashed": True, "numbers": False},
    "bg_paper": {"field": ("paper", (232, 222, 196)), "points": ((36, 36, 40), (178, 40, 40)),
                 "frame": ("paper", (120, 36, 36)), "bar": ("paper", (120, 36, 36)),
                 "tray": ("paper", (232, 222, 196)), "outline": ((30, 30, 30), 0.5),
                 "numbers": True, "worn": True},
    "bg_inlay": {"field": ("wood", (214, 180, 132)), "points": ((92, 56, 34), (168, 92, 60)),
                 "frame": ("wood", (92, 56, 34)), "bar": ("wood", (92, 56, 34)),
                 "tray": ("wood", (168, 120, 80)), "outline": ((236, 220, 180), 1.0),
                 "inlay": True, "numbers": False},
    "bg_black_gold": {"field": ("felt", (26, 26, 28)), "points": ((196, 160, 80),
                                                                  (180, 182, 186)),
                      "frame": ("wood", (40, 28, 22)), "bar": ("felt", (26, 26, 28)),
                      "tray": ("felt", (26, 26, 28)), "outline": None, "metal": True,
                      "numbers": False},
}


def backgammon_print(rng: np.random.Generator, family: str, geo: BackgammonGeometry) -> Print:
    style = BG_STYLES[family]
    c = Canvas(geo.width, geo.height)
    full = (0.0, 0.0, geo.width, geo.height)
    kind, colour = style["frame"]
    c.lay(c.rect_mask(full), texture(rng, c, kind, tx.jitter(rng, colour, 0.08)))
    kind, colour = style["field"]
    field = texture(rng, c, kind, tx.jitter(rng, colour, 0.08))
    for rect in geo.half_rects():
        c.lay(c.rect_mask(rect), field)
    if geo.bar_rect is not None:
        kind, colour = style["bar"]
        c.lay(c.rect_mask(geo.bar_rect), texture(rng, c, kind, tx.jitter(rng, colour, 0.06)))
    kind, colour = style["tray"]
    tray = texture(rng, c, kind, tx.jitter(rng, colour, 0.06))
    for rect in geo.tray_rects().values():
        c.lay(c.rect_mask(rect), tray)
    odd, even = (tx.jitter(rng, p, 0.06) for p in style["points"])
    metal = 1.0 if style.get("metal") else None
    veneers = {}
    if style.get("inlay"):  # grain running along the points
        for parity, colour in ((1, odd), (0, even)):
            grain = tx.wood(rng, (c.w, c.h), colour, tuple(int(v * 0.7) for v in colour),
                            ring_px=rng.uniform(10, 20))
            veneers[parity] = cv2.rotate(grain, cv2.ROTATE_90_CLOCKWISE).astype(np.float32)
    for point in range(1, 25):
        tri = list(geo.point_triangle(point))
        colour = odd if point % 2 else even
        if veneers:
            c.lay(c.poly_mask(tri), veneers[point % 2], gloss=0.6)
        else:
            c.lay(c.poly_mask(tri), colour, gloss=metal)
        if style["outline"]:
            ink, width = style["outline"]
            c.outline(tri, ink, width, dashed=bool(style.get("dashed")))
        if style["numbers"]:
            lane = geo.lanes()[point - 1]
            x, y = lane.at(-0.0, 0.0)
            y = y - 5 if point <= 12 else y + 5
            c.text(str(point), (x, y), 4.0, style["points"][0] if style["outline"] else
                   (60, 60, 60))
    if style.get("worn"):
        wear(rng, c, [("x", geo.bar_x + geo.bar_width / 2)])
    surface = {"felt": {"roughness": 0.95, "sheen": 0.7, "bump": 0.25},
               "leather": {"roughness": 0.45, "bump": 0.35},
               "wood": {"roughness": 0.3, "bump": 0.15, "coat": 0.5},
               "paper": {"roughness": 0.7, "bump": 0.2},
               "plain": {"roughness": 0.35, "bump": 0.05, "coat": 0.3}}[style["field"][0]]
    return Print(tx.to_u8(c.img), tx.to_u8(c.gloss * 255), (odd, even), surface)


# --- Mensch ärgere Dich nicht ----------------------------------------------------------------

CLASSIC = ((238, 200, 30), (40, 140, 60), (200, 36, 36), (36, 80, 170))
MD_STYLES = {
    "md_classic": {"ground": ("plain", (244, 238, 220)), "tints": CLASSIC,
                   "track": (250, 250, 246), "ink": (30, 30, 30), "lines": 1.2, "shape": "disc",
                   "letters": True},
    "md_wood": {"ground": ("wood", (214, 176, 124)), "tints": ((236, 196, 40), (60, 150, 70),
                                                               (196, 40, 36), (40, 90, 180)),
                "track": (244, 236, 216), "ink": (80, 46, 24), "lines": 1.6, "shape": "disc",
                "paint": True},
    "md_pastel": {"ground": ("plain", (250, 250, 248)), "tints": ((250, 226, 140),
                                                                  (160, 214, 170),
                                                                  (240, 160, 160),
                                                                  (150, 180, 230)),
                  "track": (255, 255, 255), "ink": (130, 130, 134), "lines": 0.5,
                  "shape": "disc", "dotted": True},
    "md_modern": {"ground": ("plain", (214, 216, 220)), "tints": ((240, 130, 30),
                                                                  (120, 60, 160),
                                                                  (20, 150, 150),
                                                                  (230, 90, 150)),
                  "track": (246, 246, 246), "ink": None, "lines": 2.5, "shape": "square"},
    "md_paper": {"ground": ("paper", (236, 226, 198)), "tints": CLASSIC,
                 "track": (246, 240, 224), "ink": (40, 40, 40), "lines": 1.0, "shape": "disc",
                 "letters": True, "worn": True},
    "md_dark": {"ground": ("plain", (24, 24, 28)), "tints": ((250, 230, 40), (120, 240, 60),
                                                             (250, 50, 160), (40, 220, 250)),
                "track": (60, 60, 66), "ink": (230, 230, 230), "lines": 0.8, "shape": "ring"},
    "md_vintage": {"ground": ("paper", (214, 196, 160)), "tints": ((196, 150, 60),
                                                                   (110, 120, 60),
                                                                   (160, 62, 46), (70, 90, 110)),
                   "track": (232, 220, 190), "ink": (70, 50, 36), "lines": 1.0,
                   "shape": "double", "star": True},
}


def maedn_print(rng: np.random.Generator, family: str, geo: MaednGeometry) -> Print:
    style = MD_STYLES[family]
    c = Canvas(geo.width, geo.height)
    kind, colour = style["ground"]
    c.lay(c.rect_mask((0, 0, geo.width, geo.height)),
          texture(rng, c, kind, tx.jitter(rng, colour, 0.05)))
    ink = style["ink"] or tuple(int(v * 0.8) for v in style["ground"][1])
    tints = tuple(tx.jitter(rng, t, 0.05) for t in style["tints"])
    if geo.frame > 0:
        inset = geo.frame + 3
        box = [(inset, inset), (geo.width - inset, inset), (geo.width - inset, geo.height - inset),
               (inset, geo.height - inset)]
        c.outline(box, ink, 0.8)
    if style.get("star"):
        _star(c, geo, ink, tints)
    track = geo.track()
    for i, a in enumerate(track):
        b = track[(i + 1) % 40]
        if math.dist(a, b) < geo.cell * 1.1:
            if style.get("dotted"):
                for k in range(1, 8):
                    p = (a[0] + (b[0] - a[0]) * k / 8, a[1] + (b[1] - a[1]) * k / 8)
                    c.lay(c.circle_mask(p, 0.7), ink)
            else:
                c.line(a, b, ink, style["lines"])
    r = geo.field_diameter / 2
    paint_gloss = 0.8 if style.get("paint") else None
    for name, centre, look in geo.fields():
        fill = style["track"] if look == "track" else tints[int(look[-1])]
        _field(c, style, centre, r, fill, ink, paint_gloss)
        if style.get("letters") and name.startswith("t") and look != "track":
            colour = int(look[-1])
            c.text("ABCD"[colour], centre, r * 0.8, (250, 250, 250))
    if style.get("worn"):
        wear(rng, c, [("x", geo.width / 2), ("y", geo.height / 2)])
    surface = {"wood": {"roughness": 0.35, "bump": 0.2, "coat": 0.4},
               "paper": {"roughness": 0.75, "bump": 0.25},
               "plain": {"roughness": 0.3, "bump": 0.05, "coat": 0.4}}[style["ground"][0]]
    return Print(tx.to_u8(c.img), tx.to_u8(c.gloss * 255), tints, surface)


def _field(c: Canvas, style: dict, centre: tuple[float, float], r: float, fill: Colour,
           ink: Colour, gloss: float | None) -> None:
    shape = style["shape"]
    if shape == "square":
        x, y = centre
        s, k = r * 0.92, r * 0.3  # half side, corner radius
        mask = c.rect_mask((x - s + k, y - s, x + s - k, y + s)) + \
            c.rect_mask((x - s, y - s + k, x + s, y + s - k))
        for dx in (-1, 1):
            for dy in (-1, 1):
                mask += c.circle_mask((x + dx * (s - k), y + dy * (s - k)), k)
        c.lay(np.clip(mask, 0, 1), fill, gloss)
        return
    if shape == "ring":
        c.lay(c.circle_mask(centre, r), fill)
        c.lay(c.circle_mask(centre, r - 3.5), style["ground"][1])
        return
    c.lay(c.circle_mask(centre, r), fill, gloss)
    if style["ink"]:
        c.lay(c.circle_mask(centre, r, 0.8), ink)
    if shape == "double":
        c.lay(c.circle_mask(centre, r * 0.68, 0.5), ink)


def _star(c: Canvas, geo: MaednGeometry, ink: Colour, tints: tuple[Colour, ...]) -> None:
    """An eight-pointed compass star in the centre field's place, in faded tints."""
    cx, cy = geo.width / 2, geo.height / 2
    outer, inner = geo.cell * 0.9, geo.cell * 0.3
    for k in range(8):
        a = math.radians(45 * k - 90)
        tip = (cx + outer * math.cos(a), cy + outer * math.sin(a))
        left = (cx + inner * math.cos(a - 0.4), cy + inner * math.sin(a - 0.4))
        right = (cx + inner * math.cos(a + 0.4), cy + inner * math.sin(a + 0.4))
        c.lay(c.poly_mask([(cx, cy), left, tip, right]), tints[k % 4])
        c.outline([(cx, cy), left, tip, right], ink, 0.4)
