"""Choosing the scanner and the race from a public seed (KRS 117.383(8)(a), 31 KAR 4:230 §1(9))."""

from __future__ import annotations

import hashlib

import pytest
from scipy.stats import chi2
from test_audit_handeye_support import ELECTION

from tabulate.audit.handeye.selection import (
    Candidates,
    SelectionError,
    candidates,
    draw,
    select_announced,
    select_by_seed,
)
from tabulate.election import load_election
from tabulate.report.synthetic import synthetic_records

POOL = Candidates(
    ("1", "2", "3", "4", "5"), dict.fromkeys("12345", ("a", "b", "c", "d", "e", "f", "g")), dict.fromkeys("12345", 10)
)


def _by_hand(seed: str, counter: int, n: int) -> int:
    # The few lines of the docstring, written out again as a member of the public would.
    return int(hashlib.sha256(f"{seed},{counter}".encode()).hexdigest(), 16) % n


def test_the_same_seed_chooses_the_same_scanner_and_race():
    first = select_by_seed(POOL, "31415926535897932384")
    assert select_by_seed(POOL, " 31415926535897932384 ") == first
    assert first.method == "seed" and first.seed == "31415926535897932384"


def test_anyone_can_rerun_the_draw_in_a_few_lines_of_their_own():
    for seed in ("00000000000000000000", "12345678901234567890", "66666666666666666666"):
        s = select_by_seed(POOL, seed)
        assert s.tabulator == POOL.tabulators[_by_hand(seed, 1, 5)]
        assert s.contest_id == POOL.races[s.tabulator][_by_hand(seed, 2, 7)]


@pytest.mark.parametrize("counter,n", [(1, 5), (2, 7)])
def test_the_draw_is_uniform_over_10000_seeds(counter, n):
    seen = [0] * n
    for k in range(10_000):
        seen[draw(f"{k:020d}", counter, n)] += 1
    expected = 10_000 / n
    statistic = sum((o - expected) ** 2 / expected for o in seen)
    # Fixed seeds make this deterministic; a fair draw passes at the 0.1 % level.
    assert statistic < chi2.ppf(0.999, n - 1), seen


def test_different_seeds_choose_differently():
    chosen = {(s.tabulator, s.contest_id) for s in (select_by_seed(POOL, f"{k:020d}") for k in range(200))}
    assert len(chosen) > 20


def test_only_races_for_office_can_be_chosen_not_questions():
    """31 KAR 4:230 §1(9): '"Race" means a single decision or set of associated decisions being put before
    voters for candidates to elected office.'"""
    election = load_election(ELECTION)
    pool = candidates(election, synthetic_records(election, 60, seed=3))
    questions = {c.id for c in election.contests if c.type == "question"}
    assert pool.tabulators
    for t in pool.tabulators:
        assert pool.races[t] and not questions & set(pool.races[t])
        assert "straight-party" not in pool.races[t]


def test_an_announced_selection_must_be_a_scanner_that_counted_and_a_race_on_it():
    assert select_announced(POOL, "3", "b").method == "announced"
    with pytest.raises(SelectionError, match="counted no ballot"):
        select_announced(POOL, "9", "b")
    with pytest.raises(SelectionError, match="was not tabulated on scanner 3"):
        select_announced(POOL, "3", "zz")


def test_an_empty_seed_is_refused():
    with pytest.raises(SelectionError, match="seed is empty"):
        select_by_seed(POOL, "   ")
