"""A batch scanned in the scanner's error-diffusion ("halftone", "dither") mode is named to the clerk.

Such a page is read from the grey its dots stand for (`tabulate.detect.dither`), but less sharply: under
31 KAR 6:030 Section 3(1)(a) a person counts "The majority of an oval, box, or space designating a
candidate or question choice is filled in", and what a person and the reader judge is the image. Each
page read so is flagged ``error_diffused`` in its evidence; `tabulate scan` and `tabulate status` say
how many pages of which batch, and what to change on the scanner.
"""

from __future__ import annotations

import json
from pathlib import Path

from test_detect_dither import _g4  # one G4 writer for both files

from tabulate.ballots.simulate import simulate_sheet
from tabulate.central.diffused import CODE, REMEDY, diffused_warning
from tabulate.central.vanish import SheetLook, sheet_look
from tabulate.cli import main
from tabulate.core.vocabulary import ERROR_DIFFUSED_FLAG
from tabulate.detect import read_pages
from tabulate.detect.dither import DIFFUSED_FLAG
from tabulate.election import load_election

ELECTION = Path(__file__).parents[1] / "samples" / "general" / "election.json"


def _look(pages=2, diffused=0) -> SheetLook:
    return SheetLook(bitonal=True, contests=10, blank_contests=2, pages=pages, faint_pages=0, diffused_pages=diffused)


def test_one_diffused_page_warns_and_says_how_many_and_what_to_change():
    w = diffused_warning("tub 4", [_look(), _look(diffused=1), None, _look()])
    assert w is not None and (w.batch, w.code) == ("tub 4", CODE)
    assert w.message.startswith("batch 'tub 4': 1 of its 6 read pages looked error-diffused")
    assert w.message.endswith("set the scanner to a fixed threshold or to greyscale") and REMEDY in w.message
    assert diffused_warning("tub 4", [_look()] * 50 + [None]) is None
    sampled = diffused_warning("big", [_look(diffused=2)] * 3, step=100)
    assert sampled is not None and "6 of 6 read pages looked at (1 sheet in 100)" in sampled.message


def test_sheet_look_counts_the_flag_in_the_stored_evidence():
    from tabulate.core.votes import BallotVotes, ContestVotes

    votes = BallotVotes("b", "s1", (ContestVotes("c0", "valid"),))
    page = {"ok": True, "paper": 236.0, "ink": 30.0}
    evidence = {"pages": [{**page, "flags": ["error_diffused"]}, {**page, "flags": []}]}
    assert sheet_look(evidence, votes).diffused_pages == 1
    assert sheet_look({"pages": [page, page]}, votes).diffused_pages == 0  # older evidence: no flags key
    assert DIFFUSED_FLAG == ERROR_DIFFUSED_FLAG == "error_diffused"


def test_the_reader_flags_a_diffused_g4_page_and_no_thresholded_one():
    election = load_election(ELECTION)
    page = simulate_sheet(election, 2, 2024).pages[0]
    dots, solid = (read_pages(election, _g4(page, d))[0] for d in (True, False))
    assert dots.ok and solid.ok, (dots.reason, solid.reason)
    assert DIFFUSED_FLAG in dots.flags and DIFFUSED_FLAG not in solid.flags
    assert DIFFUSED_FLAG not in read_pages(election, _g4(page, False))[0].to_dict()["flags"]


def _batch(folder: Path, sheets: dict[int, bool]) -> Path:
    """Sheets of the sample election (seed 2024) as G4 TIFF files, each dithered or thresholded."""
    election = load_election(ELECTION)
    folder.mkdir()
    for n, diffuse in sheets.items():
        front, back = simulate_sheet(election, n, 2024, population="clean").pages
        (folder / f"sheet-{n:05d}-front.tif").write_bytes(_g4(front, diffuse))
        (folder / f"sheet-{n:05d}-back.tif").write_bytes(_g4(back, diffuse))
    return folder


def _scan(folder: Path, db: Path, batch: str) -> int:
    args = ["scan", str(folder), "--election", str(ELECTION), "--db", str(db), "--batch", batch]
    return main([*args, "--vote-type", "election_day", "--workers", "1", "--no-progress"])


def test_scan_and_status_warn_for_the_batch_with_a_dithered_page_only(tmp_path, capsys):
    db = tmp_path / "county.db"
    assert _scan(_batch(tmp_path / "tub1", {1: True, 2: False}), db, "tub 1") == 0
    out = capsys.readouterr().out
    line = f"WARNING [{CODE}]: batch 'tub 1': 2 of its 4 read pages looked error-diffused"
    assert line in out and "set the scanner to a fixed threshold or to greyscale" in out
    assert _scan(_batch(tmp_path / "tub2", {3: False, 4: False}), db, "tub 2") == 0
    assert CODE not in capsys.readouterr().out

    assert main(["status", "--db", str(db)]) == 0
    status = capsys.readouterr().out
    assert status.count(CODE) == 1 and line in status and "'tub 2'" not in status.split("WARNING")[1]
    assert main(["status", "--db", str(db), "--json"]) == 0
    batches = {b["name"]: b["warnings"] for b in json.loads(capsys.readouterr().out)["batches"]}
    assert [w["code"] for w in batches["tub 1"]] == [CODE] and batches["tub 2"] == []
