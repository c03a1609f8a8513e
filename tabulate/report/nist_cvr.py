"""NIST SP 1500-103 cast vote records (``CVR.CastVoteRecordReport``, JSON).

One ``CVR`` per sheet, with up to three snapshots:

- ``original``: every target of the ballot style (straight-party targets
  included) with its fill score as ``MarkMetricValue`` and ``HasIndication``
  ``yes``/``unknown``/``no`` for a marked/marginal/unmarked reading; the hand
  reading (31 KAR 6:030 Section 3(1)), where there is one, as a ``Code``;
- ``interpreted``: the votes after the rules (31 KAR 6:030), with the reasons
  a person must look at the sheet as ``Annotation`` messages;
- ``modified``: the votes after people decided (adjudication and write-in
  names), present once anything was decided.

``CurrentSnapshotId`` names the latest. Images are referenced, not embedded:
``BallotImage`` holds one ``ImageData`` per page with ``Location``
``file:<name>`` and a ``sha-256`` ``Hash``.

The vote type travels through the creating device. ``CVR.CVR`` has no field
for it and allows no others (``additionalProperties: false``), so every
(tabulator, vote type) pair is a ``ReportingDevice`` — a counting group, as
central-count systems call it — whose ``Code`` has ``Type`` ``other``,
``OtherType`` ``vote-type`` and the Kentucky vote type as ``Value`` (a second
code gives the NIST ``CountItemType``); each CVR's ``CreatingDeviceId`` names
it. ``BatchId`` and ``BatchSequenceId`` give the batch and the sheet's place
in it; ``BallotStyleUnitId`` the precinct.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Iterable, TextIO

from .. import __version__
from ..core.errors import ReportError
from ..core.records import BallotRecord
from ..core.vote_types import VOTE_TYPE_LABELS
from ..election.model import VOTE_TYPES, Election
from .nist_cvr_election import (
    _T,
    COUNTY_ID,
    MARK_METRIC,
    REPORT_DEVICE_ID,
    _code,
    _election,
    device_id,
    precinct_gpunit_id,
)
from .nist_cvr_sheet import cast_vote_record
from .nist_results import NIST_COUNT_ITEM_TYPES, iso_timestamp


def _devices(records: list[BallotRecord]) -> list[dict]:
    report = {
        "@id": REPORT_DEVICE_ID,
        "@type": _T + "ReportingDevice",
        "Application": f"ballot-tabulate {__version__}",
        "Notes": ["Generated this report from the tabulator's store."],
    }
    pairs = sorted({(r.tabulator, r.vote_type) for r in records}, key=lambda p: (p[0], VOTE_TYPES.index(p[1])))
    return [report] + [
        {
            "@id": device_id(tab, vt),
            "@type": _T + "ReportingDevice",
            "Application": f"ballot-tabulate {__version__}",
            "Model": "central-count scan",
            "SerialNumber": tab,
            "MarkMetricType": MARK_METRIC,
            "Code": [
                _code("vote-type", vt, VOTE_TYPE_LABELS[vt]),
                _code("nist-count-item-type", NIST_COUNT_ITEM_TYPES[vt]),
            ],
            "Notes": [f"Tabulator {tab} counting {VOTE_TYPE_LABELS[vt].lower()} ballots"],
        }
        for tab, vt in pairs
    ]


def _sorted_unique(records: Iterable[BallotRecord]) -> list[BallotRecord]:
    records = sorted(records, key=lambda r: (r.tabulator, r.batch, r.position, r.ballot_id))
    seen: set[str] = set()
    for r in records:
        if r.ballot_id in seen:
            raise ReportError(f"ballot {r.ballot_id!r} appears twice; a sheet has one cast vote record")
        seen.add(r.ballot_id)
    return records


def _provisional_note(records: list[BallotRecord]) -> str:
    pending = sum(r.status == "needs_review" for r in records)
    return (
        f"PROVISIONAL: {pending} sheet(s) await review; their CVRs hold the machine's reading "
        "(Status needs-adjudication). "
        if pending
        else ""
    )


def _report_head(election: Election, records: list[BallotRecord], generated_at: datetime | None) -> dict:
    """Everything of the report but its CVRs."""
    report_types = ["originating-device-export"] + (["adjudicated"] if any(r.decided for r in records) else [])
    return {
        "@type": _T + "CastVoteRecordReport",
        "Version": "1.0.0",
        "GeneratedDate": iso_timestamp(generated_at),
        "ReportType": report_types,
        "ReportGeneratingDeviceIds": [REPORT_DEVICE_ID],
        "ReportingDevice": _devices(records),
        "GpUnit": [
            {
                "@id": COUNTY_ID,
                "@type": _T + "GpUnit",
                "Type": "other",
                "OtherType": "county",
                "Name": election.jurisdiction,
            }
        ]
        + [
            {"@id": precinct_gpunit_id(p.id), "@type": _T + "GpUnit", "Type": "precinct", "Name": p.name}
            for p in election.precincts
        ],
        "Party": [
            {"@id": f"party-{p.id}", "@type": _T + "Party", "Name": p.name, "Abbreviation": p.abbreviation}
            for p in election.parties
        ],
        "Election": [_election(election)],
        "Notes": (
            _provisional_note(records)
            + "Vote type: the Code 'vote-type' of the ReportingDevice named by each CVR's CreatingDeviceId. "
            f"MarkMetricValue: {MARK_METRIC}."
        ),
    }


def cast_vote_record_report(
    election: Election, records: Iterable[BallotRecord], *, generated_at: datetime | None = None
) -> dict:
    """Every record as a NIST SP 1500-103 ``CVR.CastVoteRecordReport`` (a JSON-ready dict).

    CVRs are ordered by tabulator, batch and position in the batch, whatever
    the order of ``records``; records awaiting review are included (their
    interpreted snapshot has ``Status`` ``needs-adjudication``). For a whole
    county use `write_cast_vote_record_report`, which never holds more than
    one CVR's JSON in memory (about 20 kB per sheet).

    Raises
    ------
    ReportError
        A record does not fit the election, or a ballot id repeats.

    References
    ----------
    NIST SP 1500-103, Cast Vote Records Common Data Format Specification, version 1.0.
    """
    records = _sorted_unique(records)
    cache: dict = {}
    return {
        **_report_head(election, records, generated_at),
        "CVR": [cast_vote_record(election, r, _cache=cache) for r in records],
    }


def write_cast_vote_record_report(
    out: TextIO, election: Election, records: Iterable[BallotRecord], *, generated_at: datetime | None = None
) -> int:
    """Write `cast_vote_record_report` as compact JSON to ``out``, one CVR at a time; return the number of CVRs.

    The JSON decodes to the same document as `cast_vote_record_report`.
    """
    records = _sorted_unique(records)
    head = json.dumps(_report_head(election, records, generated_at), ensure_ascii=False, separators=(",", ":"))
    out.write(head[:-1] + ',"CVR":[')
    cache: dict = {}
    for i, r in enumerate(records):
        if i:
            out.write(",")
        out.write(json.dumps(cast_vote_record(election, r, _cache=cache), ensure_ascii=False, separators=(",", ":")))
    out.write("]}")
    return len(records)
