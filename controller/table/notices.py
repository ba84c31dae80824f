"""What the table itself says, not the referee: a game resumed, the camera lost or back, dice
to confirm, a stuck sensor, the score of a match. Shown and recorded like the referee's
signals, never judged."""

from __future__ import annotations

from controller.rules.match import Match
from controller.words.reasons import Reason, reason
from controller.words.signals import Notice

RESUMED = reason("table.resumed")
MATCH_SCORE = reason("table.match_score")  # {score} "2:1", {length}: points to win
CRAWFORD = reason("table.crawford")
CAMERA_LOST = reason("table.camera_lost")
CAMERA_BACK = reason("table.camera_back")
CONFIRM_DICE = reason("table.confirm_dice")  # {dice}: the dice the table drew
SENSOR_STUCK = reason("table.sensor_stuck")  # {input}: which button or sensor
BOARD_MOVED = reason("table.board_moved")  # the board is lost and not found again yet
BOARD_FOUND = reason("table.board_found")


def notice(why: Reason, **params: object) -> Notice:
    """A Notice of the table with a catalog reason and its parameters."""
    return Notice(why.with_params(**params))


def match_notices(match: Match | None) -> list[Notice]:
    """What the display says when a game of a match starts: the score, and whether this is
    the Crawford game (nobody may double). Nothing outside a match."""
    if match is None or match.length <= 1:
        return []
    score = ":".join(str(points) for points in match.score)
    out = [notice(MATCH_SCORE, score=score, length=match.length)]
    return [*out, notice(CRAWFORD)] if match.crawford_game else out
