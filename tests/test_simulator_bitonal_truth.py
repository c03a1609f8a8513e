"""A light pencil fill on a bitonal scan is labelled by what the threshold left of it (issue #17).

31 KAR 6:030 §2(1)(a): a vote is "Filling in the oval or box ... next to the
candidate's name"; §3(1)(a): "The majority of an oval, box, or space
designating a candidate or question choice is filled in". Where the
scanner's threshold turned most of a light fill black, the image shows a
filled oval; where it left specks, the mark stays ambiguous. A dust streak
through a target is the scanner's line, not the voter's ink.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tabulate.ballots import Pen, ScanParams, SheetScan, forced_plan, simulate_sheet
from tabulate.ballots.mark_kinds import MARK_KINDS
from tabulate.ballots.plan import target_index
from tabulate.ballots.seen import interior_black
from tabulate.ballots.truth import FILLED_BY_THRESHOLD_SHARE, expected_reading
from tabulate.election import load_election
from tabulate.election.layout import layout_style

ELECTION = load_election(Path(__file__).parents[1] / "samples" / "general" / "election.json")
LAYOUT = layout_style(ELECTION, "1")
KEY = ("president", "pres-okafor")
TARGET = target_index(LAYOUT)[KEY][1]
LIGHT = Pen("pencil", 185.0, 0.022, grain=0.6)  # a light pencil: grey 185 on white paper


def _bitonal(threshold: float, streaks: tuple = ()) -> SheetScan:
    p = ScanParams(paper=240.0, black=20.0, bitonal=True, threshold=threshold, streaks=streaks, overscan_in=0.2)
    return SheetScan((p, p))


def _light_fill(threshold: float, streaks: tuple = ()) -> dict:
    plan = forced_plan(LAYOUT, "A101", {KEY: "light_pencil"}, pen=LIGHT)
    sheet = simulate_sheet(ELECTION, 0, 3, plan=plan, scan=_bitonal(threshold, streaks))
    return next(t for t in sheet.truth["targets"] if (t["contest"], t["option"]) == KEY), sheet


def test_a_light_fill_the_threshold_turned_black_is_a_filled_oval():
    # Grey 185 through the levels and a 240 paper is about 170: a threshold at 200 turns it black.
    entry, _ = _light_fill(200.0)
    assert entry["black_share"] > 0.8  # the grain leaves a few clumps of the lightest tone
    assert (entry["scan"], entry["hand"], entry["scan_accepts"]) == ("marked", "vote", ["marginal", "marked"])
    assert entry["rule"] == "6:030 §2(1)(a), §3(1)(a)"


def test_a_light_fill_the_threshold_erased_keeps_its_label():
    entry, _ = _light_fill(120.0)
    assert entry["black_share"] < 0.05
    assert entry["scan"] == "ambiguous" and "rule" not in entry
    assert set(entry["scan_accepts"]) == {"unmarked", "marginal", "marked"}  # it may have vanished


def test_the_line_is_the_majority_of_the_interior():
    lp = MARK_KINDS["light_pencil"]
    over = expected_reading("light_pencil", "oval", 0.2, bitonal=True, black_share=FILLED_BY_THRESHOLD_SHARE + 0.01)
    under = expected_reading("light_pencil", "oval", 0.2, bitonal=True, black_share=FILLED_BY_THRESHOLD_SHARE)
    assert over.scan == "marked" and "§3(1)(a)" in over.clause
    assert under == lp
    # On a grey scan the share plays no part (the drawn ink decides there), nor on an arrow's gap.
    assert expected_reading("light_pencil", "oval", 0.2, bitonal=False, black_share=1.0) == lp
    assert expected_reading("light_pencil", "arrow", 0.2, bitonal=True, black_share=1.0).scan != "marked"


def test_a_dust_streak_through_a_target_is_not_ink_left():
    entry, sheet = _light_fill(135.0)
    image = sheet.truth["images"][0]
    m = np.array(image["transform"]["page_to_image"])
    col = int((m @ [*TARGET.bounds.center, 1.0])[0])
    streak = ((col, 2, -110),)  # paper 240 - 110 = 130: a black line down the page, through the target
    entry, sheet = _light_fill(135.0, streak)
    img = sheet.pages[0]
    assert (img[:, col] == 0).mean() > 0.9  # the streak is black in the image
    with_streak = interior_black(img, m, TARGET, ())
    assert with_streak.black >= 2  # counted as ink if the streak is not left out
    left_out = interior_black(img, m, TARGET, streak)
    assert left_out.black == 0 and left_out.sampled < with_streak.sampled
    assert entry["black_share"] == 0.0 and entry["scan"] == "ambiguous"
