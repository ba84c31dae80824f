"""One JSON object in, one JSON object out: the Mensch part of `spieltisch rules legal --batch`.

In:  {"game": "maedn", "variant": "openspiel", "players": 2|3|4, "turn": seat, "dice": d,
      "pieces": [[p, p, p, p], ...]}  (each seat's pieces in its own counting)
Out: {"moves": [[from, to], ...]} sorted, in the mover's counting ([] when the turn passes),
     or {"error": "<what is wrong>"}. `handle` never raises. Optional: "options", an object of
     rule options switched away from the variant (see maedn_options.Options).
"""

from __future__ import annotations

import logging
from typing import Any

from controller.rules import maedn
from controller.rules.errors import RulesError
from controller.rules.maedn_options import Options

log = logging.getLogger(__name__)

DEFAULT_VARIANT = "openspiel"


def handle(obj: Any) -> dict[str, Any]:
    """Legal moves for one position and die, or an error naming what is wrong with the input."""
    try:
        return {"moves": _legal(obj)}
    except RulesError as exc:
        return {"error": str(exc)}
    except Exception as exc:  # the batch loop must go on whatever one line contains
        log.exception("unexpected failure on %r", obj)
        return {"error": f"internal error: {type(exc).__name__}: {exc}"}


def _legal(obj: Any) -> list[list[int]]:
    if not isinstance(obj, dict):
        raise RulesError(f"input must be a JSON object, not {type(obj).__name__}")
    game = obj.get("game", "maedn")
    if game != "maedn":
        raise RulesError(f'"game" must be "maedn" here, not {game!r}')
    variant = obj.get("variant", DEFAULT_VARIANT)
    if not isinstance(variant, str):
        raise RulesError(f'"variant" must be a string, not {variant!r}')
    options = Options.preset(variant)
    changes = obj.get("options")
    if changes is not None:
        if not isinstance(changes, dict):
            raise RulesError(
                f'"options" must be an object of option names and values, not {changes!r}'
            )
        options = options.with_changes(changes)
    for key in ("turn", "dice", "pieces"):
        if key not in obj:
            raise RulesError(f'missing "{key}"')
    pieces = obj["pieces"]
    if not isinstance(pieces, list) or not all(isinstance(p, list) for p in pieces):
        raise RulesError(f'"pieces" must be a list of lists (one per seat), not {pieces!r}')
    players = obj.get("players", len(pieces))
    if isinstance(players, bool) or not isinstance(players, int):
        raise RulesError(f'"players" must be 2, 3 or 4, not {players!r}')
    dice = obj["dice"]
    if isinstance(dice, list) and len(dice) == 1:
        dice = dice[0]
    pos = maedn.Position.from_pieces(pieces, players, obj["turn"], options)
    return [[src, dst] for src, dst in sorted({(m.src, m.dst) for m in pos.legal_plays(dice)})]
