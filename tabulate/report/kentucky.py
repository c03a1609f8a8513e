"""Kentucky's own reports: the unofficial results of 31 KAR 4:031 Section 3 and the zero-file of 2:010.

The three reports share one row shape: per contest (certified order), per
precinct where the contest is on a ballot, one row per candidate or answer
with one column per vote type. The zero-file is that shape with every count
zero, so the State Board can check the night's file against it line for line.

Write-in votes appear as one row per contest (``option_id`` ``"write-in"``,
all write-in lines together) holding the write-in votes *not* shown on a
declared candidate's row, so the rows of a contest always add up to its votes.
"""

from __future__ import annotations

import io
from typing import Literal

from ..core.vote_types import ABSENTEE_VOTE_TYPES, REPORTED_VOTE_TYPES
from ..election.model import VOTE_TYPES, Election
from .csvsafe import writer as csv_writer
from .results import display_name, election_summary, option_party
from .tally import ContestCounts, ContestTally, Tally, tally_records

#: ``option_id`` of the row that holds a contest's write-in votes.
WRITE_IN_ROW_ID = "write-in"

#: Leading columns of `unofficial_results_csv` and `zero_file_csv`; vote-type columns follow.
ROW_CSV_COLUMNS: tuple[str, ...] = (
    "contest_order",
    "contest_id",
    "contest",
    "vote_for",
    "option_order",
    "option_id",
    "option",
    "party",
    "kind",
    "precinct_id",
    "precinct",
)


def write_in_votes(counts: ContestCounts) -> int:
    """Votes cast on the contest's write-in lines, whatever became of the names."""
    return counts.write_ins.total


def write_in_threshold_met(counts: ContestCounts) -> bool:
    """Whether declared write-in candidates are listed in the unofficial tally.

    31 KAR 4:031 Section 3(2): the tally "shall include totals for those
    candidates who have filed a declaration of intent with the Secretary of
    State to be a write-in candidate pursuant to KRS 117.265(2), provided five
    (5) percent or more of the votes cast in that candidate's election, were
    for write-in candidates."

    The test is on *all* write-in votes of the contest together, not on one
    candidate's share: when it is met every declared write-in candidate of the
    contest is listed, whatever their own total. "Five percent or more" is
    inclusive (exactly 5 % lists them). ``counts`` should be the contest's
    county-wide counts, all vote types (the votes cast "in that candidate's
    election"). A vote on a write-in line counts toward the 5 % whether its
    name is resolved, pending or not counted: at 6 p.m. on election night,
    when the tally is first sent, most names are not yet resolved. Integer
    arithmetic, so the boundary is exact.
    """
    cast = counts.total_votes
    written = write_in_votes(counts)
    return written > 0 and 100 * written >= 5 * cast


def _row_specs(ct: ContestTally, list_declared: bool) -> list[tuple[str, str, str, str]]:
    """``(option_id, label, party id, kind)`` of the rows of one contest, in ballot order."""
    c = ct.contest
    specs = [
        (o.id, display_name(o.label, o.running_mate), o.party or "", o.kind) for o in c.options if o.kind != "write_in"
    ]
    if c.write_ins:
        if list_declared:
            specs += [
                (w.id, display_name(w.name, w.running_mate), "", "declared_write_in") for w in c.declared_write_ins
            ]
        specs.append(
            (
                WRITE_IN_ROW_ID,
                "Other write-ins" if list_declared and c.declared_write_ins else "Write-in",
                "",
                "write_in",
            )
        )
    return specs


def _row_count(ct: ContestTally, counts: ContestCounts, option_id: str, kind: str, list_declared: bool) -> int:
    c = ct.contest
    if kind == "declared_write_in":
        return counts.write_ins.for_candidate(option_id)
    if option_id == WRITE_IN_ROW_ID:
        shown = sum(counts.write_ins.for_candidate(w.id) for w in c.declared_write_ins) if list_declared else 0
        return sum(counts.votes_for(o.id) for o in c.options if o.kind == "write_in") - shown
    return counts.votes_for(option_id)


def _rows(tally: Tally, ct: ContestTally, units, columns, list_declared: bool) -> list[dict]:
    """Rows of one contest for each unit ``(id, name, precinct filter or None)`` and column ``(name, vote types)``."""
    e = tally.election
    out = []
    for unit_id, unit_name, precinct in units:
        cells = {col: ct.counts(precinct, types) for col, types in columns}
        for order, (oid, label, party, kind) in enumerate(_row_specs(ct, list_declared), start=1):
            votes = {col: _row_count(ct, cells[col], oid, kind, list_declared) for col, _ in columns}
            out.append(
                {
                    "option_order": order,
                    "option_id": oid,
                    "option": label,
                    "party": option_party(e, party),
                    "kind": kind,
                    "precinct_id": unit_id,
                    "precinct": unit_name,
                    "votes": votes,
                }
            )
    return out


def _precinct_units(tally: Tally, ct: ContestTally):
    return [(p, tally.election.precinct(p).name, p) for p in ct.precinct_ids]


def _contest_head(order: int, ct: ContestTally) -> dict:
    c = ct.contest
    return {"contest_order": order, "contest_id": c.id, "contest": c.title, "type": c.type, "vote_for": c.vote_for}


def unofficial_results(tally: Tally) -> dict:
    """The county's unofficial tally for the State Board, precinct by precinct and by vote type.

    31 KAR 4:031 Section 3(2): "The unofficial vote tally transmitted shall
    include precinct-by-precinct totals from counts of all mail-in absentee
    ballots, excused in-person absentee ballots, no-excuse in-person absentee
    ballots, and election day ballots, and shall include totals for those
    candidates who have filed a declaration of intent ... provided five (5)
    percent or more of the votes cast in that candidate's election, were for
    write-in candidates." Provisional ballots, counted from the day after the
    election once approved (31 KAR 6:020 Section 6), get their own column.

    Returns
    -------
    dict
        ``{"regulation", "status", "election", "vote_types", "ballots": {counted, blank, awaiting_review},
        "contests": [{contest_order, contest_id, contest, type, vote_for, total_votes, write_in_votes,
        declared_write_ins_listed, rows: [{option_order, option_id, option, party, kind, precinct_id,
        precinct, votes: {vote_type: n}, total}]}]}``
    """
    contests = []
    columns = [(v, v) for v in VOTE_TYPES]
    for order, ct in enumerate(tally.contests, start=1):
        county = ct.counts()
        listed = write_in_threshold_met(county)
        rows = _rows(tally, ct, _precinct_units(tally, ct), columns, listed)
        for r in rows:
            r["total"] = sum(r["votes"].values())
        contests.append(
            {
                **_contest_head(order, ct),
                "total_votes": county.total_votes,
                "write_in_votes": write_in_votes(county),
                "declared_write_ins_listed": listed,
                "rows": rows,
            }
        )
    b = tally.ballot_counts()
    return {
        "regulation": "31 KAR 4:031 Section 3(2)",
        "status": "unofficial",
        "election": election_summary(tally.election),
        "vote_types": list(VOTE_TYPES),
        "ballots": {"counted": b.counted, "blank": b.blank, "awaiting_review": b.awaiting_review},
        "contests": contests,
    }


def _rows_csv(contests: list[dict], vote_columns: list[str], extra: tuple[str, ...] = ()) -> str:
    out = io.StringIO()
    w = csv_writer(out, lineterminator="\n")
    w.writerow(ROW_CSV_COLUMNS + tuple(vote_columns) + extra)
    for c in contests:
        for r in c["rows"]:
            w.writerow(
                [
                    c["contest_order"],
                    c["contest_id"],
                    c["contest"],
                    c["vote_for"],
                    r["option_order"],
                    r["option_id"],
                    r["option"],
                    r["party"],
                    r["kind"],
                    r["precinct_id"],
                    r["precinct"],
                ]
                + [r["votes"][v] for v in vote_columns]
                + [r[x] for x in extra]
            )
    return out.getvalue()


def unofficial_results_csv(tally: Tally) -> str:
    """`unofficial_results` as CSV: `ROW_CSV_COLUMNS`, one column per vote type, then ``total``."""
    return _rows_csv(unofficial_results(tally)["contests"], list(VOTE_TYPES), ("total",))


def unofficial_display(tally: Tally, *, absentee: Literal["county", "precinct"] = "county") -> dict:
    """What the State Board's public website shows: precinct by precinct, absentee only cumulative.

    31 KAR 4:031 Section 3(3): "The display shall list precinct-by-precinct
    tallys for all candidates and questions, but shall only list a
    candidate's precinct absentee vote totals as cumulative."

    Our reading (``absentee="county"``, the default): the three absentee vote
    types are not shown precinct by precinct; each precinct's rows show the
    election day and provisional votes, and one more unit, ``"absentee"``,
    shows each candidate's absentee votes summed over every precinct and the
    three absentee types. The other reading (``absentee="precinct"``) keeps
    the precincts but sums the three absentee types into one ``absentee``
    column per precinct. Declared write-in candidates are listed as in
    `unofficial_results`.

    Returns
    -------
    dict
        ``{"regulation", "absentee", "columns", "election", "contests": [{..., rows: [...]}]}``, rows as in
        `unofficial_results` with ``votes`` keyed by ``columns`` and a ``total``.
    """
    if absentee not in ("county", "precinct"):
        raise ValueError(f"absentee must be 'county' or 'precinct', not {absentee!r}")
    in_person = tuple(v for v in VOTE_TYPES if v not in ABSENTEE_VOTE_TYPES)
    if absentee == "precinct":
        columns = [("absentee", ABSENTEE_VOTE_TYPES)] + [(v, (v,)) for v in in_person]
    else:
        columns = [(v, (v,)) for v in in_person]
    names = [c for c, _ in columns] if absentee == "precinct" else ["absentee"] + [c for c, _ in columns]
    contests = []
    for order, ct in enumerate(tally.contests, start=1):
        listed = write_in_threshold_met(ct.counts())
        rows = _rows(tally, ct, _precinct_units(tally, ct), columns, listed)
        if absentee == "county":
            cumulative = _rows(
                tally, ct, [("absentee", "Absentee (cumulative)", None)], [("absentee", ABSENTEE_VOTE_TYPES)], listed
            )
            rows += cumulative
        for r in rows:
            r["votes"] = {n: r["votes"].get(n) for n in names}
            r["total"] = sum(n for n in r["votes"].values() if n is not None)
        contests.append({**_contest_head(order, ct), "rows": rows})
    return {
        "regulation": "31 KAR 4:031 Section 3(3)",
        "absentee": absentee,
        "columns": names,
        "election": election_summary(tally.election),
        "contests": contests,
    }


def zero_file(election: Election) -> dict:
    """The zero-file sent to the State Board before the election.

    31 KAR 2:010 Section 1(11): "'Zero-file' means a computer-based electronic
    file type listing all electoral contests and questions, displaying
    precinct-by-precinct vote totals registering as zero, which includes all
    candidates, offices, and ballot questions in the order under which they
    have been certified ..., for all mail-in absentee ballots, excused
    in-person absentee ballots, no-excuse in-person absentee ballots, and
    election day ballots."

    Every contest and question in certified order; for each precinct where it
    is on a ballot, every candidate or answer in ballot order, the contest's
    declared write-in candidates and its write-in row; a zero for each of the
    four vote types. A function of the election only.
    """
    tally = tally_records(election, ())
    columns = [(v, v) for v in REPORTED_VOTE_TYPES]
    contests = [
        {**_contest_head(order, ct), "rows": _rows(tally, ct, _precinct_units(tally, ct), columns, True)}
        for order, ct in enumerate(tally.contests, start=1)
    ]
    return {
        "regulation": "31 KAR 2:010 Section 1(11)",
        "election": election_summary(election),
        "vote_types": list(REPORTED_VOTE_TYPES),
        "contests": contests,
    }


def zero_file_csv(election: Election) -> str:
    """`zero_file` as CSV: `ROW_CSV_COLUMNS` then the four vote-type columns."""
    return _rows_csv(zero_file(election)["contests"], list(REPORTED_VOTE_TYPES))
