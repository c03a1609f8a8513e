"""NIST SP 1500-100 v2 election results (``ElectionResults.ElectionReport``, JSON).

Precinct-level: every selection carries one ``VoteCounts`` per precinct where
its contest is on a ballot and per vote type, zeros included. Kentucky's vote
types map to NIST ``CountItemType`` as in `NIST_COUNT_ITEM_TYPES`.

Write-ins: each declared write-in candidate is a ``CandidateSelection`` with
``IsWriteIn`` and their resolved votes; one more ``IsWriteIn`` selection without
a candidate (``…-write-in``) holds the rest of the write-in lines' votes
(pending and not counted), so that a contest's selections add up to its votes.
Overvotes and undervotes (slots) go in ``OtherCounts`` per precinct (the
schema has no vote type there, so they are summed over vote types); ballots
cast per precinct and vote type go in ``BallotCounts``.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from .. import __version__
from ..election.model import Contest, Election
from .tally import ContestTally, Tally

#: Kentucky vote type -> NIST ``CountItemType``.
NIST_COUNT_ITEM_TYPES: dict[str, str] = {
    "mail_in_absentee": "absentee-mail",
    "excused_in_person_absentee": "absentee-in-person",
    "no_excuse_in_person_absentee": "early",
    "election_day": "election-day",
    "provisional": "provisional",
}

#: ``Election.Type`` per our election type; Kentucky primaries are closed (KRS 116.055).
_ELECTION_TYPES = {"general": "general", "primary": "partisan-primary-closed", "special": "special"}

#: NIST ``ResultsStatus`` values.
_RESULTS_STATUSES = ("certified", "correction", "pre-election", "recount", "unofficial-complete", "unofficial-partial")

COUNTY_ID = "ru-county"
_T = "ElectionResults."


def iso_timestamp(when: datetime | None) -> str:
    """``when`` as ``YYYY-MM-DDTHH:MM:SSZ`` (naive means UTC).

    ``None`` means now, unless ``SOURCE_DATE_EPOCH`` is set (the reproducible-builds
    convention): then that instant, so an export of the same ballots is the
    same bytes every run, its generation date included.
    """
    if when is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
        when = datetime.fromtimestamp(int(epoch), timezone.utc) if epoch.isdigit() else datetime.now(timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _text(s: str) -> dict:
    return {
        "@type": _T + "InternationalizedText",
        "Text": [{"@type": _T + "LanguageString", "Content": s, "Language": "en"}],
    }


def precinct_gpunit_id(precinct_id: str) -> str:
    return f"ru-{precinct_id}"


def selection_id(contest_id: str, option_id: str) -> str:
    return f"sel-{contest_id}-{option_id}"


def candidate_id(contest_id: str, candidate: str, running_mate: bool = False) -> str:
    return f"cand-{contest_id}-{candidate}" + ("-running-mate" if running_mate else "")


def _candidates(election: Election) -> list[dict]:
    out = []

    def add(contest: Contest, cid: str, name: str, party: str | None, running_mate: str | None, filed: bool):
        c = {"@id": candidate_id(contest.id, cid), "@type": _T + "Candidate", "BallotName": _text(name)}
        if party:
            c["PartyId"] = f"party-{party}"
        if filed:
            c["PreElectionStatus"] = "filed"
        out.append(c)
        if running_mate:
            rm = {
                "@id": candidate_id(contest.id, cid, True),
                "@type": _T + "Candidate",
                "BallotName": _text(running_mate),
            }
            if party:
                rm["PartyId"] = f"party-{party}"
            out.append(rm)

    for contest in election.contests:
        for c in contest.candidates:
            add(contest, c.id, c.name, c.party, c.running_mate, False)
        for w in contest.declared_write_ins:
            add(contest, w.id, w.name, None, w.running_mate, True)
    return out


def _candidate_ids(contest: Contest, cid: str, running_mate: str | None) -> list[str]:
    return [candidate_id(contest.id, cid)] + ([candidate_id(contest.id, cid, True)] if running_mate else [])


def _vote_counts(ct: ContestTally, count) -> list[dict]:
    """``VoteCounts`` of one selection: ``count(ContestCounts) -> int`` per precinct x vote type."""
    return [
        {
            "@type": _T + "VoteCounts",
            "GpUnitId": precinct_gpunit_id(p),
            "Type": NIST_COUNT_ITEM_TYPES[v],
            "Count": count(c),
        }
        for p, v, c in ct.cells
    ]


def _contest(ct: ContestTally, order: int) -> dict:
    c = ct.contest
    sels = []
    seq = 0
    for o in c.options:
        if o.kind == "write_in":
            continue
        seq += 1
        if c.type == "question":
            sels.append(
                {
                    "@id": selection_id(c.id, o.id),
                    "@type": _T + "BallotMeasureSelection",
                    "Selection": _text(o.label),
                    "SequenceOrder": seq,
                    "VoteCounts": _vote_counts(ct, lambda x, o=o: x.votes_for(o.id)),
                }
            )
        else:
            sels.append(
                {
                    "@id": selection_id(c.id, o.id),
                    "@type": _T + "CandidateSelection",
                    "CandidateIds": _candidate_ids(c, o.id, o.running_mate),
                    "SequenceOrder": seq,
                    "VoteCounts": _vote_counts(ct, lambda x, o=o: x.votes_for(o.id)),
                }
            )
    if c.write_ins:
        for w in c.declared_write_ins:
            seq += 1
            sels.append(
                {
                    "@id": selection_id(c.id, w.id),
                    "@type": _T + "CandidateSelection",
                    "CandidateIds": _candidate_ids(c, w.id, w.running_mate),
                    "IsWriteIn": True,
                    "SequenceOrder": seq,
                    "VoteCounts": _vote_counts(ct, lambda x, w=w: x.write_ins.for_candidate(w.id)),
                }
            )
        seq += 1
        sels.append(
            {
                "@id": selection_id(c.id, "write-in"),
                "@type": _T + "CandidateSelection",
                "IsWriteIn": True,
                "SequenceOrder": seq,
                "VoteCounts": _vote_counts(ct, lambda x: x.write_ins.pending + x.write_ins.not_counted),
            }
        )
    other = [
        {
            "@type": _T + "OtherCounts",
            "GpUnitId": precinct_gpunit_id(p),
            "Overvotes": ct.counts(p).overvotes,
            "Undervotes": ct.counts(p).undervotes,
        }
        for p in ct.precinct_ids
    ]
    base = {
        "@id": f"contest-{c.id}",
        "ElectionDistrictId": COUNTY_ID,
        "Name": c.title,
        "SequenceOrder": order,
        "ContestSelection": sels,
        "OtherCounts": other,
    }
    if c.type == "question":
        base.update({"@type": _T + "BallotMeasureContest", "Type": "ballot-measure"})
        if c.text:
            base["FullText"] = _text(c.text)
        return base
    base.update(
        {
            "@type": _T + "CandidateContest",
            "VotesAllowed": c.vote_for,
            "NumberElected": c.vote_for,
            "VoteVariation": "plurality" if c.vote_for == 1 else "n-of-m",
        }
    )
    return base


def _gp_units(election: Election) -> list[dict]:
    county = {
        "@id": COUNTY_ID,
        "@type": _T + "ReportingUnit",
        "Type": "county",
        "Name": _text(election.jurisdiction),
        "ComposingGpUnitIds": [precinct_gpunit_id(p.id) for p in election.precincts],
    }
    return [county] + [
        {"@id": precinct_gpunit_id(p.id), "@type": _T + "ReportingUnit", "Type": "precinct", "Name": _text(p.name)}
        for p in election.precincts
    ]


def _ballot_styles(election: Election) -> list[dict]:
    out = []
    for s in election.ballot_styles:
        style = {
            "@type": _T + "BallotStyle",
            "GpUnitIds": [precinct_gpunit_id(p) for p in s.precincts],
            "OrderedContent": [{"@type": _T + "OrderedContest", "ContestId": f"contest-{c}"} for c in s.contests],
            "ExternalIdentifier": [{"@type": _T + "ExternalIdentifier", "Type": "local-level", "Value": s.id}],
        }
        if s.party:
            style["PartyIds"] = [f"party-{s.party}"]
        out.append(style)
    return out


def _provisional_note(tally: Tally) -> str:
    pending = tally.ballot_counts().awaiting_review
    return f"PROVISIONAL: {pending} sheet(s) await review; their machine reading is counted here. " if pending else ""


def election_results_report(
    tally: Tally,
    *,
    generated_at: datetime | None = None,
    status: str = "unofficial-partial",
    issuer_abbreviation: str = "KY",
    is_test: bool = False,
) -> dict:
    """The tally as a NIST SP 1500-100 v2 ``ElectionResults.ElectionReport`` (a JSON-ready dict).

    Parameters
    ----------
    tally
        The tally to report.
    generated_at
        Time stamp of the report (now, UTC, by default).
    status
        NIST ``ResultsStatus``: ``unofficial-partial`` (default), ``unofficial-complete``,
        ``certified``, ``recount``, ``correction`` or ``pre-election``.
    issuer_abbreviation
        ``IssuerAbbreviation`` (the issuer is the election's jurisdiction).
    is_test
        Mark the report as a test (accuracy test decks, 31 KAR 2:020).

    References
    ----------
    NIST SP 1500-100r2, Election Results Common Data Format Specification, version 2.
    """
    if status not in _RESULTS_STATUSES:
        raise ValueError(f"status must be one of {', '.join(_RESULTS_STATUSES)}, not {status!r}")
    e = tally.election
    report = {
        "@type": _T + "ElectionReport",
        "Format": "precinct-level",
        "GeneratedDate": iso_timestamp(generated_at),
        "Issuer": e.jurisdiction,
        "IssuerAbbreviation": issuer_abbreviation,
        "SequenceStart": 1,
        "SequenceEnd": 1,
        "Status": status,
        "VendorApplicationId": f"ballot-tabulate {__version__}",
        "Notes": _provisional_note(tally)
        + "Vote types: "
        + ", ".join(f"{k} -> {v}" for k, v in NIST_COUNT_ITEM_TYPES.items()),
        "GpUnit": _gp_units(e),
        "Party": [
            {
                "@id": f"party-{p.id}",
                "@type": _T + "Party",
                "Name": _text(p.name),
                "Abbreviation": _text(p.abbreviation),
            }
            for p in e.parties
        ],
        "Election": [
            {
                "@type": _T + "Election",
                "ElectionScopeId": COUNTY_ID,
                "StartDate": e.date,
                "EndDate": e.date,
                "Name": _text(e.title),
                "Type": _ELECTION_TYPES.get(e.type, "other"),
                "Candidate": _candidates(e),
                "Contest": [_contest(ct, i) for i, ct in enumerate(tally.contests, start=1)],
                "BallotStyle": _ballot_styles(e),
                "BallotCounts": [
                    {
                        "@type": _T + "BallotCounts",
                        "GpUnitId": precinct_gpunit_id(p),
                        "Type": NIST_COUNT_ITEM_TYPES[v],
                        "BallotsCast": b.counted,
                    }
                    for p, v, b in tally.ballots
                ],
            }
        ],
    }
    if is_test:
        report["IsTest"] = True
    return report
