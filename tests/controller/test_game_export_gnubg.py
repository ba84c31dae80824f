"""Game export: a simulated backgammon game written as Jellyfish .mat and imported into the real
GNU Backgammon; a Mensch game as JSON replayed through the Mensch engine."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from controller.game_export import ExportError, records_from_events, to_maedn_json, to_mat
from controller.rules import backgammon as bg
from controller.rules import maedn
from controller.sim.evening import play_game
from controller.sim.table import Habits
from controller.words.events import ButtonPressed, NewGame


def _events(
    game: str, variant: str, seed: int, players: int = 2, undo: float = 0.01, double: float = 0.0
) -> list:
    events: list = []
    habits = Habits(illegal_rate=0.2, undo_rate=undo, double_rate=double)
    play_game(game, variant, seed, players, habits, listener=lambda e, s: events.append(e))
    return events


@pytest.mark.parametrize("seed", [4, 12, 31])
def test_gnubg_imports_the_mat_export_and_sees_the_same_positions(
    tmp_path: Path, seed: int
) -> None:
    gnubg = pytest.importorskip("gnubg", reason="the gnubg package (GNU Backgammon) is needed")
    records = records_from_events(_events("backgammon", "standard", seed, undo=0.05, double=0.05))
    path = tmp_path / "game.mat"
    path.write_text(to_mat(records), encoding="ascii")
    cwd = os.getcwd()
    os.chdir(tmp_path)  # gnubg may write its own files into the working directory
    try:
        gnubg.command(f"import mat {path}")
        imported = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
    finally:
        os.chdir(cwd)
    game = imported["games"][0]
    moves = [r for r in game["game"] if r["action"] == "move"]
    turns = [t for t in records[0].turns if t.action == "roll"]
    assert len(moves) == len(turns) > 5
    pos = bg.Position.initial()
    for record, turn in zip(moves, turns, strict=True):
        pos = pos.with_turn(turn.seat)
        assert record["board"] == pos.position_id(), f"before {turn}"
        assert tuple(sorted(record["dice"])) == tuple(sorted(turn.dice))
        if turn.play is not None:
            pos = pos.apply(bg.Play.parse(turn.play))
    cube = [(r["action"], r["player"]) for r in game["game"] if r["action"] != "move"]
    ours = [(t.action, "XO"[t.seat]) for t in records[0].turns if t.action != "roll"]
    assert cube[: len(ours)] == ours  # after a drop gnubg adds its own resign record
    over = records[0].over
    assert over is not None
    assert game["info"]["winner"] == ("X" if over.order[0] == 0 else "O")
    assert game["info"]["points-won"] == over.points


def test_mat_refuses_hofer_rules_with_a_reason() -> None:
    records = records_from_events([NewGame("backgammon", "hofer")])
    with pytest.raises(ExportError, match="hofer"):
        to_mat(records)


def test_mat_refuses_when_there_is_no_backgammon_game() -> None:
    with pytest.raises(ExportError, match="no backgammon game"):
        to_mat(records_from_events([NewGame("maedn", "hofer", 4)]))


def test_maedn_json_holds_every_roll_and_replays_in_the_engine() -> None:
    records = records_from_events(_events("maedn", "hofer", 9, players=4, undo=0.05))
    exported = json.loads(json.dumps(to_maedn_json(records[0])))
    pos = maedn.Position.initial(maedn.Options.preset("hofer"), players=4)
    for turn in exported["turns"]:
        assert pos.turn == turn["seat"]
        move = None
        if turn["move"] is not None:
            src_text, dst_text = turn["move"].rstrip("*").split("/")
            src = maedn.HOUSE if src_text == "H" else int(src_text)
            move = maedn.Move(turn["seat"], src, int(dst_text))
        pos = pos.apply(move, turn["die"])
    assert pos.is_over()
    assert list(pos.finished) == exported["finishing_order"][: len(pos.finished)]


def test_gnubg_reads_a_match_with_the_score_between_games(tmp_path: Path) -> None:
    gnubg = pytest.importorskip("gnubg", reason="the gnubg package (GNU Backgammon) is needed")
    game = _events("backgammon", "standard", 21)[1:]
    events = [
        NewGame("backgammon", "standard", match_length=7),
        *game,
        ButtonPressed("new_game"),
        *game,
    ]
    records = records_from_events(events)
    assert len(records) == 2 and all(r.over is not None for r in records)
    path = tmp_path / "match.mat"
    path.write_text(to_mat(records), encoding="ascii")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        gnubg.command(f"import mat {path}")
        imported = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
    finally:
        os.chdir(cwd)
    assert imported["match-info"]["match-length"] == 7
    first, second = (g["info"] for g in imported["games"])
    over = records[0].over
    side = "X" if over.order[0] == 0 else "O"
    assert first["winner"] == side and first["points-won"] == over.points
    assert second[f"score-{side}"] == over.points
