"""`tabulate votes`: ballots given as marks, their votes, clauses and reasons; bad files exit 2 with every problem."""

import json
from pathlib import Path

from tabulate.cli import main

ROOT = Path(__file__).resolve().parents[1]
ELECTION = str(ROOT / "samples" / "general" / "election.json")

BALLOTS = {
    "ballots": [
        {
            "id": "A101-0001",
            "style": "1",
            "precinct": "A101",
            "marks": {
                "straight-party": {"REP": "marked"},
                "us-senate": {"sen-brennan": "marked"},
                "mayor": {"may-wells": "marked", "may-garza": "marked"},
                "us-house-6": {"write-in-1": {"scan": "marked", "write_in_ink": True, "score": 0.55}},
            },
        },
        {"id": "B201-0001", "style": "2", "precinct": "B201", "marks": {}},
    ]
}


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
    bad = {
        "ballots": [
            {"id": "x", "style": "7", "marks": {}},
            {"id": "y", "style": "1", "marks": {"mayor": {"may-nobody": "marked", "may-wells": "X"}}},
        ]
    }
    assert run(tmp_path, bad) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert lines[0].startswith("tabulate: ") and "3 problem(s) in the marks" in lines[0]
    assert lines[1].strip().startswith("$.ballots[0].style: no ballot style '7'")
    assert lines[2].strip().startswith("$.ballots[1].marks.mayor.may-nobody: no option 'may-nobody'")
    assert (
        lines[3].strip() == "$.ballots[1].marks.mayor.may-wells: 'X' is not a mark class "
        "('marked' | 'marginal' | 'unmarked')"
    )
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


# -- write-in names from the shell (issue 9 item 11) ---------------------------------------------

NAMED = {
    "ballots": [
        {
            "id": "named-1",
            "style": "1",
            "precinct": "A101",
            "marks": {
                "straight-party": {"REP": "marked"},
                # An eligible declared write-in candidate: §5(1) counts it "for the eligible write-in candidate".
                "us-senate": {"write-in-1": {"scan": "marked", "write_in_name": "Jenna Foster"}},
                # No filed candidate of that name: not eligible, so §5(1) leaves the race to the straight party.
                "us-house-6": {"write-in-1": {"scan": "marked", "write_in_name": "Donald Duck"}},
            },
        },
        {
            "id": "named-2",
            "style": "1",
            "precinct": "A101",
            "marks": {"us-house-6": {"write-in-1": {"scan": "marked", "write_in_name": "Donald Duck"}}},
        },
    ]
}


def test_a_marks_file_carries_the_write_in_name_and_votes_resolves_it_with_the_straight_party_fallback(
    tmp_path, capsys
):
    """31 KAR 6:030 §5(1): with a straight-party choice, a write-in of "an eligible write-in candidate in a specific
    race" is counted for that candidate "and the remaining votes on the ballot shall be counted for the straight
    political party"; a name of no eligible candidate (§4(1)) is no such vote, and the party keeps the race."""
    assert run(tmp_path, NAMED, "--json") == 0
    first, second = json.loads(capsys.readouterr().out)["ballots"]
    contests = {c["contest_id"]: c for c in first["contests"]}
    assert contests["us-senate"]["selections"] == ["write-in-1"] and contests["us-senate"]["status"] == "valid"
    assert contests["us-house-6"]["selections"] == ["house-barr"] and contests["us-house-6"]["from_straight_party"]
    assert "31 KAR 6:030 §5(1)" in contests["us-house-6"]["clauses"]
    by_line = {w["contest_id"]: w for w in first["write_ins"]}
    assert (by_line["us-senate"]["outcome"], by_line["us-senate"]["candidate_id"]) == ("candidate", "sen-wi-foster")
    assert by_line["us-house-6"]["outcome"] == "not_counted" and by_line["us-house-6"]["clause"] == "31 KAR 6:030 §4(1)"
    assert "straight party REP" in by_line["us-house-6"]["effect"]
    assert not any(r["code"] == "marked_write_in" for r in first["reasons"])
    # Without a straight-party choice the same name leaves the race without a vote.
    house = next(c for c in second["contests"] if c["contest_id"] == "us-house-6")
    assert house["selections"] == ["write-in-1"] and second["write_ins"][0]["outcome"] == "not_counted"

    assert run(tmp_path, NAMED) == 0
    out = capsys.readouterr().out
    assert "write-in us-senate/write-in-1 'Jenna Foster': a vote for sen-wi-foster  [31 KAR 6:030 §2(1)(b)" in out


def test_a_write_in_name_round_trips_and_is_checked(tmp_path, capsys):
    from tabulate.election import load_election
    from tabulate.rules import marks_to_dict, parse_marks

    election = load_election(ELECTION)
    ballots = parse_marks(election, NAMED)
    mark = ballots[0].marks["us-senate"]["write-in-1"]
    assert mark.write_in_name == "Jenna Foster" and mark.write_in_ink
    assert parse_marks(election, {"ballots": [marks_to_dict(b) for b in ballots]}) == ballots
    bad = {
        "ballots": [
            {
                "id": "x",
                "style": "1",
                "marks": {
                    "us-senate": {
                        "sen-brennan": {"scan": "marked", "write_in_name": "Jo"},
                        "write-in-1": {"scan": "marked", "write_in_name": "Jo", "write_in_ink": False},
                    }
                },
            }
        ]
    }
    assert run(tmp_path, bad) == 2
    err = capsys.readouterr().err
    assert "sen-brennan.write_in_name: only a write-in line has a write-in area" in err
    assert "write-in-1.write_in_ink: a write-in name was read" in err


def test_write_in_asks_the_resolver_from_the_shell_and_cites_the_clause(capsys):
    """§4(5): "Writing in only the surname of an eligible candidate shall be sufficient ... unless there is more than
    one (1) filed candidate with the same surname for that office"."""
    assert main(["write-in", "Foster", "--election", ELECTION, "--contest", "us-senate"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("'Foster' in United States Senator: a vote for Jenna Foster [sen-wi-foster]")
    assert '31 KAR 6:030 §4(5): "Writing in only the surname' in out
    assert main(["write-in", "Whitaker", "--election", ELECTION, "--contest", "us-house-6"]) == 0
    out = capsys.readouterr().out  # two filed candidates share the surname: "shall not constitute a vote"
    assert ": not counted" in out.splitlines()[0] and "more than one filed candidate" in out
    # 31 KAR 5:011 §2 suspends §4(2): on an FWAB a candidate on the ballot written in is a vote for them.
    assert main(["write-in", "Maria Brennan", "--election", ELECTION, "--contest", "us-senate"]) == 0
    assert ": not counted" in capsys.readouterr().out.splitlines()[0]
    assert main(["write-in", "Maria Brennan", "--election", ELECTION, "--contest", "us-senate", "--fwab"]) == 0
    assert "a vote for Maria Brennan [sen-brennan]" in capsys.readouterr().out
    for contest, words in (("nope", "no contest 'nope'"), ("amendment-1", "is a question")):
        assert main(["write-in", "X", "--election", ELECTION, "--contest", contest]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0]


def test_a_write_in_of_the_candidate_the_voter_also_marked_is_no_overvote_and_the_mark_stands():
    """§2(2)(b) makes a named candidate plus a write-in an overvote only for "the name of a different person";
    §4(2): "A write-in vote for a candidate whose name appears on the ballot for the same office shall not be
    counted"; so the mark stands. Another person's name beside the mark is the overvote."""
    from tabulate.election import load_election
    from tabulate.rules import BallotMarks, OptionMark, apply_write_in_names

    election = load_election(ELECTION)

    def senate(name):
        marks = {
            "us-senate": {
                "sen-brennan": OptionMark(scan="marked"),
                "write-in-1": OptionMark(scan="marked", write_in_ink=True, write_in_name=name),
            }
        }
        named = apply_write_in_names(election, BallotMarks("x", "1", marks))
        return named.votes.contest("us-senate"), named.named[0]

    same, line = senate("Maria Brennan")
    assert (same.status, same.selections) == ("valid", ("sen-brennan",))
    assert line.decision.clause == "31 KAR 6:030 §4(2)" and "the mark for sen-brennan stands" in line.effect
    other, line = senate("Jenna Foster")
    assert (other.status, other.selections) == ("overvote", ())
    assert line.decision.candidate_id == "sen-wi-foster" and "overvote" in line.effect
