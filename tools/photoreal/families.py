"""Style families of the photoreal set and their fixed split into development and held-out.

The split is decided here, before any frame is looked at or any reader is run on it: a held-out
set-up draws its table top, board print and light only from the held-out lists, a development
set-up only from the development lists, so the held-out part shows table tops, prints and light
set-ups that nobody tuned on.
"""

from __future__ import annotations

SPLITS = ("dev", "heldout")

TABLES: dict[str, tuple[str, ...]] = {
    "dev": ("oak", "walnut", "felt", "gingham", "linen"),
    "heldout": ("glass", "stone", "floral_cloth", "painted_wood"),
}

#: Board prints per game. `bg_tournament` uses vision/boards/tournament.toml, the `*_paper`
#: prints vision/boards/paper.toml, every other print the Hofer default.
PRINTS: dict[str, dict[str, tuple[str, ...]]] = {
    "backgammon": {
        "dev": ("bg_classic", "bg_navy", "bg_outline", "bg_tournament"),
        "heldout": ("bg_paper", "bg_inlay", "bg_black_gold"),
    },
    "maedn": {
        "dev": ("md_classic", "md_wood", "md_pastel", "md_modern"),
        "heldout": ("md_paper", "md_dark", "md_vintage"),
    },
}

LIGHTS: dict[str, tuple[str, ...]] = {
    "dev": ("warm_ceiling", "window_day", "pendant_lamp"),
    "heldout": ("desk_lamp", "cold_tube", "evening_dim"),
}

BOARD_FILES = {"tournament": "vision/boards/tournament.toml", "paper": "vision/boards/paper.toml",
               "hofer": "vision/boards/hofer.toml"}


def board_file(print_family: str) -> str:
    """The repository-relative geometry TOML a print is drawn for."""
    for key in ("tournament", "paper"):
        if print_family.endswith(key):
            return BOARD_FILES[key]
    return BOARD_FILES["hofer"]


def families_json() -> dict[str, dict[str, list[str]]]:
    """The `families` entry of labels.json: every family of each kind, by split."""
    prints = {split: [p for game in PRINTS for p in PRINTS[game][split]] for split in SPLITS}
    return {"table": {s: list(TABLES[s]) for s in SPLITS}, "print": prints,
            "light": {s: list(LIGHTS[s]) for s in SPLITS}}
