"""A template set is used only with the election it was imported for (``templates_wrong_election``).

31 KAR 2:010 Section 2(4): the clerk compares the ballots with the ballot template and the certification "to
ascertain that all federal, state, county, and local candidates, offices and ballot questions shall be the
same as listed on the certification and shall appear in the correct positions". The set records the hash of
the election it gave its targets' options from; read with another definition, a mark would count for what
that definition names by the same ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from tabulate.cli import main
from tabulate.election import load_election
from tabulate.templates import TemplatesWrongElection, check_election, import_templates, load_set

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"
VENDOR = ROOT / "samples" / "vendor" / "boxes"
SHEET = [str(p) for p in sorted(VENDOR.glob("sheet-*.jpg"))]
LAW = "shall be the same as listed on the certification and shall appear in the correct positions"


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Style 3's boxes blanks imported for the sample election, and that election with one name edited."""
    root = tmp_path_factory.mktemp("bound")
    election = load_election(GENERAL)
    import_templates(election, sorted((VENDOR / "blanks").glob("blank-3-*.png")), root / "set", score=False)
    doc = json.loads(GENERAL.read_text(encoding="utf-8"))
    house = next(c for c in doc["contests"] if c["id"] == "us-house-6")
    house["candidates"][0]["name"] = "Victor Lamb"  # the same ids and counts: only the printed name differs
    (root / "edited.json").write_text(json.dumps(doc), encoding="utf-8")
    return root / "set", root / "edited.json"


def test_the_check_quotes_the_clause_it_keeps():
    from tabulate.templates import bound

    assert LAW in " ".join(bound.__doc__.split())


def test_a_set_is_refused_for_another_election_and_named_by_both_hashes(sets):
    folder, edited = sets
    tset, other = load_set(folder), load_election(edited)
    check_election(load_election(GENERAL), tset)  # its own election: no error
    assert other.hash != tset.election_hash
    with pytest.raises(TemplatesWrongElection) as e:
        check_election(other, tset)
    assert e.value.code == "templates_wrong_election"
    assert tset.election_hash[:12] in str(e.value) and other.hash[:12] in str(e.value)


@pytest.mark.parametrize("command", ["read", "scan"])
def test_read_and_scan_refuse_it_in_one_line_before_the_store_is_made(sets, tmp_path, capsys, command):
    folder, edited = sets
    db = tmp_path / "s.db"
    args = [command, *SHEET, "--election", str(edited), "--templates", str(folder)]
    if command == "scan":
        args += ["--db", str(db), "--vote-type", "election_day", "--batch", "b", "--no-progress", "--workers", "1"]
    assert main(args) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "imported for election" in lines[0] and out.out == ""
    assert not db.exists()


def test_the_cli_error_carries_its_stable_code(sets):
    from tabulate.commands import UsageError
    from tabulate.commands.templates import reader_for

    folder, edited = sets
    with pytest.raises(UsageError) as e:
        reader_for(folder, load_election(edited), allow_missing=True)  # not waved through by the other flag
    assert e.value.code == "templates_wrong_election"


def test_a_recount_refuses_a_set_recorded_for_another_election(sets):
    """A store scanned before the check existed may hold sheets read with such a set: re-reading them
    (recount, ``verify --images``) stops with the same line instead of counting them again."""
    from tabulate.central.recorded import template_interpreters

    folder, edited = sets
    digest = load_set(folder).digest
    store = SimpleNamespace(
        evidence=lambda sid: {"pages": [{"template_set": digest}]},
        journal=list,
        election=lambda: load_election(edited),
    )
    with pytest.raises(TemplatesWrongElection):
        template_interpreters(store, [1], [folder])
    store.election = lambda: load_election(GENERAL)
    assert set(template_interpreters(store, [1], [folder])) == {1}
