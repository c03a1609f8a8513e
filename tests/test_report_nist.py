"""NIST exports: SP 1500-100 v2 results and SP 1500-103 cast vote records validate, and every reference resolves."""

import hashlib
import io
import json
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import unquote

import pytest

from tabulate.election import VOTE_TYPES, load_election
from tabulate.report import (
    NIST_COUNT_ITEM_TYPES,
    cast_vote_record_report,
    election_results_report,
    tally_records,
    write_cast_vote_record_report,
)
from tabulate.report.synthetic import make_record, synthetic_records

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = Path(__file__).resolve().parents[2] / "shared" / "schemas"
ELECTION = load_election(ROOT / "samples" / "general" / "election.json")
RECORDS = synthetic_records(ELECTION, 150, seed=11)
WHEN = datetime(2028, 11, 7, 23, 30, tzinfo=timezone.utc)


def schema(name):
    path = SCHEMAS / name
    if not path.exists():
        pytest.skip(f"NIST schema {name} not found at ../shared/schemas (a fresh clone has no shared folder)")
    return json.loads(path.read_text(encoding="utf-8"))


ERR = "NIST_V2_election_results_reporting.json"
CVR = "NIST_V0_cast_vote_records.json"


def schema_errors(doc, s):
    validator = jsonschema.Draft4Validator(s, format_checker=jsonschema.FormatChecker())
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(doc)]


def objects_by_id(doc):
    ids = {}

    def walk(x):
        if isinstance(x, dict):
            if "@id" in x:
                assert x["@id"] not in ids, f"@id {x['@id']} is used twice"
                ids[x["@id"]] = x["@type"]
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(doc)
    return ids


def dangling_references(doc, s):
    """Every property the schema marks with ``refTypes`` must name an ``@id`` of one of those types."""
    ids = objects_by_id(doc)
    definitions = s["definitions"]
    bad, checked = [], [0]

    def walk(x):
        if isinstance(x, dict):
            props = definitions[x["@type"]]["properties"] if "@type" in x else {}
            for key, value in x.items():
                p = props.get(key, {})
                ref_types = p.get("refTypes") or p.get("items", {}).get("refTypes")
                if ref_types:
                    for ref in value if isinstance(value, list) else [value]:
                        checked[0] += 1
                        if ids.get(ref) not in ref_types:
                            bad.append(f"{x['@type']}.{key} -> {ref!r} (a {ids.get(ref)}, wants {ref_types})")
                walk(value)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(doc)
    return bad, checked[0]


# -- SP 1500-100 v2 results -----------------------------------------------------------


def test_election_results_report_validates_against_the_nist_schema():
    doc = election_results_report(tally_records(ELECTION, RECORDS), generated_at=WHEN)
    assert schema_errors(doc, schema(ERR)) == []


def test_the_schema_check_does_catch_a_field_the_standard_does_not_have():
    doc = election_results_report(tally_records(ELECTION, RECORDS[:5]), generated_at=WHEN)
    doc["Election"][0]["Contest"][0]["VoteType"] = "x"
    assert schema_errors(doc, schema(ERR))


def test_every_reference_in_the_results_report_resolves():
    doc = election_results_report(tally_records(ELECTION, RECORDS), generated_at=WHEN)
    bad, checked = dangling_references(doc, schema(ERR))
    assert bad == [] and checked > 1000


def test_results_report_counts_per_precinct_and_kentucky_vote_type_match_the_tally():
    tally = tally_records(ELECTION, RECORDS)
    doc = election_results_report(tally, generated_at=WHEN)
    assert set(NIST_COUNT_ITEM_TYPES) == set(VOTE_TYPES)
    assert NIST_COUNT_ITEM_TYPES["no_excuse_in_person_absentee"] == "early"
    assert NIST_COUNT_ITEM_TYPES["excused_in_person_absentee"] == "absentee-in-person"
    back = {v: k for k, v in NIST_COUNT_ITEM_TYPES.items()}
    contest = next(c for c in doc["Election"][0]["Contest"] if c["@id"] == "contest-president")
    hale = next(s for s in contest["ContestSelection"] if s["@id"] == "sel-president-pres-hale")
    ct = tally.contest("president")
    for vc in hale["VoteCounts"]:
        precinct = vc["GpUnitId"].removeprefix("ru-")
        assert vc["Count"] == ct.counts(precinct, back[vc["Type"]]).votes_for("pres-hale")
    assert len(hale["VoteCounts"]) == len(ELECTION.precincts) * len(VOTE_TYPES)
    # A contest's selections add up to its votes: declared write-ins plus the rest of the write-in lines.
    total = sum(vc["Count"] for s in contest["ContestSelection"] for vc in s["VoteCounts"])
    assert total == ct.counts().total_votes
    assert doc["GeneratedDate"] == "2028-11-07T23:30:00Z" and doc["Format"] == "precinct-level"


# -- SP 1500-103 cast vote records ---------------------------------------------------------


@pytest.mark.slow
def test_cast_vote_records_validate_against_the_nist_schema():
    doc = cast_vote_record_report(ELECTION, RECORDS, generated_at=WHEN)
    assert schema_errors(doc, schema(CVR)) == []
    assert len(doc["CVR"]) == len(RECORDS)


def test_every_reference_in_the_cast_vote_records_resolves_and_names_the_right_snapshot():
    doc = cast_vote_record_report(ELECTION, RECORDS, generated_at=WHEN)
    bad, checked = dangling_references(doc, schema(CVR))
    assert bad == [] and checked > 1000
    for cvr in doc["CVR"]:
        own = [s["@id"] for s in cvr["CVRSnapshot"]]
        assert cvr["CurrentSnapshotId"] == own[-1]
        assert [s["Type"] for s in cvr["CVRSnapshot"]][:2] == ["original", "interpreted"]


def test_the_original_snapshot_holds_every_targets_score_and_indication():
    r = make_record(
        ELECTION, "x", {"president": ("pres-okafor",)}, style_id="2", precinct_id="B201", straight_party="DEM"
    )
    doc = cast_vote_record_report(ELECTION, [r], generated_at=WHEN)
    original = doc["CVR"][0]["CVRSnapshot"][0]
    targets = sum(len(c.options) for c in ELECTION.style_contests("2"))
    positions = [p for c in original["CVRContest"] for s in c["CVRContestSelection"] for p in s["SelectionPosition"]]
    assert len(positions) == targets
    assert sorted(p["Position"] for p in positions) == list(range(1, targets + 1))
    by_sel = {
        s["ContestSelectionId"]: s["SelectionPosition"][0]
        for c in original["CVRContest"]
        for s in c["CVRContestSelection"]
    }
    assert by_sel["sel-president-pres-okafor"]["HasIndication"] == "yes"
    assert by_sel["sel-president-pres-okafor"]["MarkMetricValue"] == ["0.6000"]
    assert by_sel["sel-president-pres-hale"]["HasIndication"] == "no"
    assert by_sel["sel-straight-party-DEM"]["HasIndication"] == "yes"


def test_a_marginal_mark_is_an_unknown_indication():
    from dataclasses import replace

    from tabulate.core.marks import BallotMarks, OptionMark

    r = make_record(ELECTION, "x", {"president": ("pres-okafor",)}, style_id="2", precinct_id="B201")
    marks = {k: dict(v) for k, v in r.marks.marks.items()}
    marks["president"]["pres-hale"] = OptionMark("marginal", score=0.12)
    r = replace(r, marks=BallotMarks("x", "2", marks, "B201"))
    original = cast_vote_record_report(ELECTION, [r], generated_at=WHEN)["CVR"][0]["CVRSnapshot"][0]
    pres = next(c for c in original["CVRContest"] if c["ContestId"] == "contest-president")
    hale = next(s for s in pres["CVRContestSelection"] if s["ContestSelectionId"] == "sel-president-pres-hale")
    assert hale["SelectionPosition"][0]["HasIndication"] == "unknown"
    assert hale["SelectionPosition"][0]["MarkMetricValue"] == ["0.1200"]


def test_a_modified_snapshot_appears_once_people_decide_and_carries_the_resolved_write_in():
    undecided = make_record(ELECTION, "u", {"us-senate": ("write-in-1",)}, style_id="1", precinct_id="A101")
    decided = make_record(
        ELECTION,
        "d",
        {"us-senate": ("write-in-1",), "mayor": "overvote"},
        style_id="1",
        precinct_id="A101",
        position=2,
        modified={"mayor": ("may-garza",)},
        write_ins={("us-senate", "write-in-1"): "sen-wi-foster"},
    )
    doc = cast_vote_record_report(ELECTION, [undecided, decided], generated_at=WHEN)
    u, d = doc["CVR"]
    assert [s["Type"] for s in u["CVRSnapshot"]] == ["original", "interpreted"]
    assert u["CurrentSnapshotId"] == "cvr-u-interpreted"
    assert [s["Type"] for s in d["CVRSnapshot"]] == ["original", "interpreted", "modified"]
    assert d["CurrentSnapshotId"] == "cvr-d-modified"
    interpreted, modified = d["CVRSnapshot"][1], d["CVRSnapshot"][2]
    senate = next(c for c in modified["CVRContest"] if c["ContestId"] == "contest-us-senate")
    sel = senate["CVRContestSelection"][0]
    assert sel["ContestSelectionId"] == "sel-us-senate-sen-wi-foster"
    assert sel["SelectionPosition"][0]["CVRWriteIn"]["Text"] == "Jenna Foster"
    pending = next(c for c in interpreted["CVRContest"] if c["ContestId"] == "contest-us-senate")
    assert pending["CVRContestSelection"][0]["Status"] == ["needs-adjudication"]
    mayor_before = next(c for c in interpreted["CVRContest"] if c["ContestId"] == "contest-mayor")
    mayor_after = next(c for c in modified["CVRContest"] if c["ContestId"] == "contest-mayor")
    assert mayor_before["Status"] == ["overvoted"] and mayor_before["Overvotes"] == 1
    assert all(s["SelectionPosition"][0]["IsAllocable"] == "no" for s in mayor_before["CVRContestSelection"])
    assert (
        mayor_after["Selections"] == 1
        and "adjudicated" in mayor_after["CVRContestSelection"][0]["SelectionPosition"][0]["Status"]
    )
    assert "adjudicated" in doc["ReportType"]
    assert schema_errors(doc, schema(CVR)) == []


def test_the_vote_type_travels_as_the_code_of_the_creating_device():
    doc = cast_vote_record_report(ELECTION, RECORDS, generated_at=WHEN)
    devices = {d["@id"]: d for d in doc["ReportingDevice"]}
    by_ballot = {r.ballot_id: r for r in RECORDS}
    for cvr in doc["CVR"]:
        codes = {c["OtherType"]: c["Value"] for c in devices[cvr["CreatingDeviceId"]]["Code"]}
        record = by_ballot[cvr["UniqueId"]]
        assert codes["vote-type"] == record.vote_type
        assert codes["nist-count-item-type"] == NIST_COUNT_ITEM_TYPES[record.vote_type]
        assert (cvr["BatchId"], cvr["BatchSequenceId"]) == (record.batch, record.position)
        assert cvr["BallotStyleUnitId"] == f"gpu-{record.precinct_id}"


def test_image_references_carry_the_sha256_of_the_image_files(tmp_path):
    images = []
    for page in (1, 2):
        path = tmp_path / f"sheet 7 page {page}.png"
        path.write_bytes(bytes([page]) * 1000)
        images.append((path.name, hashlib.sha256(path.read_bytes()).hexdigest()))
    r = make_record(ELECTION, "s7", {"president": ("pres-hale",)}, style_id="3", precinct_id="C301", images=images)
    doc = cast_vote_record_report(ELECTION, [r], generated_at=WHEN)
    refs = doc["CVR"][0]["BallotImage"]
    assert len(refs) == 2
    for ref in refs:
        assert ref["Location"].startswith("file:")
        data = (tmp_path / unquote(ref["Location"].removeprefix("file:"))).read_bytes()
        assert ref["Hash"] == {"@type": "CVR.Hash", "Type": "sha-256", "Value": hashlib.sha256(data).hexdigest()}
    assert schema_errors(doc, schema(CVR)) == []


def test_interpreted_contests_add_up_to_the_votes_allowed():
    doc = cast_vote_record_report(ELECTION, RECORDS, generated_at=WHEN)
    allowed = {c["@id"]: c.get("VotesAllowed", 1) for c in doc["Election"][0]["Contest"]}
    for cvr in doc["CVR"]:
        for snap in cvr["CVRSnapshot"][1:]:
            for c in snap["CVRContest"]:
                assert c["Selections"] + c["Overvotes"] + c["Undervotes"] == allowed[c["ContestId"]]


def test_the_streamed_cast_vote_record_report_is_the_same_document():
    out = io.StringIO()
    assert write_cast_vote_record_report(out, ELECTION, RECORDS[:30], generated_at=WHEN) == 30
    assert json.loads(out.getvalue()) == cast_vote_record_report(ELECTION, RECORDS[:30], generated_at=WHEN)


def test_source_date_epoch_makes_the_generation_date_and_so_the_export_reproducible(monkeypatch):
    from tabulate.report.nist_results import iso_timestamp

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1830297600")
    assert iso_timestamp(None) == "2028-01-01T00:00:00Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")
    assert iso_timestamp(None) != "2028-01-01T00:00:00Z"
