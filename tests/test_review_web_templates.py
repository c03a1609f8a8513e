"""The review app with a batch of ballots we did not print (issue #11, items 5 and 6).

A timing-mark vendor design (`tabulate.ballots.vendor`, no code shared with our
layout) is imported from its blanks, three voted sheets are scanned with
``tabulate scan --templates``, and the whole review runs on them: the queue,
the ballot page's zooms and crops cut from the template's geometry (not
ours), a decision, the explain page, the hand-to-eye audit's race picture and
the progress page's fill-score histogram. 31 KAR 6:030 Section 3(1): the
reviewers look at "the designated marking area" beside each target - on the
county's ballot, which is where the template set says it is.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import cv2
import numpy as np
import pytest
from argon2 import PasswordHasher
from test_adjudicate_support import FAST_HASHER, Browser, Env, app, env, fast_passwords, template_store  # noqa: F401

from tabulate.adjudicate import images, queue, users
from tabulate.ballots.samples import encode_page, sheet_file_name
from tabulate.ballots.vendor import simulate_vendor_sheet
from tabulate.ballots.vendor.write import write_blanks
from tabulate.cli import main
from tabulate.election import load_election
from tabulate.election.layout import layout_style
from tabulate.templates import JOURNAL_KIND, import_templates, load_set

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"
SEED = 11
#: Sheets 1, 3 and 5 of the stress voters (seed 11) are style 2, and every one has a mark a person must see.
SHEETS = (1, 3, 5)


@pytest.fixture(scope="session")
def tpl_built(tmp_path_factory):
    """The template set of style 2 (timing family), the scanned store with adjudication's people."""
    root = tmp_path_factory.mktemp("review-templates")
    election = load_election(GENERAL)
    blanks = write_blanks(election, "timing", root / "blanks", styles=("2",))
    import_templates(election, blanks, root / "set")
    files = []
    for k in SHEETS:
        imgs, truth = simulate_vendor_sheet(election, "timing", k, SEED, population="stress")
        assert truth["style"] == "2"
        for image, entry in zip(imgs, truth["images"]):
            data, ext = encode_page(image, fmt="png", bitonal=True, dpi=200)
            path = root / sheet_file_name(k, entry["side"], ext)
            path.write_bytes(data)
            files.append(str(path))
    db = root / "store.db"
    scan = [
        "scan",
        *files,
        "--election",
        str(GENERAL),
        "--db",
        str(db),
        "--vote-type",
        "election_day",
        "--allow-missing-styles",
    ]
    assert main([*scan, "--batch", "vendor", "--templates", str(root / "set"), "--no-progress", "--workers", "1"]) == 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(users, "_hasher", PasswordHasher(**FAST_HASHER))
        Env(db, create_users=True).close()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return root


@pytest.fixture
def tenv(tpl_built, tmp_path, fast_passwords):
    db = tmp_path / "store.db"
    shutil.copy(tpl_built / "store.db", db)
    e = Env(db, create_users=False)
    e.tset = load_set(tpl_built / "set")
    e.root = tpl_built
    yield e
    e.close()


@pytest.fixture
def tapp(tenv):
    from tabulate.adjudicate.web.app import create_app

    return create_app(tenv.db)


def _board(app):
    br = Browser(app)
    br.login("board1")
    return br


def _png(response) -> np.ndarray:
    assert response.status_code == 200 and response.headers["content-type"] == "image/png", response.text[:300]
    return cv2.imdecode(np.frombuffer(response.content, np.uint8), cv2.IMREAD_UNCHANGED)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float64) - a.mean(), b.astype(np.float64) - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def _blank_region(tenv, page: int, rect, shape) -> np.ndarray:
    """The template's own blank, cut at ``rect`` (inches, padded as the app pads) at the crop's size."""
    tp = tenv.tset.page_for("2", page)
    blank = cv2.imread(str(Path(tenv.tset.folder) / tp.blank_file), cv2.IMREAD_GRAYSCALE)
    pad = images.PAD_IN
    x0, y0 = round((rect.x - pad) * tp.dpi), round((rect.y - pad) * tp.dpi)
    x1, y1 = round((rect.x + rect.w + pad) * tp.dpi), round((rect.y + rect.h + pad) * tp.dpi)
    return cv2.resize(blank[y0:y1, x0:x1], (shape[1], shape[0]), interpolation=cv2.INTER_AREA)


def test_the_store_records_the_set_and_each_page_names_it(tenv):
    recorded = [e for e in tenv.store.journal() if e.kind == JOURNAL_KIND]
    assert len(recorded) == 1 and recorded[0].data["sha256"] == tenv.tset.digest
    for s in tenv.source.sheets("needs_review"):
        assert s.template_set == tenv.tset.digest and s.templates is not None
        assert {p.layout_page for p in s.pages} == {1, 2}


def test_scanning_another_batch_with_the_same_set_records_it_once(tenv):
    files = sorted(str(p) for p in tenv.root.glob("sheet-00002-*.tif"))
    scan = [
        "scan",
        *files,
        "--election",
        str(GENERAL),
        "--db",
        str(tenv.db),
        "--vote-type",
        "election_day",
        "--allow-missing-styles",
    ]
    assert main([*scan, "--batch", "again", "--templates", str(tenv.root / "set"), "--no-progress"]) == 0
    assert sum(e.kind == JOURNAL_KIND for e in tenv.store.journal()) == 1


def test_crops_are_cut_from_the_template_geometry_not_ours(tenv, tapp):
    """Each crop is where the template prints the target: it matches the blank there, and our own
    layout's box for the same option is elsewhere."""
    br = _board(tapp)
    sheet = next(iter(tenv.source.sheets("needs_review")))
    own = {(t.contest_id, t.option_id): t for p in layout_style(tenv.election, "2").pages for t in p.targets}
    checked = 0
    for tp in (tenv.tset.page_for("2", 1), tenv.tset.page_for("2", 2)):
        side = sheet.side_for(tp.page).side
        for t in tp.layout.targets:
            if t.contest_id not in ("us-senate", "president", "school-board-1"):
                continue
            crop = _png(br.get(f"/img/{sheet.sheet_id}/{side}/area/{t.contest_id}/{t.option_id}/marking.png"))
            region = t.marking_area
            x0, y0 = min(t.bounds.x, region.x), min(t.bounds.y, region.y)
            box = type(region)(x0, y0, region.x + region.w - x0, max(region.y + region.h, t.bounds.y + t.bounds.h) - y0)
            want_h = round((box.h + 2 * images.PAD_IN) * images.ZOOM_DPI)
            assert abs(crop.shape[0] - want_h) <= 2 and abs(crop.shape[1] - (box.w + 0.08) * images.ZOOM_DPI) <= 2
            assert _ncc(crop, _blank_region(tenv, tp.page, box, crop.shape)) > 0.5, t
            ours = own[(t.contest_id, t.option_id)].bounds
            assert abs(ours.x - t.bounds.x) + abs(ours.y - t.bounds.y) > 0.2  # the test can tell them apart
            if t.write_in_area is not None:
                w = _png(br.get(f"/img/{sheet.sheet_id}/{side}/area/{t.contest_id}/{t.option_id}/write_in.png"))
                assert _ncc(w, _blank_region(tenv, tp.page, t.write_in_area, w.shape)) > 0.5, t
            checked += 1
    assert checked >= 8


def test_a_team_reviews_a_template_ballot_end_to_end(tenv, tapp):
    from test_review_web import _team_at_one_screen

    queue.sync(tenv.conn, tenv.source)
    br = _team_at_one_screen(tapp)
    assert "0 of 3 decided" in br.get("/queue").text
    page = br.submit(br.get("/queue").text, "/queue/next")
    sheet_id = page.url.path.rsplit("/", 1)[-1]
    sheet = tenv.source.sheet(sheet_id)
    queued = set(tenv.election.adjudication.reasons)
    flagged = {r.contest_id for r in sheet.reasons if r.contest_id and r.code in queued}
    assert flagged
    for cid in flagged:  # every flagged contest's zoom, from the template page the reader used
        side = next(p.side for p in sheet.pages if cid in {c for c, _ in _layout(tenv, p.layout_page).contest_boxes})
        assert f'src="/img/{sheet_id}/{side}/contest/{cid}.png"' in page.text
        box = dict(_layout(tenv, sheet.pages[side - 1].layout_page).contest_boxes)[cid]
        zoom = _png(br.get(f"/img/{sheet_id}/{side}/contest/{cid}.png"))
        assert abs(zoom.shape[0] - (box.h + 2 * images.PAD_IN) * images.ZOOM_DPI) <= 2
    for _ in range(2):  # alice then bob enter: every open question answered "not a vote"
        page = br.get(f"/ballot/{sheet_id}")
        preview = br.submit(page.text, "/preview", undecided="0")
        assert preview.status_code == 200, preview.text
        br.submit(preview.text, "/record")
    assert _decided(tenv, sheet_id)
    assert "1 of 3 decided" in br.get("/queue").text


def _layout(tenv, page):
    return tenv.tset.page_for("2", page).layout


def _decided(tenv, sheet_id) -> bool:
    from tabulate.adjudicate import decisions

    return any(d.entry.sheet_id == sheet_id for d in decisions.decisions(tenv.conn))


def test_explain_names_the_template_set_and_shows_its_zooms(tenv, tapp):
    br = _board(tapp)
    sheet = next(iter(tenv.source.sheets("needs_review")))
    page = br.get(f"/ballot/{sheet.sheet_id}/explain")
    assert page.status_code == 200
    assert f"read with template set {tenv.tset.digest[:12]}, style 2 page 1" in page.text
    zooms = [u for u in page.text.split('src="')[1:] if "/contest/" in u]
    assert zooms
    for u in zooms:
        assert _png(br.get(u.split('"', 1)[0])).shape[1] > 100


def test_the_audit_race_picture_is_the_template_contest_box(tenv):
    from tabulate.audit.handeye.crops import race_image

    sheet = next(iter(tenv.source.sheets("needs_review")))
    box = dict(_layout(tenv, 1).contest_boxes)["president"]
    png = race_image(tenv.source, int(sheet.sheet_id), "president")
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert abs(image.shape[0] - (box.h + 2 * images.PAD_IN) * images.ZOOM_DPI) <= 2


def test_the_progress_page_shows_the_fill_score_histogram_with_alt_text_and_a_table(tenv, tapp):
    br = Browser(tapp)
    br.login("oscar")  # the scanning clerk: sees progress, never a ballot
    page = br.get("/progress").text
    key = tenv.tset.digest[:12]
    src = f'src="/progress/scores/{key}.png?by=template"'
    assert src in page
    # 3 sheets x (19 + 17) targets of style 2's two template pages: every score is drawn.
    per_sheet = sum(len(tenv.tset.page_for("2", n).layout.targets) for n in (1, 2))
    assert f"Histogram of {3 * per_sheet} fill scores, template set {key}" in page
    assert f"marginal threshold {tenv.tset.marginal:.3f}" in page and '<th scope="row">style 2 page 1</th>' in page
    picture = _png(br.get(f"/progress/scores/{key}.png?by=template"))
    assert picture.shape[:2] == (480, 900)
    by_contest = br.get("/progress?by=contest").text
    assert '<th scope="row">President and Vice President</th>' in by_contest
    assert br.get("/progress/scores/nope.png").status_code == 404


def test_tabulate_scores_draws_the_recorded_sets_thresholds_without_templates_again(tenv, tmp_path, capsys):
    out = tmp_path / "scores.png"
    assert main(["scores", "--db", str(tenv.db), "--out", str(out)]) == 0
    line = capsys.readouterr().out
    assert f"(template set {tenv.tset.digest[:12]}, as the store records it)" in line
    assert cv2.imread(str(out)).shape[:2] == (480, 900)


def test_score_rows_cut_at_the_thresholds_as_the_classifier_does():
    from tabulate.report.scores import score_rows

    (row,) = score_rows({"style 2 page 1": [0.0, 0.01, 0.035, 0.1, 0.18, 0.9]}, 0.035, 0.18)
    assert (row.targets, row.below_marginal, row.between, row.definite) == (6, 2, 2, 2)


def test_our_own_ballots_get_their_picture_with_the_elections_thresholds(env, app):
    br = Browser(app)
    br.login("oscar")
    page = br.get("/progress").text
    assert 'src="/progress/scores/ours.png?by=template"' in page and "fill scores, our own ballots" in page
    assert f"marginal threshold {env.election.thresholds.marginal:.3f}" in page
    assert _png(br.get("/progress/scores/ours.png")).shape[:2] == (480, 900)


def test_a_recount_reads_the_countys_ballots_again_with_their_template_set(tenv, capsys):
    """31 KAR 4:220 Section 9(3): only a ballot that cannot be read after three attempts is set aside as
    damaged. Read with our own layout, every county ballot would be."""
    assert main(["recount", "--db", str(tenv.db), "--contest", "president", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    # The stress voters' marks on this race are all X marks and light ones: undervotes until people decide.
    assert "tabulator 1: 3 ballots, undervotes 3, overvotes 0, damaged 0" in out


def test_verify_images_finds_a_moved_set_only_when_given_it(tpl_built, tmp_path, capsys):
    moved = tmp_path / "set"
    shutil.copytree(tpl_built / "set", moved)
    db = tmp_path / "one.db"
    files = sorted(str(p) for p in tpl_built.glob("sheet-00002-*.tif"))
    scan = [
        "scan",
        *files,
        "--election",
        str(GENERAL),
        "--db",
        str(db),
        "--vote-type",
        "election_day",
        "--allow-missing-styles",
    ]
    assert main([*scan, "--batch", "one", "--templates", str(moved), "--no-progress", "--workers", "1"]) == 0
    shutil.rmtree(moved)
    capsys.readouterr()
    assert main(["verify", "--db", str(db), "--images"]) == 2
    err = capsys.readouterr().err
    assert "1 sheet(s) were read with template set" in err and "give it with --templates DIR" in err
    assert main(["verify", "--db", str(db), "--images", "--templates", str(tpl_built / "set")]) == 0
    assert "every reading matches the store" in capsys.readouterr().out
