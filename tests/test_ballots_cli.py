"""`tabulate samples make`: simulated scans on disk, named as a duplex scanner names them, with truth.json."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
from PIL import Image

from tabulate.ballots import MARK_KINDS, load_truth, simulate_sheet
from tabulate.cli import main
from tabulate.election import load_election

REPO = Path(__file__).parents[1]
GENERAL = REPO / "samples" / "general" / "election.json"
PRIMARY = REPO / "samples" / "primary" / "election.json"


def _make(out: Path, *extra: str, ballots: int = 3, seed: int = 4, election: Path = GENERAL) -> int:
    return main(
        [
            "samples",
            "make",
            str(election),
            "--out",
            str(out),
            "--ballots",
            str(ballots),
            "--seed",
            str(seed),
            "--dpi",
            "60",
            "--quiet",
            *extra,
        ]
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_make_writes_front_and_back_per_sheet_and_a_truth_file(tmp_path, capsys):
    assert _make(tmp_path / "s", "--bitonal-fraction", "0") == 0
    names = sorted(_files(tmp_path / "s"))
    assert names == [
        "sheet-00001-back.jpg",
        "sheet-00001-front.jpg",
        "sheet-00002-back.jpg",
        "sheet-00002-front.jpg",
        "sheet-00003-back.jpg",
        "sheet-00003-front.jpg",
        "truth.json",
    ]
    truth = load_truth(tmp_path / "s")
    assert truth["ballots"] == 3 and truth["seed"] == 4 and truth["dpi"] == 60
    assert truth["election"]["hash"] == load_election(GENERAL).hash
    assert set(truth["mark_kinds"]) == set(MARK_KINDS)
    for n, sheet in enumerate(truth["sheets"], start=1):
        assert [i["file"] for i in sheet["images"]] == [f"sheet-{n:05d}-front.jpg", f"sheet-{n:05d}-back.jpg"]
        assert all(i["format"] == "jpeg" for i in sheet["images"])
    assert "wrote 3 sheets" in capsys.readouterr().out


def test_images_on_disk_are_the_simulated_pages(tmp_path):
    _make(tmp_path, "--format", "png", "--bitonal-fraction", "0", ballots=2)
    election = load_election(GENERAL)
    sheet = simulate_sheet(election, 1, 4, dpi=60, population="realistic")  # the default of `samples make`
    front = np.asarray(Image.open(tmp_path / "sheet-00002-front.png"))
    np.testing.assert_array_equal(front, sheet.pages[0])
    assert load_truth(tmp_path)["sheets"][1]["targets"] == sheet.truth["targets"]


def test_bitonal_sheets_are_ccitt_group4_tiff(tmp_path):
    _make(tmp_path, "--bitonal-fraction", "1", ballots=2)
    for name in ("sheet-00001-front.tif", "sheet-00002-back.tif"):
        img = Image.open(tmp_path / name)
        assert img.mode == "1" and img.info["compression"] == "group4"
    assert all(i["format"] == "tiff_g4" and i["bitonal"] for s in load_truth(tmp_path)["sheets"] for i in s["images"])


def test_grayscale_tiff_is_deflated(tmp_path):
    _make(tmp_path, "--format", "tiff", "--bitonal-fraction", "0", ballots=1)
    img = Image.open(tmp_path / "sheet-00001-front.tif")
    assert img.mode == "L" and img.info["compression"] == "tiff_adobe_deflate"


def test_same_arguments_same_bytes_whatever_the_number_of_jobs(tmp_path):
    _make(tmp_path / "a", "--bitonal-fraction", "0.5", ballots=6)
    _make(tmp_path / "b", "--bitonal-fraction", "0.5", "--jobs", "2", ballots=6)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a == b
    assert any(n.endswith(".tif") for n in a) and any(n.endswith(".jpg") for n in a)


def test_refuses_to_mix_with_earlier_scans_unless_forced(tmp_path, capsys):
    assert _make(tmp_path, ballots=3) == 0
    assert _make(tmp_path, ballots=1) == 2
    err = capsys.readouterr().err.strip()
    assert "already holds simulated scans" in err and "\n" not in err
    assert _make(tmp_path, "--force", ballots=1) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet-00001-back.jpg", "sheet-00001-front.jpg", "truth.json"]


def test_user_mistakes_are_one_line_errors(tmp_path, capsys):
    assert _make(tmp_path, ballots=0) == 2
    assert _make(tmp_path, "--bitonal-fraction", "1.5") == 2
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert _make(blocker) == 2
    errs = capsys.readouterr().err.strip().splitlines()
    assert len(errs) == 3 and all(e.startswith("tabulate: ") for e in errs)
    assert (
        main(
            [
                "samples",
                "make",
                str(tmp_path / "missing.json"),
                "--out",
                str(tmp_path / "o"),
                "--ballots",
                "1",
                "--seed",
                "1",
            ]
        )
        == 2
    )


def test_primary_samples(tmp_path):
    assert _make(tmp_path, election=PRIMARY, ballots=4, seed=9) == 0
    truth = json.loads((tmp_path / "truth.json").read_text())
    styles = {s.id for s in load_election(PRIMARY).ballot_styles}
    assert {s["style"] for s in truth["sheets"]} <= styles
    assert all(not s["straight_party"] for s in truth["sheets"])


def test_jpeg_quality_is_about_85(tmp_path):
    _make(tmp_path, "--bitonal-fraction", "0", ballots=1)
    img = Image.open(io.BytesIO((tmp_path / "sheet-00001-front.jpg").read_bytes()))
    q = img.quantization[0]
    # libjpeg scales the standard luminance table (first entry 16) by (200 - 2 * 85) / 100 at quality 85.
    assert q[0] == round(16 * 0.3)


def test_committed_demo_scans_belong_to_the_sample_election():
    scans = REPO / "samples" / "general" / "scans"
    truth = load_truth(scans)
    regenerate = (
        "regenerate them: tabulate samples make samples/general/election.json --out samples/general/scans "
        "--ballots 18 --seed 2032 --format jpeg --bitonal-fraction 0.2 --force"
    )
    # The style code on every page carries the election's hash: stale scans read as another election's.
    assert truth["election"]["hash"] == load_election(GENERAL).hash, regenerate
    files = {i["file"] for s in truth["sheets"] for i in s["images"]}
    assert files == {p.name for p in scans.iterdir() if p.name != "truth.json"}
    assert sum(p.stat().st_size for p in scans.iterdir()) <= 6 * 1024 * 1024
