"""What real paper does to a template-set page: creases, sideways feeds, boxes, shapes side by side."""

from __future__ import annotations

import numpy as np

from tabulate.detect.classify import scan_class
from tabulate.detect.register import Registration
from tabulate.detect.score import _floors
from tabulate.detect.settings import DEFAULT_SETTINGS
from tabulate.election.model import Thresholds
from tabulate.kernels import FEATURES, F
from tabulate.templates.creases import crease_rows
from tabulate.templates.placement import columns_upright as _columns_upright

DPI = 100.0
TH = Thresholds(0.035, 0.18)


def _page() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    img = np.clip(rng.normal(235, 2, (int(14 * DPI) + 40, int(8.5 * DPI) + 40)), 0, 255).astype(np.uint8)
    affine = np.array([[DPI, 0.0, 20.0], [0.0, DPI, 20.0]])  # page inches -> image px, 0.2 in overscan
    return img, affine


def test_a_crease_runs_through_both_margins_and_writing_in_one_margin_is_not_one():
    img, affine = _page()
    img[20 + 500 : 20 + 502, :] -= 18  # a fold 5 in down, across the whole page
    img[20 + 800 : 20 + 803, 20 + 15 : 20 + 38] = 60  # initials in the left margin only, 8 in down
    rows = crease_rows(img, affine, (8.5, 14.0))
    assert len(rows) == 1 and abs(rows[0] - 5.01) < 0.02


def test_a_clean_page_has_no_crease():
    img, affine = _page()
    assert crease_rows(img, affine, (8.5, 14.0)) == ()


def _reg(affine: np.ndarray) -> Registration:
    return Registration(affine, 0, 0.0, (1.0, 1.0), DPI, 0.0, 235.0, 25.0, 0.5, ())


def test_a_sideways_page_is_scored_turned_with_the_same_pixels_under_each_point():
    img, affine = _page()
    img = np.ascontiguousarray(np.rot90(img, 3))  # fed sideways: page x now runs down the image
    sideways = np.array([[0.0, -DPI, (img.shape[1] - 1) - 20.0], [DPI, 0.0, 20.0]])
    upright, reg = _columns_upright(img, _reg(sideways))
    assert abs(reg.affine[0, 0]) > abs(reg.affine[0, 1])  # page x runs along the columns again
    for x, y in ((1.0, 2.0), (7.5, 13.0), (4.2, 0.7)):
        c0, r0 = sideways @ np.array([x, y, 1.0])
        c1, r1 = reg.affine @ np.array([x, y, 1.0])
        assert img[int(round(r0)), int(round(c0))] == upright[int(round(r1)), int(round(c1))]
    same, reg2 = _columns_upright(upright, reg)
    assert same is upright and reg2 is reg


def _f(**values) -> list[float]:
    row = [0.0] * len(FEATURES)
    for name, v in values.items():
        row[F[name]] = v
    return row


def test_an_x_in_a_small_box_is_marginal_and_a_majority_fill_is_marked():
    s = DEFAULT_SETTINGS
    x = _f(score=0.45, dark=0.68, crossings=3, deep=0.9)
    fill = _f(score=0.7, dark=0.72, crossings=1, deep=0.9)
    assert scan_class(x, TH, s, "box") == "marginal"
    assert scan_class(fill, TH, s, "box") == "marked"
    assert scan_class(x, TH, s, "oval") == "marked"  # ovals keep their own rule (4 crossings, 0.65)


def test_each_target_shape_has_its_own_blank_level():
    arrows = [_f(score=0.0, deep=0.006)] * 20
    boxes = [_f(score=v) for v in (0.012, 0.015, 0.02, 0.017)]
    floors = _floors(arrows + boxes, ["arrow"] * 20 + ["box"] * 4, TH, DEFAULT_SETTINGS)
    assert floors["arrow"] < 0.01 and floors["box"] > 0.015
    assert scan_class(boxes[2], TH, DEFAULT_SETTINGS, "box", floors["box"]) == "unmarked"


def test_vendor_pdf_blanks_are_byte_identical_run_to_run(tmp_path):
    import json
    from pathlib import Path

    from tabulate.ballots.vendor.write import write_blanks
    from tabulate.election import parse_election

    doc = json.loads((Path(__file__).parents[1] / "samples" / "general" / "election.json").read_text("utf-8"))
    arrows = parse_election({**doc, "paper_size": "legal", "target_shape": "arrow"})
    a = write_blanks(arrows, "arrows", tmp_path / "a", styles=("3",))
    b = write_blanks(arrows, "arrows", tmp_path / "b", styles=("3",))
    assert a[0].read_bytes() == b[0].read_bytes()
    assert b"/CreationDate (D:20281107" in a[0].read_bytes()  # the election day, not the clock


def _arrow_page(deep_of_last: float, y_of_last: float):
    """A page of 20 blank arrows (darkest tenth 0.006) and one more with ``deep_of_last``, 0.1 in tall."""
    from types import SimpleNamespace

    from tabulate.election.geometry import Rect

    targets = [
        SimpleNamespace(
            contest_id="c", option_id=f"o{i}", kind="candidate", shape="arrow", bounds=Rect(1.0, 1.0 + i / 2, 0.5, 0.1)
        )
        for i in range(20)
    ]
    targets.append(
        SimpleNamespace(**{**vars(targets[0]), "option_id": "last", "bounds": Rect(1.0, y_of_last, 0.5, 0.1)})
    )
    feats = np.array([_f(score=0.0, deep=0.006)] * 20 + [_f(score=0.0, deep=deep_of_last)])
    return SimpleNamespace(targets=targets), feats


def _read_with_creases(deep_of_last: float, creases: tuple[float, ...]) -> tuple[str, int]:
    """The last arrow's scanner class, and how often the page's creases were asked for."""
    from tabulate.detect.score import score_page

    tpl, feats = _arrow_page(deep_of_last, 12.0)
    calls = []

    def find() -> tuple[float, ...]:
        calls.append(1)
        return creases

    targets, _flags = score_page(
        None, None, None, "s", 1, DEFAULT_SETTINGS, tpl=tpl, thresholds=TH, creases_in=find, features=feats
    )
    return targets[-1].scan, len(calls)


def test_creases_are_looked_for_only_when_the_blank_level_alone_makes_a_target_marginal():
    # A gap whose darkest tenth stands 0.035 above the page's arrows' level is marginal (a faint
    # erasure) unless a crease runs through it; finding creases is then worth its cost, else never.
    assert _read_with_creases(0.006, (12.05,)) == ("unmarked", 0)
    assert _read_with_creases(0.2, (12.05,)) == ("unmarked", 1)  # the fold explains the faint line
    assert _read_with_creases(0.2, (5.0,)) == ("marginal", 1)  # a fold elsewhere does not
    assert _read_with_creases(0.2, ()) == ("marginal", 1)
