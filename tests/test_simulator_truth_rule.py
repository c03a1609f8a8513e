"""The truth's rule for marks whose ink puts them on the other side of a line 31 KAR 6:030 draws (issue #17).

§2(1)(a): "Filling in the oval or box ... next to the candidate's name";
§3(1)(a): "The majority of an oval, box, or space ... is filled in";
§3(3)(a): "If the voter used a pencil, the voter may erase the mark for the
candidate the voter does not wish to select".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tabulate.ballots import Pen, blank_sheet, forced_plan, simulate_sheet
from tabulate.ballots.mark_kinds import MARK_KINDS
from tabulate.ballots.marks import draw_mark
from tabulate.ballots.plan import target_index
from tabulate.ballots.truth import ERASED_TO_NOTHING_INK, FILLED_PENCIL_INK, expected_reading
from tabulate.election import load_election
from tabulate.election.layout import layout_style

ELECTION = load_election(Path(__file__).parents[1] / "samples" / "general" / "election.json")
LAYOUT = layout_style(ELECTION, "1")
WHERE = target_index(LAYOUT)
TARGET = WHERE[("president", "pres-okafor")][1]
PAGE = blank_sheet(ELECTION, LAYOUT, "A101", dpi=200)[0]


def _inks(kind: str, seeds: range, pen: Pen = Pen("black_pen", 25.0, 0.016)) -> list[float]:
    """The interior ink of ``kind`` drawn at one target with each seed (the ink is measured on the patch)."""
    page = PAGE.copy()
    return [draw_mark(page, kind, TARGET, dpi=200, pen=pen, rng=np.random.default_rng(s)).interior_ink for s in seeds]


def test_the_line_is_the_lightest_definite_pencil_fill():
    # A majority fill (55-85 % of the interior) in the voter's lightest pencil (grey 130, grain 0.4):
    # its lightest draws sit just above FILLED_PENCIL_INK, and none below it.
    lightest = Pen("pencil", 130.0, 0.022, grain=0.4, solid_grain=True)
    inks = _inks("partial_fill", range(60), lightest)
    assert FILLED_PENCIL_INK - 0.01 <= min(inks) <= FILLED_PENCIL_INK + 0.04
    assert MARK_KINDS["partial_fill"].scan == "marked"


def test_a_light_pencil_fill_as_dark_as_a_pencil_fill_is_a_vote_on_grey_scans():
    inks = _inks("light_pencil", range(80))
    dark = [i for i in inks if i >= FILLED_PENCIL_INK]
    light = [i for i in inks if i < FILLED_PENCIL_INK]
    assert dark and light  # both sides of the line are drawn
    for ink in dark:
        k = expected_reading("light_pencil", "oval", ink, bitonal=False)
        assert (k.scan, k.hand, k.scan_accepts) == ("marked", "vote", ("marginal", "marked"))
        assert "§2(1)(a)" in k.clause
        # A bitonal threshold decides what is left of it: the label stays (any reading accepted).
        assert expected_reading("light_pencil", "oval", ink, bitonal=True).scan == "ambiguous"
    for ink in light:
        assert expected_reading("light_pencil", "oval", ink, bitonal=False) == MARK_KINDS["light_pencil"]


def test_erasure_residue_fainter_than_a_blank_target_is_nothing_left():
    inks = _inks("erasure", range(120))
    faint = [i for i in inks if i < ERASED_TO_NOTHING_INK]
    seen = [i for i in inks if i >= ERASED_TO_NOTHING_INK]
    assert faint and seen
    for ink in faint:
        k = expected_reading("erasure", "oval", ink, bitonal=False)
        assert (k.scan, k.hand, k.scan_accepts) == ("unmarked", "no_vote", ("unmarked", "marginal"))
        assert k.clause == "6:030 §3(3)(a)"
    for ink in seen:
        assert expected_reading("erasure", "oval", ink, bitonal=False) == MARK_KINDS["erasure"]


def test_the_sheet_truth_relabels_by_the_drawn_ink_and_still_sends_the_sheet_to_a_person():
    keys = [k for k in WHERE if k[0] not in ("straight-party",) and not k[1].startswith("write-in")]
    # One option per contest: light pencil in some, an erasure in the others.
    firsts = {}
    for c, o in keys:
        firsts.setdefault(c, o)
    marks = {(c, o): ("light_pencil" if i % 2 else "erasure") for i, (c, o) in enumerate(firsts.items())}
    plan = forced_plan(LAYOUT, "A101", marks)
    truth = simulate_sheet(ELECTION, 0, 5, plan=plan, scan_profile="clean", dpi=200).truth
    relabelled = 0
    for t in truth["targets"]:
        want = expected_reading(t["kind"], "oval", t["ink"], bitonal=False)
        assert (t["scan"], t["hand"]) == (want.scan, want.hand)
        assert ("rule" in t) == (want != MARK_KINDS[t["kind"]])
        relabelled += "rule" in t
        if t["scan"] == "marked":
            assert t["option"] in truth["contests"][t["contest"]]["scan_marked"]
    assert relabelled
    assert truth["needs_review"]  # what was drawn still goes to a person
    assert any(r["code"] == "marginal_mark" for r in truth["review_reasons"])
