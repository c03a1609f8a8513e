"""One sheet as a NIST SP 1500-103 ``CVR``: its original, interpreted and modified snapshots.

See `tabulate.report.nist_cvr` for what each snapshot holds and how the vote
type travels.
"""

from __future__ import annotations

from typing import Mapping
from urllib.parse import quote

from ..core.errors import ReportError
from ..core.marks import OptionMark
from ..core.records import BallotRecord
from ..core.votes import BallotVotes, ContestVotes
from ..election.model import STRAIGHT_PARTY_CONTEST_ID, Contest, Election
from .nist_cvr_election import (
    _T,
    ELECTION_ID,
    _code,
    contest_id,
    device_id,
    precinct_gpunit_id,
    selection_id,
    snapshot_id,
)
from .tally import ElectionIndex, check_record

_INDICATION = {"marked": "yes", "marginal": "unknown", "unmarked": "no"}


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
