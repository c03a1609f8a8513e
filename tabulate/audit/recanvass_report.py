"""The recanvass report: every difference found, and an SBE 49A-like form per office.

31 KAR 4:071 Section 1(3): "The county board of elections shall state the name
of the county in which the recanvass is being conducted, the date of the
report, the date of the election, the office for which the recanvass is being
made, the name of each candidate for the office being recanvassed, and the
machine votes, absentee votes, provisional votes, and total votes for each
candidate. The report shall be signed by each member of the county board of
elections."
"""

from __future__ import annotations

from ..core import ABSENTEE_VOTE_TYPES
from ..election.model import Election
from ..report.pdf import Form, form_date
from .labels import contest_title, option_label
from .recanvass import Recanvass, RecanvassedContest

#: The SBE 49A columns: machine (election day), absentee (the three absentee types), provisional.
COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Machine", ("election_day",)),
    ("Absentee", ABSENTEE_VOTE_TYPES),
    ("Provisional", ("provisional",)),
)


def _sufficiency(election: Election, c: RecanvassedContest) -> str:
    m = c.margin
    if m is None or m.margin is None:
        return "no margin (question, or no defeated candidate)"
    if m.percent is None:
        return "no votes cast for the office"
    verdict = "SUFFICIENT for a recanvass request" if m.recanvass_sufficient else "not under 1 %"
    return (
        f"margin {m.margin} of {m.votes_cast} votes cast ({m.percent:.3f} %) between "
        f"{option_label(election, c.contest_id, m.elected[-1])} and "
        f"{option_label(election, c.contest_id, m.first_defeated)}: {verdict} (KRS 117.305(1))"
    )


def _rows(election: Election, c: RecanvassedContest) -> list[tuple]:
    contest = election.contest(c.contest_id)
    rows = []
    for o in contest.options:
        cols = [c.total(o.id, types) for _label, types in COLUMNS]
        rows.append((option_label(election, c.contest_id, o.id), *cols, sum(cols)))
    return rows


def recanvass_text(r: Recanvass) -> str:
    """The recanvass as text: per office, each candidate's totals, the margin, and every difference."""
    e = r.election
    out = [
        "RECANVASS (31 KAR 4:071, KRS 117.305)",
        f"{e.title}, {e.date}, {e.jurisdiction}",
        f"Compared with the unofficial results reported at {r.snapshot_at}",
        f"Differences found: {len(r.differences)}",
        "",
    ]
    for c in r.contests:
        out.append(f"{contest_title(e, c.contest_id)} [{c.contest_id}] — precincts {', '.join(c.precincts)}")
        out.append(f"  {'candidate':<40} {'machine':>8} {'absentee':>8} {'provis.':>8} {'total':>8}")
        out += [f"  {n[:40]:<40} {a:8d} {b:8d} {p:8d} {t:8d}" for n, a, b, p, t in _rows(e, c)]
        out.append(f"  {_sufficiency(e, c)}")
        for d in c.differences:
            out.append(
                f"  DIFFERENCE precinct {d.precinct_id}, {option_label(e, c.contest_id, d.option_id)}, "
                f"{d.vote_type}: reported {d.reported}, recanvassed {d.recanvassed} ({d.change:+d})"
            )
        out.append("")
    return "\n".join(out)


def sbe49a_form(r: Recanvass) -> Form:
    """An SBE 49A-like Recanvass of Official Count and Record of Election Totals, one page per office."""
    e = r.election
    form = Form(
        "Recanvass of Official Count and Record of Election Totals",
        subtitle=f"SBE 49A-like — 31 KAR 4:071 Section 1(1), 1(3) — {e.title}",
    )
    for i, c in enumerate(r.contests):
        if i:
            form.new_page()
        form.fields(
            (
                ("County", e.jurisdiction),
                ("Date of report", form_date().strftime("%Y-%m-%d")),
                ("Date of election", e.date),
                ("Office", contest_title(e, c.contest_id)),
                ("Precincts", ", ".join(c.precincts)),
                ("Compared with", f"unofficial results of {r.snapshot_at}"),
            )
        )
        form.table(
            ("Candidate", "Machine votes", "Absentee votes", "Provisional votes", "Total votes"),
            _rows(e, c),
            widths=(2.9, 1.0, 1.0, 1.0, 1.0),
        )
        form.paragraph(_sufficiency(e, c), size=9)
        if c.differences:
            form.heading(f"Differences from the unofficial results ({len(c.differences)})")
            form.table(
                ("Precinct", "Candidate", "Vote type", "Reported", "Recanvassed"),
                [
                    (d.precinct_id, option_label(e, c.contest_id, d.option_id), d.vote_type, d.reported, d.recanvassed)
                    for d in c.differences
                ],
                widths=(0.9, 2.6, 1.8, 0.9, 0.9),
            )
        else:
            form.paragraph("No difference from the unofficial results.")
        form.signature_block(("County board of elections member",) * 3)
    return form
