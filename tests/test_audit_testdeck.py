"""The accuracy-test deck (31 KAR 2:020 Section 3-5): its design, and a check that passes and ones that fail."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from pypdf import PdfReader
from test_audit_support import general_document, small_document, write_election

from tabulate.audit.testdeck import (
    DeckResult,
    Misprint,
    ReadSheet,
    compare_style,
    design_style_deck,
    findings,
    load_manifest,
    make_deck,
    scan_deck,
)
from tabulate.cli import main
from tabulate.core.votes import BallotVotes, ContestVotes
from tabulate.election.model import STRAIGHT_PARTY_CONTEST_ID


@pytest.fixture(scope="module")
def general(tmp_path_factory):
    return write_election(tmp_path_factory.mktemp("general") / "election.json", general_document())


def _marks_per_contest(ballot, contest_id):
    return [o for c, o in ballot.marks if c == contest_id]


@pytest.mark.parametrize("style", ["1", "2", "3"])
def test_deck_has_a_vote_for_every_candidate_and_question_option(general, style):
    """31 KAR 2:020 Section 3(4)(a): "One (1) or more ballots with a vote for each candidate for office and each
    option of a ballot question"; every option of a contest gets a different total, and a different number of
    marks at its target, so that two swapped targets cannot give the right totals."""
    deck = design_style_deck(general, style)
    for c in deck.tally.contests:
        totals = [n for _, n in c.votes]
        assert min(totals) >= 1 and len(set(totals)) == len(totals), c.contest_id
        marks = Counter(o for b in deck.ballots if b.purpose != "overvote" for o in _marks_per_contest(b, c.contest_id))
        assert len({marks[o] for o, _ in c.votes}) == len(c.votes), c.contest_id


def test_deck_has_an_overvote_in_every_contest(general):
    """Section 3(4)(b): "One (1) or more ballots that contain votes in excess of the total number of votes
    allowed by law to be cast by a voter"."""
    deck = design_style_deck(general, "1")
    over = [b for b in deck.ballots if b.purpose == "overvote"]
    assert len(over) == 1
    for cid in general.style("1").contests:
        assert len(_marks_per_contest(over[0], cid)) > general.contest(cid).vote_for, cid
    assert all(c.overvotes == general.contest(c.contest_id).vote_for for c in deck.tally.contests)


def test_deck_has_undervotes(general):
    """Section 3(4)(c): "One (1) or more ballots that contain fewer votes than the total number of votes allowed
    by law to be cast by a voter"."""
    deck = design_style_deck(general, "1")
    under = next(b for b in deck.ballots if b.purpose == "undervote")
    assert under.marks  # not a blank ballot
    for cid in general.style("1").contests:
        assert len(_marks_per_contest(under, cid)) < general.contest(cid).vote_for
    assert all(c.undervotes > 0 for c in deck.tally.contests)


def test_deck_has_a_straight_party_vote_for_each_party(general):
    """Section 3(4)(d): "One (1) or more ballots that contain a straight-party vote, if applicable"; the
    expected totals follow 31 KAR 6:030 Section 5 (the party's candidate in each partisan race)."""
    deck = design_style_deck(general, "1")
    straight = [b for b in deck.ballots if b.purpose == "straight_party"]
    assert {b.marks for b in straight} == {((STRAIGHT_PARTY_CONTEST_ID, p),) for p in ("REP", "DEM", "LIB")}
    assert dict(deck.tally.straight_party) == {"REP": 1, "DEM": 2, "LIB": 3}


def test_deck_has_a_write_in_in_every_contest_with_write_in_lines(general):
    """Section 3(4)(e): "One (1) or more ballots that contain a write-in vote, if applicable"."""
    deck = design_style_deck(general, "1")
    written = {(c, o) for b in deck.ballots for c, o, name in b.write_ins if name}
    for cid in general.style("1").contests:
        lines = [o.id for o in general.contest(cid).options if o.kind == "write_in"]
        assert all((cid, o) in written for o in lines), cid


def _read(election, deck, swap=None):
    """The deck as a perfect reader would read it (from the design), optionally with two targets exchanged."""
    swap = swap or {}
    sheets = []
    for b in deck.ballots:
        contests = []
        for c in deck.tally.contests:
            vote_for = election.contest(c.contest_id).vote_for
            own = tuple(swap.get(o, o) for cc, o in b.marks if cc == c.contest_id)
            if len(own) > vote_for:
                contests.append(ContestVotes(c.contest_id, "overvote", (), vote_for, 0))
            else:
                contests.append(ContestVotes(c.contest_id, "valid", own, 0, vote_for - len(own)))
        votes = BallotVotes(str(b.number), deck.style_id, tuple(contests))
        sheets.append(ReadSheet(f"#{b.number}", "counted", deck.style_id, votes))
    return sheets


def test_compare_passes_a_true_count_and_fails_a_swapped_pair_naming_the_contest_and_options(tmp_path):
    """Section 4(2)(b): "a printout showing an errorless test upon comparison with the tally sheet"."""
    election = write_election(tmp_path / "e.json", small_document(straight_party=False))
    deck = design_style_deck(election, "1")
    assert compare_style(election, deck.tally, _read(election, deck)).passed
    swap = {"house-barr": "house-king", "house-king": "house-barr"}
    bad = compare_style(election, deck.tally, _read(election, deck, swap))
    assert not bad.passed and not DeckResult((bad,)).passed
    [line] = [f for f in findings(DeckResult((bad,)), election) if "swapped" in f]
    assert "U.S. Representative" in line and "[house-barr]" in line and "[house-king]" in line


def test_deck_make_and_check_pass_end_to_end(tmp_path, capsys):
    """Section 5(4): "An accuracy test shall be conducted by processing each test deck"; the deck goes through
    the central count into a test store of its own, and every number matches."""
    path = tmp_path / "election.json"
    write_election(path, small_document(school_board=False))
    deck = tmp_path / "deck"
    assert main(["test-deck", "make", str(path), "--out", str(deck)]) == 0
    manifest = json.loads((deck / "deck.json").read_text())
    n = len(manifest["styles"]["1"]["ballots"])
    assert len(PdfReader(deck / "style-1" / "deck.pdf").pages) == 2 * n
    assert len(list((deck / "style-1" / "scans").glob("*.jpg"))) == 2 * n
    assert "Straight Party" in (deck / "tally-sheet.txt").read_text()
    capsys.readouterr()
    assert (
        main(["test-deck", "check", "--election", str(path), "--deck", str(deck), "--workers", "1", "--no-progress"])
        == 0
    )
    assert "accuracy test: PASS" in capsys.readouterr().out
    printout = (deck / "check" / "printout.txt").read_text()
    assert "RESULT: PASS" in printout and "ERROR" not in printout
    cert = PdfReader(deck / "check" / "certificate-sbe16.pdf").pages[0].extract_text()
    assert "Certificate of Completion of Accuracy Test" in cert and "Signature" in cert
    checklist = " ".join(PdfReader(deck / "check" / "checklist.pdf").pages[0].extract_text().split())
    assert "Visual inspection of all power sources" in checklist and "Firmware version" in checklist
    pdf = PdfReader(deck / "check" / "printout.pdf").pages[0].extract_text()
    assert "PASS" in pdf and "Expected" in pdf and "Counted" in pdf
    # The check never touches another store: a second check into the same folder is refused.
    assert main(["test-deck", "check", "--election", str(path), "--deck", str(deck)]) == 2


@pytest.mark.parametrize(
    "misprint, named",
    [
        (Misprint("us-house-6", "house-barr", "house-king"), ("[house-barr]", "[house-king]", "swapped")),
        (Misprint("us-house-6", "house-king", move_in=(0.3, 0.0)), ("[house-king]",)),
    ],
)
def test_a_misprinted_deck_fails_naming_the_contest_and_options(tmp_path, misprint, named):
    """Section 5(5): "If an error in a voting machine or voting system is detected during an accuracy test, the
    cause shall be ascertained": the printout names the contest and the options whose counts are wrong."""
    doc = small_document(straight_party=False, school_board=False)
    election = write_election(tmp_path / "e.json", doc)
    make_deck(election, tmp_path / "deck", misprint=misprint, printable=False)
    result = scan_deck(
        election, doc, tmp_path / "deck", load_manifest(tmp_path / "deck", election), tmp_path / "check", workers=1
    )
    assert result.verdict == "FAIL"
    text = "\n".join(findings(result, election))
    assert "U.S. Representative, 6th District" in text
    for word in named:
        assert word in text
    assert all(line.ok for line in result.styles[0].lines if line.contest_id == "amendment-1")


def test_the_same_election_makes_the_same_deck_bytes(tmp_path):
    """Seeded marks and scans: the deck an Accuracy Board approved can be made again, byte for byte."""
    import hashlib

    election = write_election(tmp_path / "e.json", small_document(straight_party=False, school_board=False))

    def digest(folder):
        make_deck(election, folder, printable=False)
        return {
            p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }

    first, second = digest(tmp_path / "a"), digest(tmp_path / "b")
    assert first == second and len(first) > 4
