"""Results of a tally as JSON, CSV and a table for the terminal.

All three show the same numbers, in certified order: per contest, per precinct
where the contest is on a ballot, per vote type. The CSV is *long* (one number
per row), so that a spreadsheet pivot or ``csv.DictReader`` reads it without
knowing how many vote types or precincts there are.
"""

from __future__ import annotations

import io

from ..core.vote_types import VOTE_TYPE_LABELS
from ..election.model import VOTE_TYPES, Contest, Election
from .csvsafe import writer as csv_writer
from .tally import BallotCounts, ContestCounts, Tally

#: Columns of `results_csv`, in order.
RESULTS_CSV_COLUMNS: tuple[str, ...] = (
    "contest_id",
    "contest",
    "precinct_id",
    "precinct",
    "vote_type",
    "row",
    "option_id",
    "option",
    "party",
    "count",
)
#: Values of the ``row`` column of `results_csv`.
RESULTS_CSV_ROWS: tuple[str, ...] = (
    "sheets_awaiting_review",
    "ballots_cast",
    "blank_ballots",
    "overvotes",
    "undervotes",
    "votes",
    "write_in_resolved",
    "write_in_pending",
    "write_in_not_counted",
)


def election_summary(election: Election) -> dict:
    """The election's identity, printed at the top of every report."""
    return {
        "title": election.title,
        "date": election.date,
        "type": election.type,
        "jurisdiction": election.jurisdiction,
        "hash": election.hash,
    }


def option_party(election: Election, party_id: str | None) -> str:
    """A party's abbreviation, or ``""``."""
    if not party_id:
        return ""
    try:
        return election.party(party_id).abbreviation
    except KeyError:
        return party_id


def display_name(name: str, running_mate: str | None = None) -> str:
    """A candidate's name as printed, with a slate's running mate (``"A and B"``)."""
    return f"{name} and {running_mate}" if running_mate else name


def _counts_dict(contest: Contest, c: ContestCounts) -> dict:
    return {
        "ballots_cast": c.ballots_cast,
        "blank_ballots": c.blank_ballots,
        "overvotes": c.overvotes,
        "undervotes": c.undervotes,
        "votes": dict(c.votes),
        "write_ins": {
            "pending": c.write_ins.pending,
            "not_counted": c.write_ins.not_counted,
            "resolved": dict(c.write_ins.resolved),
        },
    }


def _ballots_dict(b: BallotCounts) -> dict:
    return {"counted": b.counted, "blank": b.blank, "awaiting_review": b.awaiting_review}


def results_json(tally: Tally) -> dict:
    """The tally as a JSON-ready dict (insertion order is certified order).

    Shape::

        {"election": {...}, "vote_types": [...],
         "ballots": {"total": {...}, "precincts": {pid: {vote_type: {counted, blank, awaiting_review}}}},
         "contests": [{"id", "title", "type", "vote_for",
                       "options": [{"id", "label", "kind", "party"}],
                       "declared_write_ins": [{"id", "name"}],
                       "total": counts, "by_vote_type": {vote_type: counts},
                       "precincts": {pid: {vote_type: counts}}}]}

    where ``counts`` is ``{ballots_cast, blank_ballots, overvotes, undervotes,
    votes: {option_id: n}, write_ins: {pending, not_counted, resolved: {candidate_id: n}}}``.
    """
    e = tally.election
    contests = []
    for ct in tally.contests:
        c = ct.contest
        contests.append(
            {
                "id": c.id,
                "title": c.title,
                "type": c.type,
                "vote_for": c.vote_for,
                "options": [
                    {
                        "id": o.id,
                        "label": display_name(o.label, o.running_mate),
                        "kind": o.kind,
                        "party": option_party(e, o.party),
                    }
                    for o in c.options
                ],
                "declared_write_ins": [{"id": w.id, "name": w.name} for w in c.declared_write_ins],
                "total": _counts_dict(c, ct.counts()),
                "by_vote_type": {v: _counts_dict(c, ct.counts(vote_type=v)) for v in VOTE_TYPES},
                "precincts": {p: {v: _counts_dict(c, ct.counts(p, v)) for v in VOTE_TYPES} for p in ct.precinct_ids},
            }
        )
    return {
        "election": election_summary(e),
        "vote_types": list(VOTE_TYPES),
        "ballots": {
            "total": _ballots_dict(tally.ballot_counts()),
            "precincts": {
                p.id: {v: _ballots_dict(tally.ballot_counts(p.id, v)) for v in VOTE_TYPES} for p in e.precincts
            },
        },
        "contests": contests,
    }


def _csv_text(columns, rows) -> str:
    out = io.StringIO()
    w = csv_writer(out, lineterminator="\n")
    w.writerow(columns)
    w.writerows(rows)
    return out.getvalue()


def results_csv(tally: Tally) -> str:
    """The tally as long-format CSV, columns `RESULTS_CSV_COLUMNS`, one count per row.

    For each contest, precinct and vote type, in order: ``ballots_cast``,
    ``blank_ballots``, ``overvotes``, ``undervotes`` (option columns empty),
    then one ``votes`` row per option, then for each write-in line's votes
    ``write_in_resolved`` per declared candidate, ``write_in_pending`` and
    ``write_in_not_counted``. The first row, ``sheets_awaiting_review`` (other
    columns empty), says how many sheets still await review: while it is not 0
    the results are provisional.
    """
    e = tally.election
    rows: list[list] = [
        ["", "", "", "", "", "sheets_awaiting_review", "", "", "", tally.ballot_counts().awaiting_review]
    ]
    for ct in tally.contests:
        c = ct.contest
        for p, v, counts in ct.cells:
            head = [c.id, c.title, p, e.precinct(p).name, v]
            for name in ("ballots_cast", "blank_ballots", "overvotes", "undervotes"):
                rows.append(head + [name, "", "", "", getattr(counts, name)])
            for o in c.options:
                rows.append(
                    head
                    + [
                        "votes",
                        o.id,
                        display_name(o.label, o.running_mate),
                        option_party(e, o.party),
                        counts.votes_for(o.id),
                    ]
                )
            if any(o.kind == "write_in" for o in c.options):
                for w in c.declared_write_ins:
                    rows.append(head + ["write_in_resolved", w.id, w.name, "", counts.write_ins.for_candidate(w.id)])
                rows.append(head + ["write_in_pending", "", "", "", counts.write_ins.pending])
                rows.append(head + ["write_in_not_counted", "", "", "", counts.write_ins.not_counted])
    return _csv_text(RESULTS_CSV_COLUMNS, rows)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    fmt = lambda r: "  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w) for i, (x, w) in enumerate(zip(r, widths)))
    return [fmt(headers), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]


#: Short column heads of the terminal table.
_SHORT = {
    "mail_in_absentee": "Mail",
    "excused_in_person_absentee": "Excused",
    "no_excuse_in_person_absentee": "No-excuse",
    "election_day": "Elec. day",
    "provisional": "Prov.",
}


def results_table(tally: Tally, *, precinct_id: str | None = None) -> str:
    """A readable text table: per contest, one row per option, one column per vote type and a total.

    ``precinct_id`` limits the table to one precinct; by default it is county-wide.
    """
    e = tally.election
    where = e.precinct(precinct_id).name if precinct_id else e.jurisdiction
    b = tally.ballot_counts(precinct_id)
    pending = tally.ballot_counts().awaiting_review
    lines = (
        [f"PROVISIONAL: {pending} sheet(s) await review; their machine reading is counted here"] if pending else []
    ) + [
        f"{e.title} - {e.date} - {where}",
        f"Ballots counted: {b.counted}   blank: {b.blank}   awaiting review: {b.awaiting_review}",
        "Columns: " + ", ".join(f"{_SHORT[v]} = {VOTE_TYPE_LABELS[v]}" for v in VOTE_TYPES),
        "",
    ]
    headers = [""] + [_SHORT[v] for v in VOTE_TYPES] + ["Total"]
    for ct in tally.contests:
        if precinct_id and precinct_id not in ct.precinct_ids:
            continue
        c = ct.contest
        per = [ct.counts(precinct_id, v) for v in VOTE_TYPES]
        tot = ct.counts(precinct_id)
        rows = []
        for o in c.options:
            party = option_party(e, o.party)
            rows.append(
                [display_name(o.label, o.running_mate) + (f" ({party})" if party else "")]
                + [str(x.votes_for(o.id)) for x in per]
                + [str(tot.votes_for(o.id))]
            )
        for w in c.declared_write_ins:
            rows.append(
                [f"  write-in: {w.name}"]
                + [str(x.write_ins.for_candidate(w.id)) for x in per]
                + [str(tot.write_ins.for_candidate(w.id))]
            )
        if c.write_ins:
            rows.append(
                ["  write-in: pending"] + [str(x.write_ins.pending) for x in per] + [str(tot.write_ins.pending)]
            )
            rows.append(
                ["  write-in: not counted"]
                + [str(x.write_ins.not_counted) for x in per]
                + [str(tot.write_ins.not_counted)]
            )
        for label, attr in (("Overvotes", "overvotes"), ("Undervotes", "undervotes"), ("Ballots cast", "ballots_cast")):
            rows.append([label] + [str(getattr(x, attr)) for x in per] + [str(getattr(tot, attr))])
        lines.append(f"{c.title} (vote for {c.vote_for})")
        lines += _table(headers, rows)
        lines.append("")
    return "\n".join(lines)
