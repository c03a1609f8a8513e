"""`tabulate votes`: ballots given as marks, their votes, clauses and reasons; bad files exit 2 with every problem."""

import json
from pathlib import Path

from tabulate.cli import main

ROOT = Path(__file__).resolve().parents[1]
ELECTION = str(ROOT / "samples" / "general" / "election.json")

BALLOTS = {"ballots": [
    {"id": "A101-0001", "style": "1", "precinct": "A101", "marks": {
        "straight-party": {"REP": "marked"},
        "us-senate": {"sen-brennan": "marked"},
        "mayor": {"may-wells": "marked", "may-garza": "marked"},
        "us-house-6": {"write-in-1": {"scan": "marked", "write_in_ink": True, "score": 0.55}}}},
    {"id": "B201-0001", "style": "2", "precinct": "B201", "marks": {}},
]}


def run(tmp_path, doc, *extra) -> int:
    path = tmp_path / "marks.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return main(["votes", "--election", ELECTION, "--marks", str(path), *extra])


def test_votes_prints_each_ballots_votes_statuses_clauses_and_reasons(tmp_path, capsys):
    assert run(tmp_path, BALLOTS) == 0
    out = capsys.readouterr().out
    assert "ballot A101-0001  style 1  precinct A101  NEEDS REVIEW" in out
    assert "straight party: Republican Party" in out
    assert "President and Vice President: valid: Marcus Hale (straight party)  [31 KAR 6:030 §5(1)]" in out
    assert "United States Senator: valid: Maria Brennan  [31 KAR 6:030 §2(1)(a), §5(1), §5(2)]" in out
    assert "Mayor, City of Frankfort: overvote: - (1 overvote(s))  [31 KAR 6:030 §1(6)]" in out
    assert "write_in_pending: Write-in [write-in-1]" in out
    assert "! overvote at mayor: 2 selections where 1 allowed: Tom Wells, Nina Garza" in out
    assert "! marked_write_in at us-house-6/write-in-1" in out
    assert "ballot B201-0001  style 2  precinct B201  BLANK  NEEDS REVIEW" in out and "! blank_ballot" in out
    assert out.rstrip().endswith("2 ballot(s); 2 need(s) a person")


def test_votes_json_gives_every_contest_and_reason(tmp_path, capsys):
    assert run(tmp_path, BALLOTS, "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    first = doc["ballots"][0]
    assert first["straight_party"] == "REP" and first["needs_review"] is True
    senate = next(c for c in first["contests"] if c["contest_id"] == "us-senate")
    assert senate["selections"] == ["sen-brennan"] and "31 KAR 6:030 §5(2)" in senate["clauses"]
    assert {r["code"] for r in first["reasons"]} >= {"overvote", "marked_write_in"}
    assert doc["ballots"][1]["blank"] is True and len(doc["election"]) == 64


def test_a_bad_marks_file_lists_every_problem_and_exits_2(tmp_path, capsys):
    bad = {"ballots": [{"id": "x", "style": "7", "marks": {}},
                       {"id": "y", "style": "1", "marks": {"mayor": {"may-nobody": "marked", "may-wells": "X"}}}]}
    assert run(tmp_path, bad) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert lines[0].startswith("tabulate: ") and "3 problem(s) in the marks" in lines[0]
    assert lines[1].strip().startswith("$.ballots[0].style: no ballot style '7'")
    assert lines[2].strip().startswith("$.ballots[1].marks.mayor.may-nobody: no option 'may-nobody'")
    assert lines[3].strip() == "$.ballots[1].marks.mayor.may-wells: 'X' is not a mark class " \
                               "('marked' | 'marginal' | 'unmarked')"
    assert "Traceback" not in captured.err


def test_marks_that_are_not_json_are_one_line_and_exit_2(tmp_path, capsys):
    assert run(tmp_path, '{"ballots": [') == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not valid JSON" in err and "line 1" in err


def test_a_missing_marks_file_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["votes", "--election", ELECTION, "--marks", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read the marks file" in err


def test_a_bad_election_file_exits_2(tmp_path, capsys):
    (tmp_path / "marks.json").write_text(json.dumps(BALLOTS), encoding="utf-8")
    assert main(["votes", "--election", str(tmp_path / "nope.json"), "--marks", str(tmp_path / "marks.json")]) == 2
    assert "cannot read the file" in capsys.readouterr().err
