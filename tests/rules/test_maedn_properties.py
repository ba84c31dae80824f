"""Properties on random valid positions (hypothesis): conservation, validity, round trips, and
agreement between `legal_plays`, `why_not`, `apply` and `judge`."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import maedn
from tests.rules.maedn_strategies import positions

DICE = st.integers(1, 6)
SETTINGS = settings(max_examples=300, deadline=None)


@SETTINGS
@given(positions(), DICE)
def test_every_move_conserves_pieces(pos: maedn.Position, die: int) -> None:
    for move in pos.legal_plays(die):
        after = pos.apply(move, die)
        assert all(len(seat) == 4 for seat in after.pieces)
        for seat in range(pos.players):
            gone = Counter(pos.pieces[seat]) - Counter(after.pieces[seat])
            came = Counter(after.pieces[seat]) - Counter(pos.pieces[seat])
            if seat == move.seat:
                assert (list(gone.elements()), list(came.elements())) == ([move.src], [move.dst])
            elif seat == move.captured:
                assert list(came.elements()) == [-1] and sum(gone.values()) == 1
            else:
                assert not gone and not came


@SETTINGS
@given(positions(), DICE)
def test_every_move_leads_to_a_valid_position(pos: maedn.Position, die: int) -> None:
    if pos.is_over():
        return
    for move in pos.legal_plays(die) or [None]:
        after = pos.apply(move, die)
        rebuilt = maedn.Position.from_pieces(
            after.pieces,
            after.players,
            after.turn,
            after.options,
            finished=after.finished,
            tries_used=after.tries_used,
        )
        assert rebuilt == after
        assert after.is_over() or after.turn not in after.finished


@SETTINGS
@given(positions())
def test_board_round_trip(pos: maedn.Position) -> None:
    board = pos.to_board()
    assert maedn.Position.from_board(board, pos.turn, pos.options, players=pos.players) == pos
    assert hash(pos) == hash(
        maedn.Position.from_pieces(pos.pieces, pos.players, pos.turn, pos.options)
    )


@SETTINGS
@given(positions(), DICE)
def test_why_not_agrees_with_legal_plays_for_every_source_and_target(
    pos: maedn.Position, die: int
) -> None:
    legal = {(m.src, m.dst) for m in pos.legal_plays(die)}
    for src in set(pos.pieces[pos.turn]):
        for dst in range(-1, 45):
            why = pos.why_not(maedn.Move(pos.turn, src, dst), die)
            assert (why is None) == ((src, dst) in legal), (src, dst, why)


@SETTINGS
@given(positions(), DICE)
def test_judge_accepts_each_legal_result_with_a_move_giving_that_result(
    pos: maedn.Position, die: int
) -> None:
    for move in pos.legal_plays(die):
        after = pos.apply(move, die)
        verdict = pos.judge(after.to_board(), die)
        assert verdict.legal
        assert pos.apply(verdict.play, die).pieces == after.pieces


@SETTINGS
@given(positions(), DICE, st.data())
def test_judge_rejects_a_piece_moved_by_the_wrong_distance(
    pos: maedn.Position, die: int, data: st.DataObject
) -> None:
    mine = [p for p in pos.pieces[pos.turn] if 0 <= p < 40]
    if pos.is_over() or not mine:
        return
    src = data.draw(st.sampled_from(mine))
    legal_dst = {m.dst for m in pos.legal_plays(die) if m.src == src}
    occupied = {f for seat in range(pos.players) for f in _track(pos, seat)}
    for dst in range(src + 1, 40):
        if dst in legal_dst or pos.track_field(pos.turn, dst) in occupied:
            continue
        pieces = [list(p) for p in pos.pieces]
        pieces[pos.turn][pieces[pos.turn].index(src)] = dst
        verdict = pos.judge(maedn.MaednBoard(tuple(tuple(p) for p in pieces)), die)
        assert not verdict.legal
        assert verdict.reason is not None
        assert verdict.reason.de and verdict.reason.en
        break


def _track(pos: maedn.Position, seat: int) -> set[int]:
    return {pos.track_field(seat, p) for p in pos.pieces[seat] if 0 <= p < 40}


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 4),
    st.sampled_from(["hofer", "vegas", "schmidt", "openspiel"]),
    st.integers(0, 2**32),
)
def test_random_games_end_with_the_right_number_of_finishers(
    players: int, preset: str, seed: int
) -> None:
    rng = random.Random(seed)
    options = maedn.Options.preset(preset)
    pos = maedn.Position.initial(options, players=players)
    for _ in range(20000):
        if pos.is_over():
            break
        die = rng.randint(1, 6)
        moves = pos.legal_plays(die)
        pos = pos.apply(rng.choice(moves) if moves else None, die)
    assert pos.is_over()
    assert len(pos.finished) == (players - 1 if options.play_on else 1)
    for seat in pos.finished:
        assert all(p >= 40 for p in pos.pieces[seat])
