"""The NIST SP 1500-103 report's election: the ids its parts share, its candidates and its contests.

`tabulate.report.nist_cvr` builds the report; `tabulate.report.nist_cvr_sheet`
builds each sheet's ``CVR`` with the ids made here.
"""

from __future__ import annotations

from ..election.model import STRAIGHT_PARTY_CONTEST_ID, Contest, Election

_T = "CVR."
ELECTION_ID = "election"
COUNTY_ID = "gpu-county"
REPORT_DEVICE_ID = "device-report"
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
