"""The detector's duplicate check (`vision.dice_model.split_duplicates`): one die found in
several cells is classified once; a touching die stays; a die under the oversized box of a die
leaning on it is hidden, for the classifier to judge, not dropped."""

from __future__ import annotations

import itertools

from vision.dice_model import Candidate, split_duplicates


def test_a_second_peak_of_one_die_is_dropped() -> None:
    die = Candidate(100.0, 100.0, 40.0, 40.0, 0.9)
    again = Candidate(104.0, 103.0, 38.0, 38.0, 0.8)
    assert split_duplicates([again, die]) == ([die], [])


def test_a_touching_neighbour_is_a_die_of_its_own() -> None:
    die = Candidate(100.0, 100.0, 40.0, 40.0, 0.9)
    neighbour = Candidate(139.0, 104.0, 38.0, 38.0, 0.5)
    assert split_duplicates([neighbour, die]) == ([die, neighbour], [])


def test_a_die_under_a_leaning_neighbours_oversized_box_is_hidden_not_dropped() -> None:
    """The train photo IMG_20191208_111246: a 27 px die leaning on a 36 px one was given a
    40 px box reaching over the big die's centre, which its own box does not reach."""
    reaching = Candidate(311.0, 152.0, 40.0, 39.0, 0.813)
    big = Candidate(326.0, 167.0, 36.0, 36.0, 0.806)
    assert split_duplicates([big, reaching]) == ([reaching], [big])


def test_the_split_does_not_depend_on_the_order_given() -> None:
    found = [Candidate(100.0, 100.0, 40.0, 40.0, 0.9), Candidate(104.0, 103.0, 38.0, 38.0, 0.8),
             Candidate(115.0, 115.0, 24.0, 24.0, 0.7), Candidate(139.0, 104.0, 38.0, 38.0, 0.5)]
    results = {repr(split_duplicates(list(p))) for p in itertools.permutations(found)}
    assert len(results) == 1
    kept, hidden = split_duplicates(found)
    assert [c.score for c in kept] == [0.9, 0.5] and [c.score for c in hidden] == [0.7]
