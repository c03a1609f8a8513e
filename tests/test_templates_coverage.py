"""A template set missing a ballot style is refused by `read` and `scan` (``templates_incomplete``).

31 KAR 6:030 Section 2(1)(a): a vote on a scan voting system is the choice made by "filling in the oval
or box or connecting the arrow next to the candidate's name or the question choice". A page of a style the
set lacks is matched to the nearest imported style (`benchmarks/foreign_pages.py`: 29 of 40 arrows sheets'
pages read ok as style 1), its marks counted for the names another ballot prints there. The election says
which contests every style holds, so the set is checked against it before a page is read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabulate.cli import main
from tabulate.election import load_election
from tabulate.templates import MissingPage, TemplatesIncomplete, check_complete, import_templates, load_set
from tabulate.templates.model import MANIFEST

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"
VENDOR = ROOT / "samples" / "vendor" / "boxes"
#: The shipped boxes sheet is style 3: a set of style 3 alone reads it right.
SHEET = [str(p) for p in sorted(VENDOR.glob("sheet-*.jpg"))]
LAW = "filling in the oval or box or connecting the arrow next to the candidate's name or the question choice"


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """The boxes blanks of all three styles imported once; a copy holding style 3's two pages only."""
    root = tmp_path_factory.mktemp("coverage")
    election = load_election(GENERAL)
    import_templates(election, sorted((VENDOR / "blanks").glob("blank-*.png")), root / "all", score=False)
    one = root / "style3"
    one.mkdir()
    doc = json.loads((root / "all" / MANIFEST).read_text(encoding="utf-8"))
    doc["pages"] = [p for p in doc["pages"] if p["style_id"] == "3"]
    for p in doc["pages"]:
        (one / p["blank_file"]).write_bytes((root / "all" / p["blank_file"]).read_bytes())
    (one / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    return root / "all", one


def test_the_check_quotes_the_clause_it_keeps():
    from tabulate.templates import coverage

    assert LAW in " ".join(coverage.__doc__.split())


def test_missing_styles_and_pages_are_named_from_the_election(sets):
    election = load_election(GENERAL)
    full, one = sets
    assert check_complete(election, load_set(full)) == ()
    missing = check_complete(election, load_set(one), allow_missing=True)
    assert [(m.style_id, m.page) for m in missing] == [("1", None), ("2", None)]
    assert len(missing[0].contests) == 17  # straight party and style 1's 16 contests
    with pytest.raises(TemplatesIncomplete) as e:
        check_complete(election, load_set(one))
    assert e.value.code == "templates_incomplete"
    assert "style 1 (no page imported); style 2 (no page imported)" in str(e.value)
    # A style whose back is missing: the contests at the end of its list are named, on page 2.
    doc = json.loads((one / MANIFEST).read_text(encoding="utf-8"))
    doc["pages"] = [p for p in doc["pages"] if p["page"] == 1]
    from tabulate.templates.model import set_from_dict

    back = [m for m in check_complete(election, set_from_dict(doc), allow_missing=True) if m.style_id == "3"]
    assert back == [MissingPage("3", 2, back[0].contests)] and back[0].contests[-1] == "amendment-2"


def test_read_refuses_a_set_missing_styles_in_one_line(sets, capsys):
    _full, one = sets
    assert main(["read", *SHEET, "--election", str(GENERAL), "--templates", str(one)]) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and out.out == ""
    assert "lacks style 1 (no page imported); style 2 (no page imported)" in lines[0]
    assert "--allow-missing-styles" in lines[0]


def test_scan_refuses_before_the_store_is_made(sets, tmp_path, capsys):
    _full, one = sets
    db = tmp_path / "s.db"
    args = ["scan", *SHEET, "--election", str(GENERAL), "--db", str(db), "--vote-type", "election_day"]
    assert main([*args, "--batch", "b", "--templates", str(one), "--no-progress", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "style 1 (no page imported); style 2 (no page imported)" in err[0]
    assert not db.exists()  # a refused scan changes nothing


def test_the_error_carries_its_stable_code(sets):
    from tabulate.commands import UsageError
    from tabulate.commands.templates import reader_for

    _full, one = sets
    with pytest.raises(UsageError) as e:
        reader_for(one, load_election(GENERAL))
    assert getattr(e.value, "code", None) == "templates_incomplete"


def test_with_the_flag_the_set_reads_and_the_risk_is_printed(sets, capsys):
    _full, one = sets
    args = ["read", *SHEET, "--election", str(GENERAL), "--templates", str(one), "--allow-missing-styles"]
    assert main(args) == 0
    out = capsys.readouterr()
    assert "style 3" in out.out
    warning = [line for line in out.err.splitlines() if "warning" in line]
    assert len(warning) == 1
    assert "style 1 (no page imported); style 2 (no page imported)" in warning[0]
    assert "read as the nearest imported style" in warning[0]


def test_a_complete_set_reads_as_before_with_no_warning(sets, capsys):
    full, _one = sets
    assert main(["read", *SHEET, "--election", str(GENERAL), "--templates", str(full)]) == 0
    out = capsys.readouterr()
    assert "style 3" in out.out and out.err == ""


def test_import_names_each_missing_page_on_stderr(tmp_path, capsys):
    blank = str(VENDOR / "blanks" / "blank-3-p1.png")
    assert main(["templates", "import", blank, "--election", str(GENERAL), "--out", str(tmp_path / "set")]) == 0
    out = capsys.readouterr()
    err = out.err.splitlines()
    assert err[0] == "tabulate: the set lacks style 1 (no page imported), its 17 contests: import its blank"
    assert err[1].startswith("tabulate: the set lacks style 2 (no page imported)")
    assert err[2].startswith("tabulate: the set lacks style 3 page 2: contests ") and err[2].endswith(
        "amendment-2: import its blank"
    )
    assert "templates_incomplete" in err[3] and "lacks" not in out.out
