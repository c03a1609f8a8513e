"""Scans real scanners make that our simulator does not (issue #11, `benchmarks/templates_variants.py`).

Each test is one page that the reader got wrong before it was fixed: a scan
area larger than the page (the scanner's black background above and below
the paper) read every column as a scanner streak and every mark as paper; a
page fed off-centre, one edge cut and black background beside the other,
was refused (the black frame pulled the registration off the print).
"""

from __future__ import annotations

import numpy as np

from tabulate.detect.streaks import streak_columns

DPI = 100


def _page_with_a_streak(border_in: float) -> np.ndarray:
    """A 4 x 6 in page at 100 DPI: paper 245, a printed line of text, one dust streak down column 200;
    on a black background ``border_in`` deep above and below it."""
    page = np.full((600, 400), 245, np.uint8)
    page[300:310, 50:350] = 20  # print
    page[:, 200] = 150  # the streak: the whole height of the image
    b = round(border_in * DPI)
    out = np.full((600 + 2 * b, 400), 18, np.uint8)
    out[b : b + 600] = page
    out[:, 200] = np.where(out[:, 200] > 100, 150, out[:, 200])
    return out


def test_a_streak_is_found_below_the_scanners_black_background_and_the_background_is_no_streak():
    """The streak bands are the paper's first and last 0.03-0.15 in, not the image's: with 0.3 in of
    black above and below the page, every column used to read as a streak, so the target kernel
    skipped them all and every mark on the page read as unmarked."""
    for border in (0.0, 0.3):
        got = streak_columns(_page_with_a_streak(border), DPI, 245.0, 20.0)
        assert np.flatnonzero(got).tolist() == [200], border


def test_a_page_on_the_scanners_black_background_reads_its_marks(tmp_path):
    """The whole path on one boxes page scanned with 0.3 in of black background all round: every mark
    the voter made must read as it does without the background (it read unmarked: a lost vote)."""
    from pathlib import Path

    from tabulate.ballots.vendor import simulate_vendor_sheet
    from tabulate.ballots.vendor.write import write_blanks
    from tabulate.election import load_election
    from tabulate.templates import TemplateReader, import_templates

    election = load_election(Path(__file__).parents[1] / "samples" / "general" / "election.json")
    images, truth = next(
        (ims, t) for k in range(8) for ims, t in [simulate_vendor_sheet(election, "boxes", k, 5)] if t["style"] == "2"
    )
    import_templates(
        election, write_blanks(election, "boxes", tmp_path / "b", styles=("2",)), tmp_path / "s", score=False
    )
    reader = TemplateReader(str(tmp_path / "s"))
    page = images[0]
    m = 90  # 0.3 in at 300 DPI
    framed = np.full((page.shape[0] + 2 * m, page.shape[1] + 2 * m), 18, np.uint8)
    framed[m:-m, m:-m] = page
    plain, boxed = (reader.read_image(election, im, source="p") for im in (page, framed))
    assert plain.ok and boxed.ok, boxed.reason
    fills = {(t["contest"], t["option"]) for t in truth["targets"] if t["kind"] == "full_fill"}
    marked = {(t.contest_id, t.option_id) for t in plain.targets if t.scan == "marked"}
    assert fills & marked  # the page holds marks to lose
    assert [(t.option_id, t.scan) for t in boxed.targets] == [(t.option_id, t.scan) for t in plain.targets]


def _on_black(page: np.ndarray, margin: int, dx: int) -> np.ndarray:
    """``page`` on a black scan background ``margin`` px wide, moved ``dx`` px sideways (past the margin: cut)."""
    h, w = page.shape
    out = np.full((h + 2 * margin, w + 2 * margin), 18, np.uint8)
    x0 = margin + dx
    src = page[:, max(0, -x0) :]
    out[margin : margin + h, max(0, x0) : max(0, x0) + src.shape[1]] = src[:, : out.shape[1] - max(0, x0)]
    return out


def test_a_page_fed_off_centre_with_its_edge_cut_is_registered(tmp_path):
    """A timing-mark back page fed 0.4 in off-centre on a scanner wider than the paper: 0.15 in of its left
    edge (and a sliver of every left timing mark) cut off, 0.65 in of black background on its right. The
    black frame drew the coarse fit off the print: refused `registration_residual` (0 of 18 anchors on the
    wrong template). With the background painted over as paper it reads as the page it is."""
    from pathlib import Path

    from tabulate.ballots.vendor import simulate_vendor_sheet
    from tabulate.ballots.vendor.write import write_blanks
    from tabulate.election import load_election
    from tabulate.templates import TemplateReader, import_templates

    election = load_election(Path(__file__).parents[1] / "samples" / "general" / "election.json")
    blanks = write_blanks(election, "timing", tmp_path / "b", styles=("1", "2"))
    import_templates(election, blanks, tmp_path / "s", score=False)
    reader = TemplateReader(str(tmp_path / "s"))
    images, truth = simulate_vendor_sheet(election, "timing", 1, 2026, population="realistic")
    back = next(i for i, im in enumerate(truth["images"]) if im["page"] == 2)
    page = reader.read_image(election, _on_black(images[back], 50, -80), source="back")
    assert page.ok, page.reason
    assert (page.style_id, page.page) == (truth["style"], 2)
