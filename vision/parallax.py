"""Parallax: how far a flat die's top face appears beyond its base, seen by a camera above.

A camera at height H above the board shows a point at height z where it would show the board
point z/(H − z) further out from its nadir (the board point straight below the lens). A die of
side a therefore shows its top face shifted away from the nadir by a/(H − a) times its
distance from it, and between base and top the side faces turned to the lens: at half a metre,
a die 25 cm off the lens's axis shows half a die of side face. The dice reader takes that shift
away before it asks whether a die shows a side face because it is cocked.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.geometry import DIE_SIZE_MM

#: Where the table's camera hangs when nobody measured it: the middle of the 50-80 cm the
#: build guide allows (docs/build-guide.md). A mount 150 mm higher or lower leaves a flat die's
#: side face misjudged by a quarter of itself, about 0.1 die at the board's far corner.
DEFAULT_CAMERA_HEIGHT_MM = 650.0


@dataclass(frozen=True, slots=True)
class Parallax:
    """The shift of a flat die's top face in one camera's pictures.

    `nadir` is the picture point (px) straight below the lens; `ratio` is a/(H − a), the shift
    per pixel of distance from the nadir (exact for a camera looking straight down; a few
    degrees of tilt move the nadir by a few percent of the picture).
    """

    nadir: tuple[float, float]
    ratio: float

    @staticmethod
    def check_height(height_mm: float, die_mm: float = DIE_SIZE_MM) -> float:
        """`height_mm` if a lens can hang that high above dice of side `die_mm`, else a
        ValueError saying why (for the CLI and `calibrate`, which take a height before any
        picture gives a nadir)."""
        if not height_mm > 2 * die_mm:
            raise ValueError(f"the camera must hang well above the dice ({die_mm:g} mm), "
                             f"got a height of {height_mm:g} mm")
        return height_mm

    @classmethod
    def of_camera(cls, nadir: tuple[float, float], height_mm: float,
                  die_mm: float = DIE_SIZE_MM) -> Parallax:
        """The parallax of a lens `height_mm` above the board for dice of side `die_mm`."""
        height_mm = cls.check_height(height_mm, die_mm)
        return cls((float(nadir[0]), float(nadir[1])), die_mm / (height_mm - die_mm))

    def shift(self, x: float, y: float) -> tuple[float, float]:
        """Pixels by which the top face of a flat die seen at (x, y) lies beyond its base."""
        return (x - self.nadir[0]) * self.ratio, (y - self.nadir[1]) * self.ratio
