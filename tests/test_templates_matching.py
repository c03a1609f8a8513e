"""Which blank a page shows, by matching (issue #11, "Which page is this?"): the whole frame at 25 DPI, and
where two close blanks differ at 50 DPI, sampled from the page alone.

The issue's rule: "A page that matches no template is refused with a reason, and so is one that matches two
templates about equally." Blanks here are drawn at 50 DPI (`MATCH_DPI`) and the page is one of them as a
scanner gives it (grey paper, grey print, blur, grain), registered exactly: what is tested is the criterion.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from tabulate.detect.errors import ReadError
from tabulate.detect.register import Registration
from tabulate.templates import matching
from tabulate.templates.align import MATCH_DPI, unit
from tabulate.templates.matching import (
    MIN_MATCH,
    SCREEN_DPI,
    SCREEN_MARGIN,
    SURE_MATCH,
    MatchBasis,
    PagePixels,
    confirm_code,
    frame_as_blank,
    levels_table,
    match_page,
    screen_image,
)

W_IN, H_IN = 8.5, 11.0
SHAPE = (round(H_IN * MATCH_DPI), round(W_IN * MATCH_DPI))  # (550, 425)
AFFINE = np.array([[MATCH_DPI, 0.0, 0.0], [0.0, MATCH_DPI, 0.0]])  # page inches -> the page's 50 DPI pixels


def _blank(names: tuple[str, ...] | None, seed: int = 1) -> np.ndarray:
    """A grey blank (paper 255, print 0) at 50 DPI: a heading, two contest boxes of ovals and names; the
    second contest's names are ``names`` (None: left empty)."""
    img = np.full(SHAPE, 255, np.uint8)
    cv2.putText(img, "OFFICIAL BALLOT", (60, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 2)
    cv2.putText(img, "GENERAL ELECTION", (80, 70), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 0, 2)
    first = ("ADAMS", "BAKER", "CLARK")
    for box, (top, rows) in enumerate(((100, first), (300, names))):
        cv2.rectangle(img, (30, top), (395, top + 170), 0, 2)
        cv2.putText(img, f"CONTEST {box + 1}", (45, top + 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 0, 2)
        for i in range(3):
            cv2.ellipse(img, (60, top + 65 + 40 * i), (10, 7), 0, 0, 360, 0, 1)
            if rows is not None:
                cv2.putText(img, rows[i], (85, top + 72 + 40 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 0, 2)
    return img


def _scanned(blank: np.ndarray, seed: int, grain: float = 12.0) -> np.ndarray:
    """``blank`` as a scanner gives it at 50 DPI: paper 232, print 45, a little blur, seeded grain."""
    rng = np.random.default_rng(seed)
    grey = 45.0 + (232.0 - 45.0) * cv2.GaussianBlur(blank.astype(np.float32), (0, 0), 0.7) / 255.0
    return np.clip(grey + rng.normal(0, grain, grey.shape), 0, 255).astype(np.uint8)


def _set(monkeypatch, blanks: dict[str, np.ndarray], alike: bool = False):
    """A template set of these blanks (one page each, style = key), as `match_page` sees it; ``alike``:
    their targets are the same options at the same places (`same_targets`)."""
    at = SimpleNamespace(x=1.0, y=2.0)
    pages = {
        key: SimpleNamespace(
            key=key,
            page=1,
            style_id=key,
            layout=SimpleNamespace(
                targets=(SimpleNamespace(contest_id="c2", option_id="o" if alike else key, bounds=at),)
            ),
        )
        for key in blanks
    }
    ink = {key: 255.0 - b.astype(np.float32) for key, b in blanks.items()}
    prep = {key: SimpleNamespace(match=ink[key], match_unit=unit(ink[key]), blank=blanks[key]) for key in blanks}
    monkeypatch.setattr(matching, "prepared", lambda tset, p: prep[p.key])
    tset = SimpleNamespace(folder=f"test-matching-{'-'.join(blanks)}-{alike}", pages=tuple(pages.values()))
    return tset, MatchBasis.of(tset)


def _match(tset, bases, half: np.ndarray):
    reg = Registration(AFFINE, 0, 0.0, (1.0, 1.0), 100.0, 0.0, 232.0, 45.0, 0.5, ())
    frame = frame_as_blank(screen_image(half), AFFINE / 2, W_IN, H_IN, reg, SCREEN_DPI)
    return frame, match_page(tset, bases, frame, PagePixels(half, AFFINE, levels_table(reg)), half, 232.0)


def test_two_templates_differing_in_one_contest_are_told_apart_where_they_differ(monkeypatch):
    a, b = _blank(("ALICE", "BOB", "CAROL")), _blank(("DAVID", "EMMA", "FRANK"))
    tset, bases = _set(monkeypatch, {"A": a, "B": b})
    for key, blank in (("A", a), ("B", b)):
        frame, (win, twin) = _match(tset, bases, _scanned(blank, seed=3))
        assert (win.key, twin) == (key, False)
        # Close over the whole frame: the pixels where the blanks differ decided, not the frame's margin.
        (r1, _p1), (r2, _p2) = bases[frame.shape].correlations(frame)
        assert r1 - r2 < SCREEN_MARGIN


def test_a_page_matching_two_templates_about_equally_is_refused(monkeypatch):
    """The second contest left without names (a misprint, or a cover over it): nearer neither blank."""
    a, b = _blank(("ALICE", "BOB", "CAROL")), _blank(("DAVID", "EMMA", "FRANK"))
    tset, bases = _set(monkeypatch, {"A": a, "B": b})
    with pytest.raises(ReadError) as e:
        _match(tset, bases, _scanned(_blank(None), seed=4))
    assert e.value.code == "template_ambiguous"


def test_a_set_of_one_template_reads_its_page_and_refuses_another(monkeypatch):
    a = _blank(("ALICE", "BOB", "CAROL"))
    tset, bases = _set(monkeypatch, {"A": a})
    _frame, (win, _twin) = _match(tset, bases, _scanned(a, seed=5))
    assert win.key == "A"
    other = np.full(SHAPE, 255, np.uint8)  # another vendor's page: a grid of boxes, no text where A prints
    for y in range(40, 520, 60):
        cv2.rectangle(other, (250, y), (410, y + 40), 0, 3)
    with pytest.raises(ReadError) as e:
        _match(tset, bases, _scanned(other, seed=6))
    assert e.value.code == "no_template_match"


def test_a_winner_not_clear_at_25_dpi_is_held_to_the_whole_frame_at_50_dpi(monkeypatch):
    """Heavy grain the 25 DPI step smooths away: there the page correlates over `MIN_MATCH` (not over
    `SURE_MATCH`), at 50 DPI under it, and the 50 DPI figure decides, as before the 25 DPI screen."""
    a = _blank(("ALICE", "BOB", "CAROL"))
    tset, bases = _set(monkeypatch, {"A": a})
    half = _scanned(a, seed=7, grain=150.0)
    reg = Registration(AFFINE, 0, 0.0, (1.0, 1.0), 100.0, 0.0, 232.0, 45.0, 0.5, ())
    screen = frame_as_blank(screen_image(half), AFFINE / 2, W_IN, H_IN, reg, SCREEN_DPI)
    whole = frame_as_blank(half, AFFINE, W_IN, H_IN, reg)
    ink = 255.0 - a.astype(np.float32)
    assert MIN_MATCH <= float(unit(screen) @ unit(cv2.pyrDown(ink))) < SURE_MATCH
    assert float(unit(whole) @ unit(ink)) < MIN_MATCH
    with pytest.raises(ReadError) as e:
        _match(tset, bases, half)
    assert e.value.code == "no_template_match"


def test_pixels_sampled_where_blanks_differ_are_the_50_dpi_frames_pixels():
    rng = np.random.default_rng(11)
    half = cv2.GaussianBlur(rng.integers(0, 256, (600, 450), dtype=np.uint8), (0, 0), 1.5)
    affine = np.array([[49.8, 0.9, 7.3], [-0.9, 50.2, 11.1]])  # a skewed, shifted page
    reg = Registration(affine, 0, 0.0, (1.0, 1.0), 100.0, 0.0, 230.0, 40.0, 0.5, ())
    frame = frame_as_blank(half, affine, W_IN, H_IN, reg)
    # More points than `cv2.remap` takes in one row (32,767): the sampler splits them into rows.
    where = np.sort(rng.choice(frame.size, 40000, replace=False))
    got = PagePixels(half, affine, levels_table(reg)).at(where, frame.shape[1])
    # Two samplers' fixed-point rounding: within one grey level, scaled by the levels (255 / 190).
    assert np.abs(got - frame.ravel()[where]).max() <= 2.0
    assert PagePixels(half, affine, levels_table(reg)).at(np.zeros(0, np.int64), frame.shape[1]).size == 0


def test_a_page_whose_code_names_one_template_but_prints_another_is_refused(monkeypatch):
    """A mis-coded ballot (the code of style A on a page printed as style B): read against A, its marks
    would count for A's options where B prints others. The print, where the two blanks differ, says B."""
    a, b = _blank(("ALICE", "BOB", "CAROL")), _blank(("DAVID", "EMMA", "FRANK"))
    tset, _bases = _set(monkeypatch, {"A": a, "B": b})
    named_a, named_b = tset.pages
    reg = Registration(AFFINE, 0, 0.0, (1.0, 1.0), 100.0, 0.0, 232.0, 45.0, 0.5, ())
    page_b = PagePixels(_scanned(b, seed=8), AFFINE, levels_table(reg))
    confirm_code(tset, named_b, page_b)  # its own code: read
    with pytest.raises(ReadError) as e:
        confirm_code(tset, named_a, page_b)
    assert e.value.code == "template_code_mismatch" and "B" in e.value.reason
    # A page with the second contest's names missing is nearer neither: its code decides, as before.
    confirm_code(tset, named_a, PagePixels(_scanned(_blank(None), seed=9), AFFINE, levels_table(reg)))


def test_templates_printed_alike_are_told_apart_by_their_code_alone(monkeypatch):
    """Two styles whose page prints the same options at the same places (a precinct split): only the code
    names the style, and no mark depends on which, so the print is not held against the code."""
    a, b = _blank(("ALICE", "BOB", "CAROL")), _blank(("DAVID", "EMMA", "FRANK"))
    tset, _bases = _set(monkeypatch, {"A": a, "B": b}, alike=True)
    reg = Registration(AFFINE, 0, 0.0, (1.0, 1.0), 100.0, 0.0, 232.0, 45.0, 0.5, ())
    confirm_code(tset, tset.pages[0], PagePixels(_scanned(b, seed=10), AFFINE, levels_table(reg)))


def test_the_code_check_gives_each_blanks_share_and_correlation_as_the_matching_functions(monkeypatch):
    """`confirm_code` takes every other blank in one pass of sums; on the same pixels that must be the
    share and correlation `closer_share` and `differs_toward` give pair by pair (what `match_page` uses)."""
    from tabulate.templates.align import closer_share
    from tabulate.templates.likeness import differs_toward

    names = (("ALICE", "BOB", "CAROL"), ("DAVID", "EMMA", "FRANK"), ("GRACE", "HENRY", "IRIS"), None)
    blanks = {k: _blank(n) for k, n in zip("ABCD", names)}
    tset, _bases = _set(monkeypatch, blanks)
    reg = Registration(AFFINE, 0, 0.0, (1.0, 1.0), 100.0, 0.0, 232.0, 45.0, 0.5, ())
    pixels = PagePixels(_scanned(blanks["B"], seed=12, grain=40.0), AFFINE, levels_table(reg))
    c = matching._confirm_pixels(tset, tset.pages[0])
    assert [o.key for o in c.others] == ["B", "C", "D"]
    f = pixels.at(c.where, c.width)
    shares, towards = matching._toward_others(c, f)
    for k, (start, size) in enumerate(zip(c.starts, c.sizes)):
        run = slice(start, start + size)
        a, b = blanks["A"].ravel()[c.where[run]], blanks[c.others[k].key].ravel()[c.where[run]]
        a, b = 255.0 - a.astype(np.float32), 255.0 - b.astype(np.float32)
        share, toward = closer_share(f[run], b, a), differs_toward(f[run], b, a)
        assert shares[k] == share and towards[k] == pytest.approx(toward, abs=1e-6)  # float64 sums; ncc in float32
        assert (share >= 0.65 or toward >= 0.3) == (c.others[k].key == "B"), (c.others[k].key, share, toward)
    with pytest.raises(ReadError) as e:
        confirm_code(tset, tset.pages[0], pixels)
    assert "B's" in e.value.reason


def test_a_mis_coded_timing_page_is_refused_not_read_against_the_style_its_code_names(tmp_path):
    """End to end: the set's codes of style 2's and style 3's first pages swapped (as if the vendor had
    printed each style with the other's code). A style 3 page then carries the code the set maps to 2-p1;
    read against 2-p1 its marks would count for style 2's contests. It is refused, naming both."""
    import json

    from tabulate.ballots.vendor import simulate_vendor_sheet
    from tabulate.ballots.vendor.write import write_blanks
    from tabulate.election import load_election
    from tabulate.templates import TemplateReader, import_templates

    election = load_election(Path(__file__).parents[1] / "samples" / "general" / "election.json")
    import_templates(election, write_blanks(election, "timing", tmp_path / "blanks", styles=("2", "3")), tmp_path / "s")
    doc = json.loads((tmp_path / "s" / "templates.json").read_text())
    first = {p["style_id"]: p for p in doc["pages"] if p["page"] == 1}
    first["2"]["code"]["text"], first["3"]["code"]["text"] = first["3"]["code"]["text"], first["2"]["code"]["text"]
    (tmp_path / "s" / "templates.json").write_text(json.dumps(doc))
    images, truth = simulate_vendor_sheet(election, "timing", 0, 5)
    assert truth["style"] == "3"
    r = TemplateReader(str(tmp_path / "s")).read_image(election, images[0])
    assert r.reason_code == "template_code_mismatch", (r.style_id, r.page, r.reason)
    assert "names 2-p1" in r.reason and "3-p1's" in r.reason
