"""Marks files (docs/marks.md): parse_marks checks every problem at once; marks_to_dict writes the same format."""

import json
from pathlib import Path

import pytest

from tabulate.election import load_election, parse_election
from tabulate.rules import BallotMarks, MarksError, OptionMark, apply_rules, marks_to_dict, parse_marks, votes_to_dict

ROOT = Path(__file__).resolve().parents[1]
GENERAL = load_election(ROOT / "samples" / "general" / "election.json")


def problems(doc) -> list[str]:
    with pytest.raises(MarksError) as info:
        parse_marks(GENERAL, doc, "m.json")
    return [str(p) for p in info.value.problems]


def test_a_mark_is_a_class_or_an_object_with_evidence():
    doc = {
        "ballots": [
            {
                "id": "b1",
                "style": "1",
                "precinct": "A102",
                "marks": {
                    "straight-party": {"DEM": "marked"},
                    "us-senate": {"write-in-1": {"scan": "marked", "write_in_ink": True, "score": 0.6}},
                    "amendment-1": {"yes": {"scan": "marginal", "hand": "marked"}},
                },
            }
        ]
    }
    [b] = parse_marks(GENERAL, doc)
    assert b == BallotMarks(
        "b1",
        "1",
        {
            "straight-party": {"DEM": OptionMark("marked")},
            "us-senate": {"write-in-1": OptionMark("marked", write_in_ink=True, score=0.6)},
            "amendment-1": {"yes": OptionMark("marginal", hand="marked")},
        },
        precinct_id="A102",
    )


def test_marks_to_dict_reads_back_to_equal_marks():
    marks = BallotMarks(
        "b7",
        "3",
        {
            "us-house-6": {
                "house-king": OptionMark("unmarked", hand="marked", score=0.05),
                "write-in-1": OptionMark("marked", write_in_ink=True),
            },
            "amendment-2": {"no": OptionMark("marginal")},
        },
        precinct_id="C301",
        fwab=True,
    )
    doc = json.loads(json.dumps({"ballots": [marks_to_dict(marks)]}))
    assert parse_marks(GENERAL, doc) == [marks]


def test_marks_to_dict_writes_a_bare_class_when_nothing_else_is_known():
    d = marks_to_dict(BallotMarks("b", "1", {"mayor": {"may-wells": OptionMark("marked")}}))
    assert d == {"id": "b", "style": "1", "marks": {"mayor": {"may-wells": "marked"}}}


def test_every_problem_is_reported_with_its_json_path():
    doc = {
        "ballots": [
            {"id": "b1", "style": "9", "marks": {}},
            {"id": "b2", "style": "1", "marks": {"us-senate": {"sen-nobody": "marked"}, "nowhere": {}}},
            {"id": "b3", "style": "2", "marks": {"amendment-1": {"yes": "filled"}, "mayor": {"may-wells": "marked"}}},
            {
                "id": "b4",
                "style": "1",
                "precinct": "C301",
                "fwab": "yes",
                "marks": {"us-senate": {"sen-caldwell": {"scan": "marked", "write_in_ink": True, "score": 2, "x": 1}}},
            },
            {"id": "b1", "style": "1"},
            "not a ballot",
        ],
        "extra": 1,
    }
    got = problems(doc)
    assert got == [
        "$.extra: unknown field",
        "$.ballots[0].style: no ballot style '9' in the election (styles: '1', '2', '3')",
        "$.ballots[1].marks.us-senate.sen-nobody: no option 'sen-nobody' in contest 'us-senate' "
        "(options: sen-caldwell, sen-brennan, write-in-1)",
        "$.ballots[1].marks.nowhere: contest 'nowhere' is not on ballot style '1'",
        "$.ballots[2].marks.amendment-1.yes: 'filled' is not a mark class ('marked' | 'marginal' | 'unmarked')",
        "$.ballots[2].marks.mayor: contest 'mayor' is not on ballot style '2'",
        "$.ballots[3].fwab: must be true or false",
        "$.ballots[3].precinct: precinct 'C301' does not vote ballot style '1'",
        "$.ballots[3].marks.us-senate.sen-caldwell.x: unknown field",
        "$.ballots[3].marks.us-senate.sen-caldwell.write_in_ink: only a write-in line has a write-in area",
        "$.ballots[3].marks.us-senate.sen-caldwell.score: 2 is not a fill score between 0 and 1",
        "$.ballots[5]: a ballot must be an object",
        "$.ballots[0].id: ballot id 'b1' is used more than once",
        "$.ballots[4].id: ballot id 'b1' is used more than once",
    ]


def test_a_document_without_ballots_is_one_problem():
    assert problems([]) == ['$: expected an object {"ballots": [...]}']
    assert problems({"ballots": [{"style": "1", "marks": {"mayor": []}}]}) == [
        "$.ballots[0].id: a ballot needs a non-empty string id",
        "$.ballots[0].marks.mayor: must be an object of option id -> mark",
    ]


def test_a_straight_party_mark_is_an_unknown_contest_where_the_election_offers_none():
    doc = json.loads((ROOT / "samples" / "general" / "election.json").read_text(encoding="utf-8"))
    doc["straight_party"] = False
    e = parse_election(doc)
    with pytest.raises(MarksError, match="contest 'straight-party' is not on ballot style '1'"):
        parse_marks(e, {"ballots": [{"id": "b", "style": "1", "marks": {"straight-party": {"REP": "marked"}}}]})


def test_votes_to_dict_is_plain_json():
    [b] = parse_marks(GENERAL, {"ballots": [{"id": "b", "style": "1", "marks": {"mayor": {"may-wells": "marked"}}}]})
    d = json.loads(json.dumps(votes_to_dict(apply_rules(GENERAL, b))))
    mayor = next(c for c in d["contests"] if c["contest_id"] == "mayor")
    assert mayor["selections"] == ["may-wells"] and mayor["status"] == "valid"
    assert all(set(r) == {"code", "contest_id", "option_id", "detail"} for r in d["reasons"])
