"""Doubling cube, match score, Crawford, Jacoby and beavers (text 004 and VARIANTS.md)."""

from __future__ import annotations

import dataclasses

import pytest

from controller.rules.backgammon import Result
from controller.rules.backgammon_options import HOFER, STANDARD
from controller.rules.errors import CubeError
from controller.rules.match import Match

GAMMON = Result(0, "gammon", 2)
SINGLE_FOR_1 = Result(1, "single", 1)


def test_004_double_taken_cube_doubles_and_belongs_to_the_taker() -> None:
    match = Match(7).offer_double(0).take(1)
    assert (match.cube, match.owner) == (2, 1)
    with pytest.raises(CubeError) as err:
        match.offer_double(0)
    assert err.value.reason.key == "cube_owned_by_opponent"
    redoubled = match.offer_double(1).take(0)
    assert (redoubled.cube, redoubled.owner) == (4, 0)


def test_004_double_dropped_the_doubler_wins_the_cube_value_before_doubling() -> None:
    match = Match(7).offer_double(0).take(1).offer_double(1).drop(0)
    assert match.score == (0, 2)
    assert match.cube == 1 and match.owner is None  # next game starts centred
    assert match.games[-1].kind == "drop"


def test_only_the_opponent_answers_and_only_after_an_offer() -> None:
    with pytest.raises(CubeError) as err:
        Match(7).take(1)
    assert err.value.reason.key == "no_double_offered"
    with pytest.raises(CubeError) as err:
        Match(7).offer_double(0).take(0)
    assert err.value.reason.key == "answer_by_opponent"
    with pytest.raises(CubeError) as err:
        Match(7).offer_double(0).offer_double(0)
    assert err.value.reason.key == "double_pending"


def test_variants_gammon_times_cube() -> None:
    match = Match(7).offer_double(1).take(0).end_game(GAMMON)
    assert match.score == (4, 0)


def test_crawford_game_has_no_doubling_then_doubling_returns() -> None:
    match = Match(5).end_game(Result(0, "single", 1))
    match = match.offer_double(0).take(1).offer_double(1).take(0).end_game(Result(0, "single", 1))
    assert match.score == (5, 0) and match.winner() == 0
    match = Match(5, score=(3, 0)).end_game(Result(0, "single", 1))
    assert match.score == (4, 0) and match.crawford_game
    with pytest.raises(CubeError) as err:
        match.offer_double(1)
    assert err.value.reason.key == "crawford_no_double"
    after = match.end_game(SINGLE_FOR_1)
    assert after.score == (4, 1) and not after.crawford_game
    assert after.why_no_double(1) is None


def test_crawford_rule_can_be_switched_off() -> None:
    no_crawford = dataclasses.replace(STANDARD, crawford=False)
    match = Match(5, no_crawford, score=(3, 0)).end_game(Result(0, "single", 1))
    assert not match.crawford_game and match.why_no_double(1) is None


def test_jacoby_money_game_gammon_counts_single_until_the_cube_is_turned() -> None:
    jacoby = dataclasses.replace(STANDARD, jacoby=True)
    assert Match(0, jacoby).end_game(GAMMON).score == (1, 0)
    assert Match(0, jacoby).offer_double(1).take(0).end_game(GAMMON).score == (4, 0)
    assert Match(0).end_game(GAMMON).score == (2, 0)  # without Jacoby


def test_beaver_money_game_only_when_allowed() -> None:
    beavers = dataclasses.replace(STANDARD, beavers=True)
    match = Match(0, beavers).offer_double(0).beaver(1)
    assert (match.cube, match.owner) == (4, 1)
    with pytest.raises(CubeError) as err:
        Match(0).offer_double(0).beaver(1)
    assert err.value.reason.key == "beaver_not_allowed"
    with pytest.raises(CubeError):
        Match(7, beavers).offer_double(0).beaver(1)


def test_variants_hofer_plays_without_the_cube() -> None:
    with pytest.raises(CubeError) as err:
        Match(0, HOFER).offer_double(0)
    assert err.value.reason.key == "cube_off"
    assert err.value.reason.de and err.value.reason.en


def test_match_over_after_the_length_is_reached() -> None:
    match = Match(3).end_game(Result(1, "backgammon", 3))
    assert match.winner() == 1
    with pytest.raises(CubeError) as err:
        match.end_game(GAMMON)
    assert err.value.reason.key == "match_over"


def test_match_ids_equal_gnubgs_for_match_states() -> None:
    gnubg = pytest.importorskip("gnubg", reason="needs PyPI gnubg as the oracle")
    match = Match(7, score=(3, 2)).offer_double(0).take(1)
    expected = gnubg.match_id(
        gnubg.cubeinfo(2, 1, 0, 7, (3, 2), 0, 0), gnubg.posinfo(0, 0, 0, 1, (5, 3))
    )
    assert match.match_id(0, (5, 3)) == expected
    offered = Match(7).offer_double(0)
    expected = gnubg.match_id(
        gnubg.cubeinfo(1, -1, 0, 7, (0, 0), 0, 0), gnubg.posinfo(1, 0, 1, 1, (0, 0))
    )
    assert offered.match_id(0) == expected
    crawford = Match(5, score=(3, 0)).end_game(Result(0, "single", 1))
    expected = gnubg.match_id(
        gnubg.cubeinfo(1, -1, 1, 5, (4, 0), 1, 0), gnubg.posinfo(1, 0, 0, 1, (2, 1))
    )
    assert crawford.match_id(1, (2, 1)) == expected
