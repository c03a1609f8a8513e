"""The scanner's own count of the audited race: its signed tally tape, typed in or imported.

The hand count is compared with the machine in two ways: with this store's
count of the race, and with the tally tape the scanner printed (31 KAR 4:230
Section 1(10): '"Register tape" means the return sheets established in KRS
117.275'). When the audited scanner was another vendor's machine, the tape's
totals are typed in as a CSV of ``option,votes``, or summed from that vendor's
cast vote records: a Dominion-style CVR export (CSV) or a NIST SP 1500-103
CastVoteRecordReport (JSON).
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any, Mapping

from ...election import Contest
from .tallies import TallyError, read_counts_csv

TAPE_FORMATS: tuple[str, ...] = ("csv", "dominion", "nist")

_VOTE_FOR = re.compile(r"\s*\(Vote For=\d+\)\s*$", re.IGNORECASE)


def _name(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _option_for_name(contest: Contest, name: str) -> str | None:
    """The option a vendor's choice name means: its label, its label with a running mate, or a write-in line."""
    n = _name(name)
    for o in contest.options:
        names = {_name(o.label), _name(o.id)}
        if o.running_mate:
            names.add(_name(f"{o.label} and {o.running_mate}"))
        if n in names:
            return o.id
    lines = [o.id for o in contest.options if o.kind == "write_in"]
    if len(lines) == 1 and (n.startswith(("write-in", "write in")) or n == "writein"):
        return lines[0]
    return None


def _complete(contest: Contest, counts: Mapping[str, int]) -> dict[str, int]:
    return {o.id: int(counts.get(o.id, 0)) for o in contest.options}


def tape_from_dominion(contest: Contest, text: str, *, tabulator: str | None = None) -> dict[str, int]:
    """Sum a Dominion-style CVR export's rows for ``contest`` (only ``tabulator``'s rows when given).

    Layout: row 1 the election, row 2 the contest headers ``Title (Vote For=N)``
    over their choice columns, row 3 the choice names, row 4 the id columns
    (``CvrNumber, TabulatorNum, ...``), then one row per ballot of ``1``/``0``.
    """
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 4:
        raise TallyError("the CVR file has fewer than the four header rows of a Dominion CVR export")
    heads, choices, ids = rows[1], rows[2], rows[3]
    try:
        tab_col = [c.strip() for c in ids].index("TabulatorNum")
    except ValueError:
        raise TallyError("the CVR file has no TabulatorNum column in its fourth row") from None
    columns, current = {}, None
    for i, head in enumerate(heads):
        if head.strip():
            current = _VOTE_FOR.sub("", head).strip()
        if current is not None and _name(current) == _name(contest.title) and i < len(choices):
            oid = _option_for_name(contest, choices[i])
            if oid is None:
                raise TallyError(
                    f"the CVR file's choice {choices[i]!r} in {contest.title} is not an option of the race"
                )
            columns[i] = oid
    if not columns:
        raise TallyError(f"the CVR file has no contest titled {contest.title!r}")
    counts: dict[str, int] = {}
    for row in rows[4:]:
        if not row or (tabulator is not None and row[tab_col].strip() != str(tabulator)):
            continue
        for i, oid in columns.items():
            if i < len(row) and row[i].strip() not in ("", "0"):
                counts[oid] = counts.get(oid, 0) + int(row[i])
    return _complete(contest, counts)


def _selection_names(report: Mapping[str, Any], contest: Contest) -> tuple[set[str], dict[str, str]]:
    """The report's ids of ``contest`` and its selection id -> our option id."""
    candidates = {c.get("@id"): c.get("Name", "") for c in report.get("Election", [{}])[0].get("Candidate", [])}
    contest_ids, options = set(), {}
    for elec in report.get("Election", []):
        for c in elec.get("Contest", []):
            if _name(c.get("Name", "")) != _name(contest.title):
                continue
            contest_ids.add(c.get("@id"))
            for s in c.get("ContestSelection", []):
                names = [candidates.get(i, "") for i in s.get("CandidateIds", [])]
                oid = _option_for_name(contest, " and ".join(names)) if names else None
                if oid is None and names:
                    oid = _option_for_name(contest, names[0])
                if oid is None and s.get("IsWriteIn"):
                    oid = _option_for_name(contest, "write-in")
                if oid is not None:
                    options[s.get("@id")] = oid
    return contest_ids, options


def tape_from_nist(contest: Contest, text: str, *, tabulator: str | None = None) -> dict[str, int]:
    """Sum a NIST SP 1500-103 CastVoteRecordReport for ``contest``, from each CVR's current snapshot.

    A selection position counts its ``NumberVotes`` when it is allocable
    (``IsAllocable`` ``yes``, or absent with ``HasIndication`` ``yes``).
    ``tabulator`` keeps the CVRs whose ``CreatingDeviceId`` names it (the id,
    or the id's text after ``device-``, up to a ``-``).
    """
    try:
        report = json.loads(text)
    except ValueError as e:
        raise TallyError(f"the CVR file is not JSON: {e}") from None
    contest_ids, options = _selection_names(report, contest)
    if not contest_ids:
        raise TallyError(f"the CVR report has no contest named {contest.title!r}")
    counts: dict[str, int] = {}
    for cvr in report.get("CVR", []):
        if tabulator is not None and not _device_matches(str(cvr.get("CreatingDeviceId", "")), tabulator):
            continue
        snaps = {s.get("@id"): s for s in cvr.get("CVRSnapshot", [])}
        snap = snaps.get(cvr.get("CurrentSnapshotId")) or (cvr.get("CVRSnapshot") or [{}])[-1]
        for cc in snap.get("CVRContest", []):
            if cc.get("ContestId") not in contest_ids:
                continue
            for sel in cc.get("CVRContestSelection", []):
                oid = options.get(sel.get("ContestSelectionId"))
                for pos in sel.get("SelectionPosition", []):
                    allocable = pos.get("IsAllocable")
                    if allocable == "no" or (allocable is None and pos.get("HasIndication") != "yes"):
                        continue
                    if oid is None:
                        raise TallyError(
                            f"the CVR report credits {sel.get('ContestSelectionId')!r}, "
                            f"which is no option of {contest.title}"
                        )
                    counts[oid] = counts.get(oid, 0) + int(pos.get("NumberVotes", 1))
    return _complete(contest, counts)


def _device_matches(device_id: str, tabulator: str) -> bool:
    if device_id == tabulator:
        return True
    rest = device_id.removeprefix("device-")
    return rest == tabulator or rest.startswith(f"{tabulator}-")


def read_tape(contest: Contest, text: str, fmt: str, *, tabulator: str | None = None) -> dict[str, int]:
    """The tape's count of every option of ``contest``, from a file in one of `TAPE_FORMATS`."""
    if fmt == "csv":
        return read_counts_csv(contest, text, what="the tally tape")
    if fmt == "dominion":
        return tape_from_dominion(contest, text, tabulator=tabulator)
    if fmt == "nist":
        return tape_from_nist(contest, text, tabulator=tabulator)
    raise TallyError(f"unknown tape format {fmt!r} (one of {', '.join(TAPE_FORMATS)})")
