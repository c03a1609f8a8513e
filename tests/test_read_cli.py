"""``tabulate read``: readings printed, JSON, annotated pages, the exit status."""

from __future__ import annotations

import json

import cv2
import numpy as np
from test_detect_support import SAMPLE, encode, page_image

from tabulate.cli import main


def _files(tmp_path):
    front = tmp_path / "front.jpg"
    back = tmp_path / "back.png"
    front.write_bytes(
        encode(
            page_image(marks=(("straight-party", "DEM", "fill"), ("president", "pres-okafor", "circle"))),
            "jpeg",
            quality=90,
        )
    )
    back.write_bytes(encode(page_image("1", 2), "png"))
    return front, back


def test_read_prints_each_sheet_and_its_marks(tmp_path, capsys):
    front, back = _files(tmp_path)
    assert main(["read", str(front), str(back), "--election", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "style 1, precinct A101" in out
    assert "straight-party / DEM: marked" in out
    assert "president / pres-okafor: unmarked" in out and "hand count: marked" in out


def test_read_json_and_a_rejected_sheet_sets_the_exit_status(tmp_path, capsys):
    front, back = _files(tmp_path)
    junk = tmp_path / "junk.tif"
    junk.write_bytes(b"II*\x00garbage")
    assert main(["read", str(front), str(back), str(junk), "--election", str(SAMPLE), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    ok, bad = doc["sheets"]
    assert ok["ok"] and [p["style_code"]["page"] for p in ok["pages"]] == [1, 2]
    assert not bad["ok"] and bad["reason_code"] == "page_rejected" and "junk.tif" in bad["reason"]


def test_annotate_writes_every_page_with_its_targets(tmp_path, capsys):
    front, back = _files(tmp_path)
    out = tmp_path / "annotated"
    assert main(["read", str(front), str(back), "--election", str(SAMPLE), "--annotate", str(out)]) == 0
    img = cv2.imread(str(out / "front.png"))
    assert img.shape == (2200, 1700, 3)
    green = (img[:, :, 1] > 120) & (img[:, :, 0] < 90) & (img[:, :, 2] < 90)
    assert green.sum() > 50  # the marked target is outlined in green
    assert (out / "back.png").exists()


def test_a_missing_image_is_a_usage_error(tmp_path, capsys):
    assert main(["read", str(tmp_path / "none.jpg"), "--election", str(SAMPLE)]) == 2
    assert "no such image" in capsys.readouterr().err


def test_an_unread_page_is_annotated_with_its_reason(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    blank.write_bytes(encode(np.full((2200, 1700), 250, np.uint8), "png"))
    out = tmp_path / "ann"
    assert main(["read", str(blank), "--election", str(SAMPLE), "--annotate", str(out)]) == 1
    assert "no registration marks found" in capsys.readouterr().out
    img = cv2.imread(str(out / "blank.png"))
    assert (img[:, :, 2] > 150).any() and ((img[:, :, 2] > 150) & (img[:, :, 0] < 100)).any()


def test_read_json_can_be_given_to_votes_marks(tmp_path, capsys):
    """The reading's marks feed the rules as they are: straight party DEM (31 KAR 6:030 §5(1)) gives Okafor."""
    front, back = _files(tmp_path)
    assert main(["read", str(front), str(back), "--election", str(SAMPLE), "--json"]) == 0
    reading = tmp_path / "reading.json"
    reading.write_text(capsys.readouterr().out)
    assert main(["votes", "--election", str(SAMPLE), "--marks", str(reading), "--json"]) == 0
    (ballot,) = json.loads(capsys.readouterr().out)["ballots"]
    assert ballot["straight_party"] == "DEM"
    president = next(c for c in ballot["contests"] if c["contest_id"] == "president")
    assert president["selections"] == ["pres-okafor"] and president["from_straight_party"]
