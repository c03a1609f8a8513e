"""A fast subset of the accuracy benchmark (benchmarks/accuracy.py): the zero-error criteria.

30 simulated sheets at 200 DPI (every mark kind, default and rough scans, a
quarter bitonal): no definite mark reads as unmarked, no clear non-mark reads
as marked, no sheet is refused, the reader's scanner class is one the
simulator's truth accepts for every target, and every ambiguous mark that
left ink goes to a person (light pencil fills, faint erasures).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))

from accuracy import evaluate


@pytest.fixture(scope="module")
def accuracy():
    return evaluate(30, seed=2024, workers=1)


def test_no_definite_mark_reads_as_unmarked(accuracy):
    assert accuracy.definite_unmarked == []


def test_no_clear_non_mark_reads_as_marked(accuracy):
    assert accuracy.nonmark_marked == []


def test_every_sheet_is_read(accuracy):
    assert accuracy.sheets == 30 and not accuracy.rejected


def test_every_scanner_class_is_one_the_truth_accepts(accuracy):
    wrong = {k: sum(not ok for _, _, ok in rows) for k, rows in accuracy.by_kind.items()}
    assert not any(wrong.values()), wrong


def test_every_ambiguous_mark_goes_to_a_person(accuracy):
    assert accuracy.ambiguous > 50
    assert accuracy.ambiguous_sent == accuracy.ambiguous, dict(accuracy.ambiguous_kept)


def test_clean_ballots_are_not_sent(accuracy):
    assert accuracy.clean > 0 and accuracy.clean_sent == 0


def test_blank_targets_stay_below_the_marginal_threshold(accuracy):
    from tabulate.election import Thresholds

    assert accuracy.blank_max < Thresholds().marginal
