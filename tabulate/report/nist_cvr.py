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
from typing import Iterable, Mapping, TextIO
from urllib.parse import quote

from .. import __version__
from ..election.model import STRAIGHT_PARTY_CONTEST_ID, VOTE_TYPES, Contest, Election
from ..rules.types import BallotVotes, ContestVotes, OptionMark
from .nist_results import NIST_COUNT_ITEM_TYPES, iso_timestamp
from .records import VOTE_TYPE_LABELS, BallotRecord, ReportError
from .tally import ElectionIndex, check_record

_T = "CVR."
ELECTION_ID = "election"
COUNTY_ID = "gpu-county"
REPORT_DEVICE_ID = "device-report"
_INDICATION = {"marked": "yes", "marginal": "unknown", "unmarked": "no"}
#: What ``MarkMetricValue`` holds.
MARK_METRIC = "fill score: fraction of the target's interior darker than the paper, 0 to 1"


def _code(other_type: str, value: str, label: str | None = None) -> dict:
    c = {"@type": _T + "Code", "Type": "other", "OtherType": other_type, "Value": value}
    if label:
        c["Label"] = label
    return c


def precinct_gpunit_id(precinct_id: str) -> str:
    return f"gpu-{precinct_id}"


def contest_id(cid: str) -> str:
    return f"contest-{cid}"


def selection_id(cid: str, option_id: str) -> str:
    return f"sel-{cid}-{option_id}"


def device_id(tabulator: str, vote_type: str) -> str:
    return f"device-{tabulator}-{vote_type}"


def snapshot_id(ballot_id: str, kind: str) -> str:
    return f"cvr-{ballot_id}-{kind}"


# -- the election ----------------------------------------------------------------


def _candidates(election: Election) -> list[dict]:
    out = []
    for contest in election.contests:
        people = [(c.id, c.name, c.party, c.running_mate) for c in contest.candidates]
        people += [(w.id, w.name, None, w.running_mate) for w in contest.declared_write_ins]
        for pid, name, party, mate in people:
            for suffix, who in (("", name), ("-running-mate", mate)):
                if who:
                    c = {"@id": f"cand-{contest.id}-{pid}{suffix}", "@type": _T + "Candidate", "Name": who}
                    if party:
                        c["PartyId"] = f"party-{party}"
                    out.append(c)
    return out


def _candidate_ids(contest: Contest, pid: str, mate: str | None) -> list[str]:
    return [f"cand-{contest.id}-{pid}"] + ([f"cand-{contest.id}-{pid}-running-mate"] if mate else [])


def _contest_def(election: Election, c: Contest) -> dict:
    if c.id == STRAIGHT_PARTY_CONTEST_ID:
        return {
            "@id": contest_id(c.id),
            "@type": _T + "PartyContest",
            "Name": c.title,
            "ContestSelection": [
                {"@id": selection_id(c.id, o.id), "@type": _T + "PartySelection", "PartyIds": [f"party-{o.id}"]}
                for o in c.options
            ],
        }
    if c.type == "question":
        return {
            "@id": contest_id(c.id),
            "@type": _T + "BallotMeasureContest",
            "Name": c.title,
            "ContestSelection": [
                {"@id": selection_id(c.id, o.id), "@type": _T + "BallotMeasureSelection", "Selection": o.label}
                for o in c.options
            ],
        }
    sels = []
    for o in c.options:
        s = {"@id": selection_id(c.id, o.id), "@type": _T + "CandidateSelection"}
        if o.kind == "write_in":
            s["IsWriteIn"] = True
        else:
            s["CandidateIds"] = _candidate_ids(c, o.id, o.running_mate)
        sels.append(s)
    sels += [
        {
            "@id": selection_id(c.id, w.id),
            "@type": _T + "CandidateSelection",
            "IsWriteIn": True,
            "CandidateIds": _candidate_ids(c, w.id, w.running_mate),
        }
        for w in c.declared_write_ins
    ]
    return {
        "@id": contest_id(c.id),
        "@type": _T + "CandidateContest",
        "Name": c.title,
        "VotesAllowed": c.vote_for,
        "NumberElected": c.vote_for,
        "VoteVariation": "plurality" if c.vote_for == 1 else "n-of-m",
        "ContestSelection": sels,
    }


def _election(election: Election) -> dict:
    contests = ([election.straight_party_contest] if election.straight_party else []) + list(election.contests)
    return {
        "@id": ELECTION_ID,
        "@type": _T + "Election",
        "Name": election.title,
        "ElectionScopeId": COUNTY_ID,
        "Code": [_code("election-hash-sha256", election.hash)] if election.hash else [],
        "Candidate": _candidates(election),
        "Contest": [_contest_def(election, c) for c in contests],
    }


# -- one sheet ----------------------------------------------------------------------


class _StyleTargets:
    """A style's contests in ballot order (straight party first) and each target's position on the sheet."""

    def __init__(self, election: Election, style_id: str):
        self.contests = election.style_contests(style_id)
        self.position: dict[tuple[str, str], int] = {}
        self.option_position: dict[tuple[str, str], int] = {}
        for c in self.contests:
            for i, o in enumerate(c.options, start=1):
                self.position[(c.id, o.id)] = len(self.position) + 1
                self.option_position[(c.id, o.id)] = i


class _Sheet:
    """What the snapshots of one record need: its style's targets and the marks."""

    def __init__(self, targets: _StyleTargets, record: BallotRecord):
        self.record = record
        self.contests = targets.contests
        self.position = targets.position
        self.option_position = targets.option_position
        for cid, opts in record.marks.marks.items():
            for oid in opts:
                if (cid, oid) not in self.position:
                    raise ReportError(
                        f"ballot {record.ballot_id!r}: a mark at {cid}/{oid}, "
                        f"which is not a target of style {record.style_id!r}"
                    )

    def mark(self, cid: str, oid: str) -> OptionMark:
        return self.record.marks.marks.get(cid, {}).get(oid) or OptionMark()

    def original(self) -> dict:
        contests = []
        for c in self.contests:
            sels = []
            for o in c.options:
                m = self.mark(c.id, o.id)
                pos = {
                    "@type": _T + "SelectionPosition",
                    "Position": self.position[(c.id, o.id)],
                    "HasIndication": _INDICATION[m.scan],
                    "NumberVotes": int(m.scan == "marked"),
                }
                if m.score is not None:
                    pos["MarkMetricValue"] = [f"{m.score:.4f}"]
                if m.hand is not None:
                    pos["Code"] = [_code("hand-count-reading", m.hand)]
                if m.write_in_ink:
                    pos["CVRWriteIn"] = {"@type": _T + "CVRWriteIn"}
                sels.append(
                    {
                        "@type": _T + "CVRContestSelection",
                        "ContestSelectionId": selection_id(c.id, o.id),
                        "OptionPosition": self.option_position[(c.id, o.id)],
                        "SelectionPosition": [pos],
                    }
                )
            contests.append({"@type": _T + "CVRContest", "ContestId": contest_id(c.id), "CVRContestSelection": sels})
        return {
            "@id": snapshot_id(self.record.ballot_id, "original"),
            "@type": _T + "CVRSnapshot",
            "Type": "original",
            "CVRContest": contests,
        }

    def _selection(
        self,
        c: Contest,
        oid: str,
        *,
        allocable: bool,
        generated: bool = False,
        status: tuple[str, ...] = (),
        sel_status: tuple[str, ...] = (),
        write_in: str | bool | None = False,
        credited_to: str | None = None,
    ) -> dict:
        m = self.mark(c.id, oid)
        pos = {
            "@type": _T + "SelectionPosition",
            "Position": self.position[(c.id, oid)],
            "HasIndication": _INDICATION[m.scan],
            "NumberVotes": 1,
            "IsAllocable": "yes" if allocable else "no",
        }
        if generated:
            pos["IsGenerated"] = True
        if status:
            pos["Status"] = list(status)
        if write_in is not False:
            pos["CVRWriteIn"] = {"@type": _T + "CVRWriteIn", **({"Text": write_in} if write_in else {})}
        sel = {
            "@type": _T + "CVRContestSelection",
            "ContestSelectionId": selection_id(c.id, credited_to or oid),
            "OptionPosition": self.option_position[(c.id, oid)],
            "SelectionPosition": [pos],
        }
        if sel_status:
            sel["Status"] = list(sel_status)
        return sel

    def _straight_party(self, c: Contest, votes: BallotVotes) -> dict:
        marked = [o.id for o in c.options if self.mark(c.id, o.id).scan == "marked"]
        out = {"@type": _T + "CVRContest", "ContestId": contest_id(c.id)}
        if votes.straight_party:
            out.update(
                Selections=1,
                Overvotes=0,
                Undervotes=0,
                CVRContestSelection=[self._selection(c, votes.straight_party, allocable=True)],
            )
        elif len(marked) > 1:  # 31 KAR 6:030 Section 5: two parties marked, no straight-party vote
            out.update(
                Selections=0,
                Overvotes=1,
                Undervotes=0,
                Status=["overvoted"],
                CVRContestSelection=[
                    self._selection(c, o, allocable=False, status=("invalidated-rules",)) for o in marked
                ],
            )
        else:
            out.update(Selections=0, Overvotes=0, Undervotes=1, Status=["not-indicated"])
        return out

    def _contest(self, c: Contest, cv: ContestVotes, resolutions: Mapping | None, changed: bool) -> dict:
        write_lines = {o.id for o in c.options if o.kind == "write_in"}
        sels = []
        adjudicated = ("adjudicated",) if changed else ()
        for oid in cv.selections:
            if oid not in write_lines:
                sels.append(
                    self._selection(
                        c,
                        oid,
                        allocable=True,
                        generated=cv.from_straight_party,
                        status=("generated-rules",) if cv.from_straight_party else adjudicated,
                    )
                )
            elif resolutions is None or (c.id, oid) not in resolutions:
                sels.append(
                    self._selection(
                        c, oid, allocable=True, write_in=None, status=adjudicated, sel_status=("needs-adjudication",)
                    )
                )
            elif resolutions[(c.id, oid)] is None:  # 31 KAR 6:030 Section 4: the name cannot count
                sels.append(self._selection(c, oid, allocable=False, write_in=None, status=("adjudicated",)))
            else:
                who = resolutions[(c.id, oid)]
                name = next(w.name for w in c.declared_write_ins if w.id == who)
                sels.append(
                    self._selection(c, oid, allocable=True, write_in=name, status=("adjudicated",), credited_to=who)
                )
        if cv.overvotes:  # 31 KAR 6:030 Section 2(2)(b): no option gets credit
            sels += [
                self._selection(c, o.id, allocable=False, status=("invalidated-rules",) + adjudicated)
                for o in c.options
                if self.mark(c.id, o.id).scan != "unmarked"
            ]
        status = (
            ["overvoted"]
            if cv.overvotes
            else ["not-indicated"]
            if not cv.selections
            else ["undervoted"]
            if cv.undervotes
            else []
        )
        out = {
            "@type": _T + "CVRContest",
            "ContestId": contest_id(c.id),
            "Selections": len(cv.selections),
            "Overvotes": cv.overvotes,
            "Undervotes": cv.undervotes,
            "WriteIns": sum(1 for s in cv.selections if s in write_lines),
        }
        if status:
            out["Status"] = status
        if sels:
            out["CVRContestSelection"] = sels
        return out

    def votes_snapshot(
        self,
        kind: str,
        votes: BallotVotes,
        resolutions: Mapping | None,
        before: BallotVotes | None = None,
        needs_review: bool = False,
    ) -> dict:
        contests = []
        for c in self.contests:
            if c.id == STRAIGHT_PARTY_CONTEST_ID:
                contests.append(self._straight_party(c, votes))
                continue
            cv = votes.contest(c.id)
            changed = before is not None and _differs(before, cv)
            contests.append(self._contest(c, cv, resolutions, changed))
        snap = {
            "@id": snapshot_id(self.record.ballot_id, kind),
            "@type": _T + "CVRSnapshot",
            "Type": kind,
            "CVRContest": contests,
        }
        if needs_review:
            snap["Status"] = ["needs-adjudication"]
        if votes.reasons:
            snap["Annotation"] = [{"@type": _T + "Annotation", "Message": [_reason_text(r) for r in votes.reasons]}]
        return snap


def _reason_text(reason) -> str:
    """``"overvote mayor"``, ``"marginal_mark president pres-hale: 0.12"``."""
    where = "".join(f" {x}" for x in (reason.contest_id, reason.option_id) if x)
    return reason.code + where + (f": {reason.detail}" if reason.detail else "")


def _differs(before: BallotVotes, cv: ContestVotes) -> bool:
    try:
        old = before.contest(cv.contest_id)
    except KeyError:
        return True
    return (old.selections, old.overvotes, old.undervotes) != (cv.selections, cv.overvotes, cv.undervotes)


def cast_vote_record(election: Election, record: BallotRecord, *, _cache: dict | None = None) -> dict:
    """One sheet as a ``CVR.CVR`` (snapshots original, interpreted and, once decided, modified)."""
    cache = _cache if _cache is not None else {}
    if "index" not in cache:
        cache["index"] = ElectionIndex(election)
    check_record(election, record, cache["index"])
    targets = cache.get(("style", record.style_id))
    if targets is None:
        targets = cache[("style", record.style_id)] = _StyleTargets(election, record.style_id)
    sheet = _Sheet(targets, record)
    snaps = [
        sheet.original(),
        sheet.votes_snapshot(
            "interpreted",
            record.interpreted,
            None,
            needs_review=record.interpreted.needs_review or (record.status == "needs_review" and not record.decided),
        ),
    ]
    if record.decided:
        snaps.append(
            sheet.votes_snapshot(
                "modified",
                record.votes,
                record.write_ins,
                before=record.interpreted,
                needs_review=record.status == "needs_review",
            )
        )
    cvr = {
        "@type": _T + "CVR",
        "ElectionId": ELECTION_ID,
        "UniqueId": record.ballot_id,
        "BallotStyleId": record.style_id,
        "BallotStyleUnitId": precinct_gpunit_id(record.precinct_id),
        "BatchId": record.batch,
        "BatchSequenceId": record.position,
        "CreatingDeviceId": device_id(record.tabulator, record.vote_type),
        "BallotImage": [
            {
                "@type": _T + "ImageData",
                "Location": "file:" + quote(name),
                "Hash": {"@type": _T + "Hash", "Type": "sha-256", "Value": digest},
            }
            for name, digest in record.images
        ],
        "CVRSnapshot": snaps,
        "CurrentSnapshotId": snaps[-1]["@id"],
    }
    party = cache["index"].styles[record.style_id].party
    if party:
        cvr["PartyIds"] = [f"party-{party}"]
    return cvr


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
