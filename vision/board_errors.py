"""Why a board cannot be calibrated or read, in German and English, and the error carrying it."""

from __future__ import annotations

from controller.words import Reason, reason

TOO_DIM = reason("vision_too_dim", "Zu wenig Licht über dem Brett",
                 "Too little light on the board")
PARTLY_OUTSIDE = reason("vision_partly_outside", "Brett liegt teilweise außerhalb des Bildes",
                        "Part of the board is outside the picture")
MARKERS_MISSING = reason("vision_markers_missing", "Nicht alle Eckmarken sichtbar",
                         "Not all corner markers are visible")
OUTLINE_SECOND_LOOK = reason(
    "vision_outline_second_look",
    "Brettumriss erst im zweiten Anlauf gefunden: in der Übersicht prüfen, sonst --corners",
    "Board outline found only on a second look: check it in the overlay, else give --corners")
NO_BOARD = reason("vision_no_board", "Brett nicht gefunden", "Board not found")
NOT_THIS_BOARD = reason("vision_not_this_board",
                        "Das gefundene Brett passt nicht zur Brettbeschreibung",
                        "The board found does not match the board description")
WRONG_CORNERS = reason("vision_wrong_corners", "Die angegebenen Ecken passen nicht",
                       "The corners given cannot be the board's")
DICE_TOO_SMALL = reason("vision_dice_too_small",
                        "Würfel im Bild zu klein: höhere Auflösung oder Kamera tiefer hängen",
                        "Dice look too small: use a higher resolution or hang the camera lower")
BLURRED = reason("vision_blurred",
                 "Bild unscharf: Kamera scharf stellen und fest montieren",
                 "The picture is blurred: focus the camera and mount it firmly")
NOT_EMPTY = reason("vision_not_empty", "Das leere Brett ist nicht leer",
                   "The empty board is not empty")
POSITION_DIFFERS = reason("vision_position_differs",
                          "Die Aufstellung im Bild passt nicht zur angegebenen Stellung",
                          "The pieces in the picture do not match the position given")
COVERED = reason("vision_covered", "Eine Hand oder ein Gegenstand verdeckt das Brett",
                 "A hand or an object covers the board")
CAMERA_MOVED = reason("vision_camera_moved",
                      "Leeres Brett und Aufstellung sind nicht aus derselben Kamerasicht",
                      "The empty board and the set-up were not taken from the same camera view")
NOT_ONE_SIZE = reason("vision_not_one_size", "Die Bilder sind unterschiedlich groß",
                      "The pictures differ in size")


class CalibrationError(ValueError):
    """Calibration is impossible from this picture or file; the message says why."""

    def __init__(self, message: str, why: Reason | None = None) -> None:
        super().__init__(message)
        self.reason = why
