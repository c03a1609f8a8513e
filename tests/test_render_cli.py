"""`tabulate ballots render`: blank ballots as PNG pages or a printable PDF, with layouts; same bytes every run."""

from __future__ import annotations

import io
import json
import re
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

from tabulate.cli import main
from tabulate.election import load_election
from tabulate.election.layout import layout_style
from tabulate.election.render import pdf_bytes, render_sheet

REPO = Path(__file__).parents[1]
GENERAL = REPO / "samples" / "general" / "election.json"
PRIMARY = REPO / "samples" / "primary" / "election.json"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_render_png_writes_both_pages_of_every_precinct_and_each_style_layout(tmp_path, capsys):
    assert main(["ballots", "render", str(GENERAL), "--out", str(tmp_path / "b"), "--dpi", "50"]) == 0
    election = load_election(GENERAL)
    names = set(_files(tmp_path / "b"))
    for style in election.ballot_styles:
        assert f"style-{style.id}-layout.json" in names
        for precinct in style.precincts:
            assert {f"style-{style.id}-{precinct}-page-1.png", f"style-{style.id}-{precinct}-page-2.png"} <= names
    page = Image.open(tmp_path / "b" / "style-1-A101-page-1.png")
    assert page.size == (425, 550) and page.mode == "L"  # letter at 50 dpi
    assert "wrote" in capsys.readouterr().out


def test_layout_json_is_the_styles_layout(tmp_path):
    main(["ballots", "render", str(GENERAL), "--out", str(tmp_path), "--dpi", "50", "--style", "2"])
    election = load_election(GENERAL)
    written = json.loads((tmp_path / "style-2-layout.json").read_text())
    assert written == json.loads(json.dumps(layout_style(election, "2").to_dict()))
    assert not (tmp_path / "style-1-layout.json").exists()


def test_rendering_twice_gives_the_same_bytes(tmp_path):
    styles = ["--style", "REP-2", "--style", "NP"]
    for run in ("a", "b"):
        assert main(["ballots", "render", str(PRIMARY), "--out", str(tmp_path / run), "--dpi", "60", *styles]) == 0
        assert (
            main(
                [
                    "ballots",
                    "render",
                    str(PRIMARY),
                    "--out",
                    str(tmp_path / f"{run}pdf"),
                    "--dpi",
                    "60",
                    "--format",
                    "pdf",
                    *styles,
                ]
            )
            == 0
        )
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert _files(tmp_path / "apdf") == _files(tmp_path / "bpdf")


def _pdf_pages(data: bytes) -> list[np.ndarray]:
    """Decode the page images of one of our PDFs (Flate, 8-bit gray)."""
    images = []
    for m in re.finditer(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", data):
        w, h, n = (int(g) for g in m.groups())
        raw = zlib.decompress(data[m.end() : m.end() + n])
        images.append(np.frombuffer(raw, np.uint8).reshape(h, w))
    return images


def test_pdf_has_two_letter_pages_holding_the_front_and_back_losslessly(tmp_path):
    assert (
        main(
            [
                "ballots",
                "render",
                str(GENERAL),
                "--out",
                str(tmp_path),
                "--dpi",
                "72",
                "--format",
                "pdf",
                "--style",
                "1",
            ]
        )
        == 0
    )
    data = (tmp_path / "style-1-A101.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert b"/Count 2" in data and data.count(b"/Type /Page ") == 2
    assert data.count(b"/MediaBox [0 0 612.0000 792.0000]") == 2  # letter, in points
    assert b"CreationDate" not in data and b"DCTDecode" not in data
    election = load_election(GENERAL)
    pages = render_sheet(election, layout_style(election, "1"), "A101", dpi=72)
    decoded = _pdf_pages(data)
    assert len(decoded) == 2
    for got, want in zip(decoded, pages):
        np.testing.assert_array_equal(got, want)


def test_pdf_xref_offsets_point_at_their_objects():
    data = pdf_bytes([np.full((20, 10), 255, np.uint8)], 10)
    xref = int(data.rsplit(b"startxref\n", 1)[1].split()[0])
    rows = data[xref:].split(b"\n")[3:]
    for n, row in enumerate(rows[:5], start=1):
        offset = int(row.split()[0])
        assert data[offset:].startswith(b"%d 0 obj" % n)


def test_render_to_an_unwritable_folder_is_one_line_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["ballots", "render", str(GENERAL), "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tabulate: cannot write to") and "\n" not in err


def test_render_bad_election_and_unknown_style_are_usage_errors(tmp_path, capsys):
    bad = tmp_path / "election.json"
    bad.write_text("{not json")
    assert main(["ballots", "render", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["ballots", "render", str(GENERAL), "--out", str(tmp_path / "o"), "--style", "9"]) == 2
    assert "no ballot style '9'" in capsys.readouterr().err
    assert main(["ballots", "render", str(GENERAL), "--out", str(tmp_path / "o"), "--dpi", "5"]) == 2


def test_png_pages_carry_their_resolution(tmp_path):
    main(["ballots", "render", str(GENERAL), "--out", str(tmp_path), "--dpi", "40", "--style", "3"])
    img = Image.open(io.BytesIO((tmp_path / "style-3-C301-page-2.png").read_bytes()))
    assert tuple(round(v) for v in img.info["dpi"]) == (40, 40)
