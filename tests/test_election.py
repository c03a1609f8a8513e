"""The election definition: schema, cross-references, every problem at once, identity hash."""

import copy
import json
from pathlib import Path

import pytest

from tabulate.election import ElectionError, load_election, parse_election

ROOT = Path(__file__).resolve().parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"


def general_doc() -> dict:
    return json.loads(GENERAL.read_text(encoding="utf-8"))


def problems_of(doc) -> list[str]:
    with pytest.raises(ElectionError) as info:
        parse_election(doc, "test.json")
    return [str(p) for p in info.value.problems]


def test_sample_general_election_loads_with_its_contests_in_certified_order():
    e = load_election(GENERAL)
    assert e.type == "general" and e.straight_party
    assert e.contests[0].id == "president" and e.contests[0].slate
    assert [c.id for c in e.contests][-1] == "local-option"
    assert len(e.precincts) >= 6 and len(e.ballot_styles) >= 3


def test_straight_party_option_is_first_on_a_general_ballot():
    """31 KAR 5:026 Section 1: straight party "as the first option available on the ballot"."""
    e = load_election(GENERAL)
    for style in e.ballot_styles:
        assert e.style_contests(style.id)[0].id == "straight-party"


def test_straight_party_offers_only_parties_with_candidates():
    doc = general_doc()
    doc["parties"].append({"id": "GRN", "name": "Green Party", "abbreviation": "GRN"})
    e = parse_election(doc)
    assert [c.id for c in e.straight_party_contest.candidates] == ["REP", "DEM", "LIB"]


def test_malformed_definition_reports_every_problem_at_once_with_its_path():
    doc = general_doc()
    doc["contests"][1]["vote_for"] = 0  # schema: minimum 1
    doc["contests"][2]["candidates"][0]["party"] = "XYZ"  # reference: no such party
    doc["ballot_styles"][0]["precincts"].append("Z999")  # reference: no such precinct
    doc["ballot_styles"][1]["contests"].append("no-such")  # reference: no such contest
    doc["paper_size"] = "a4"  # schema: enum
    del doc["date"]  # schema: required
    problems = problems_of(doc)
    joined = "\n".join(problems)
    assert "$.contests[1].vote_for" in joined
    assert "$.contests[2].candidates[0].party: no party with id 'XYZ'" in joined
    assert "precinct with id 'Z999'" in joined
    assert "contest with id 'no-such'" in joined
    assert "$.paper_size" in joined
    assert "'date' is a required property" in joined
    assert len(problems) >= 6


def test_a_contest_that_allows_more_votes_than_options_is_refused():
    doc = general_doc()
    court = next(c for c in doc["contests"] if c["id"] == "court-of-appeals")  # 2 candidates, no write-ins
    court["vote_for"] = 9
    assert any("vote_for 9 is more than the 2 option(s)" in p for p in problems_of(doc))


def test_duplicate_ids_and_a_slate_without_running_mate_are_refused():
    doc = general_doc()
    doc["precincts"].append(copy.deepcopy(doc["precincts"][0]))
    del doc["contests"][0]["candidates"][1]["running_mate"]
    problems = problems_of(doc)
    assert any("'A101' is used more than once" in p for p in problems)
    assert any("running_mate" in p and "contests[0].candidates[1]" in p for p in problems)


def test_straight_party_is_refused_outside_a_general_election():
    doc = general_doc()
    doc["type"] = "primary"
    assert any(p.startswith("$.straight_party") for p in problems_of(doc))


def test_a_file_that_is_not_json_is_one_clear_problem(tmp_path):
    bad = tmp_path / "election.json"
    bad.write_text("{ not json", encoding="utf-8")
    with pytest.raises(ElectionError) as info:
        load_election(bad)
    assert "not valid JSON" in str(info.value) and "line 1" in str(info.value)


def test_a_missing_file_is_a_clear_problem(tmp_path):
    with pytest.raises(ElectionError, match="cannot read the file"):
        load_election(tmp_path / "nope.json")


def test_the_hash_ignores_formatting_key_order_and_spelled_out_defaults():
    doc = general_doc()
    a = parse_election(doc).hash
    reordered = dict(reversed(list(copy.deepcopy(doc).items())))
    reordered["contests"][3]["partisan"] = True  # the default, spelled out
    reordered["contests"][3]["write_ins"] = doc["contests"][3].get("write_ins", 0)
    assert parse_election(reordered).hash == a


def test_the_hash_changes_when_anything_that_counts_changes():
    doc = general_doc()
    a = parse_election(doc).hash
    doc["contests"][1]["candidates"][0]["name"] = "Robert Caldwel"
    assert parse_election(doc).hash != a
    doc = general_doc()
    doc["thresholds"] = {"marginal": 0.05, "definite": 0.3}
    assert parse_election(doc).hash != a


def test_undervote_is_not_a_reason_to_queue_by_default():
    e = load_election(GENERAL)
    assert "undervote" not in e.adjudication.reasons
    assert "overvote" in e.adjudication.reasons


def test_a_contest_may_name_its_office_for_the_recount_and_slate_clauses_without_changing_older_hashes():
    """KRS 120.157(1) names the offices with an automatic recount; the field is optional."""
    import copy
    import json
    from pathlib import Path

    from tabulate.election import OFFICES, ElectionError, parse_election

    doc = json.loads((Path(__file__).resolve().parents[1] / "samples" / "general" / "election.json").read_text())
    assert doc["contests"][0]["slate"] and doc["contests"][0]["office"] == "president"
    for c in doc["contests"][1:]:
        c.pop("office", None)
    before = parse_election(copy.deepcopy(doc))
    assert all(c.office is None for c in before.contests[1:])
    doc["contests"][1]["office"] = "us_senate"
    named = parse_election(copy.deepcopy(doc))
    assert named.contests[1].office == "us_senate" and "governor" in OFFICES
    assert named.hash != before.hash
    doc["contests"][1]["office"] = "mayor-of-everything"
    with pytest.raises(ElectionError):
        parse_election(doc)


def test_a_slate_contest_must_say_whether_it_is_for_president_or_governor(tmp_path):
    """The slate write-in clauses follow the office, 31 KAR 6:030 Section 4(10): "Writing in the surname of the
    candidate for Governor or the surname of the candidate for Lieutenant Governor shall be sufficient to cast a
    write-in vote for the slate", and Section 4(11), the same for President and Vice President."""
    import json
    from pathlib import Path

    from tabulate.cli import main
    from tabulate.election import ElectionError, parse_election

    doc = json.loads((Path(__file__).resolve().parents[1] / "samples" / "general" / "election.json").read_text())
    for office in (None, "us_senate"):
        if office is None:
            doc["contests"][0].pop("office")
        else:
            doc["contests"][0]["office"] = office
        with pytest.raises(ElectionError) as e:
            parse_election(json.loads(json.dumps(doc)))
        assert [(p.path, p.reason) for p in e.value.problems] == [
            (
                "$.contests[0].office",
                'a slate contest needs office "president" (31 KAR 6:030 Section 4(11)) or "governor" (Section 4(10))',
            )
        ]
    (tmp_path / "e.json").write_text(json.dumps(doc))
    assert main(["zero-file", "--election", str(tmp_path / "e.json")]) == 2
