"""A page matched without its code must print its template's names (``template_foreign_print``).

31 KAR 6:030 Section 2(1)(a): a vote is the choice made by "filling in the oval or box or connecting the arrow
next to the candidate's name or the question choice". Two elections printed in the same vendor layout, one
contest's candidate names different: with its code scratched out, the other election's page correlates
with the set's look-alike as well as a page with its own blank, and nothing in the set is a closer rival.
Read, its marks would count for names it does not print.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabulate.ballots.vendor import PaperEffects, simulate_vendor_sheet
from tabulate.ballots.vendor.write import write_blanks
from tabulate.election import load_election, parse_election
from tabulate.templates import TemplateReader, import_templates, ownprint

GENERAL = Path(__file__).parents[1] / "samples" / "general" / "election.json"
LAW = "filling in the oval or box or connecting the arrow next to the candidate's name or the question choice"
#: Every page's code scratched out: every page is identified by matching.
SCRATCHED = PaperEffects(code_scratched=1.0)


def _other(edit) -> object:
    doc = json.loads(GENERAL.read_text(encoding="utf-8"))
    edit({c["id"]: c for c in doc["contests"]})
    return parse_election(doc)


def _names(contests) -> None:  # the same ids, the same count: only the printed names differ
    for cand, name in zip(contests["us-house-6"]["candidates"], ("Victor Lamb", "Susan Pryor")):
        cand["name"] = name


def _count(contests) -> None:  # one candidate more: every contest below moves down a row
    senate = contests["us-senate"]["candidates"]
    senate.append(dict(senate[-1], id="sen-quinn", name="Harold Quinn"))


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    """Styles 1 and 2 of the timing family (200 DPI, bitonal), imported for the sample election."""
    root = tmp_path_factory.mktemp("ownprint")
    election = load_election(GENERAL)
    blanks = write_blanks(election, "timing", root / "blanks", styles=("1", "2"))
    import_templates(election, blanks, root / "set", score=False)
    return TemplateReader(str(root / "set"))


def _sheet(election, index: int):
    """A simulated timing sheet of style 1 or 2 (the set's styles), both codes scratched out."""
    for k in range(index, index + 40):
        images, truth = simulate_vendor_sheet(election, "timing", k, 11, effects=SCRATCHED)
        if truth["style"] in ("1", "2"):
            assert truth["vendor"]["code_scratched"] == [1, 2]
            return images, truth
    raise AssertionError("no sheet of styles 1 or 2")


def test_the_check_quotes_the_clause_it_keeps():
    assert LAW in " ".join(ownprint.__doc__.split())


def test_the_floor_is_above_every_wrong_name_the_set_shows(reader):
    for p in reader.tset.pages:
        lk = ownprint.likeness(reader.tset, p)
        assert lk.units and lk.floor >= ownprint.MIN_FLOOR
        assert lk.floor > lk.wrong  # a name as like as the set's likest wrong one does not pass


def test_the_sets_own_pages_with_their_codes_scratched_are_still_identified(reader):
    election = load_election(GENERAL)
    for k in (0, 5):
        images, truth = _sheet(election, k)
        for page, image in enumerate(images, 1):
            r = reader.read_image(election, image)
            assert r.ok, (k, page, r.reason_code, r.reason)
            assert (r.style_id, r.page) == (truth["style"], page)


def test_another_elections_page_with_other_names_is_refused_not_read_as_its_look_alike(reader):
    other = _other(_names)
    images, truth = _sheet(other, 0)
    front = reader.read_image(load_election(GENERAL), images[0])
    assert front.reason_code == "template_foreign_print", (front.style_id, front.page, front.reason)
    assert f"{truth['style']}-p1" in front.reason and "us-house-6/" in front.reason


def test_another_elections_page_with_one_candidate_more_is_not_read(reader):
    images, _truth = _sheet(_other(_count), 0)
    front = reader.read_image(load_election(GENERAL), images[0])
    assert not front.ok, (front.style_id, front.page)
