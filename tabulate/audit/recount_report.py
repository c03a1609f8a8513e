"""The recount's paper: an SBE 82-like Recount Tabulation Form per tabulator, the SBE 49-like totals, the comparison.

31 KAR 4:220 Section 9(5): "The number of undervotes, overvotes, and damaged
ballots shall be recorded on the Form SBE 82"; 9(8): "the serial number of the
seal shall be recorded on the Form SBE 82"; 9(9): "The Form SBE 82 ... shall be
signed by the recount team members and all members of the county board of
elections"; 9(12)(b): "The adjudication of each ballot shall be recorded onto
the Form SBE 82". Section 10(1): the totals "from each Form SBE 82" go onto "a
Form SBE 49, Official Count and Record of Election Totals"; 10(3): "The
members of the county board of elections shall affix their signatures".
"""

from __future__ import annotations

from ..election.model import Election
from ..report.pdf import Form, form_date
from .labels import option_label
from .margins import RaceMargin
from .recount import RecountResult, TabulatorCount


def _name(e: Election, cid: str, oid: str) -> str:
    return option_label(e, cid, oid)


def _margin_text(e: Election, m: RaceMargin) -> str:
    if m.margin is None:
        return "no defeated candidate"
    if m.percent is None:
        return "no votes"
    return (
        f"{_name(e, m.contest.id, m.elected[-1])} leads {_name(e, m.contest.id, m.first_defeated)} by "
        f"{m.margin} of {m.votes_cast} votes ({m.percent:.3f} %)"
    )


def section_9_11_text(r: RecountResult) -> str:
    """The §9(11) test in words."""
    m = r.machine_margin
    if m.margin is None or m.percent is None:
        return "Section 9(11): no defeated candidate or no votes; nothing to test."
    if not r.margin_test:
        return (
            f"Section 9(11)(b): the machine margin ({m.percent:.3f} %) is more than 0.25 %: the recount is "
            "complete at the machine count."
        )
    could = r.board_needed
    votes = f"{m.margin} vote" + ("" if m.margin == 1 else "s")
    return (
        f"Section 9(11)(b): the machine margin ({votes}, {m.percent:.3f} %) is 0.25 % or less; "
        f"overvotes and damaged ballots: {r.overvotes_and_damaged}, which "
        + (
            "COULD overcome the margin: the board adjudicates them by majority (Section 9(12))."
            if could
            else "could not overcome the margin: the recount is complete at the machine count."
        )
    )


def recount_text(r: RecountResult) -> str:
    """The recount beside the original count, per tabulator, with every changed ballot and why."""
    e, c = r.election, r.contest
    out = [f"RECOUNT (31 KAR 4:220 Sections 9-10, KRS 120.157): {c.title} [{c.id}]", f"{e.title}, {e.date}", ""]
    orig = dict(r.original_margin.standings) if r.original_margin else {}
    mach = dict(r.machine_margin.standings)
    fin = dict(r.result_margin.standings)
    out.append(f"  {'candidate':<44} {'original':>9} {'machine':>9} {'recount':>9}")
    for o in c.options:
        if o.kind == "write_in":
            continue
        out.append(
            f"  {_name(e, c.id, o.id)[:44]:<44} {orig.get(o.id, 0):9d} {mach.get(o.id, 0):9d} {fin.get(o.id, 0):9d}"
        )
    for t in r.machine:
        out.append(
            f"  tabulator {t.tabulator}: {len(t.ballots)} ballots, undervotes {t.undervotes}, "
            f"overvotes {t.overvotes}, damaged {t.damaged}"
        )
    if r.original_margin:
        out.append(f"  original: {_margin_text(e, r.original_margin)}")
    out.append(f"  machine:  {_margin_text(e, r.machine_margin)}")
    out.append("  " + section_9_11_text(r))
    if r.board_needed:
        out.append(
            f"  board decisions: {sum(b.board is not None for b in r.set_aside)} of {len(r.set_aside)}"
            + ("" if r.complete else f"; {len(r.awaiting_board)} AWAITING THE BOARD (recount not complete)")
        )
    out.append(f"  recount:  {_margin_text(e, r.result_margin)}" + ("" if r.complete else " (so far)"))
    winners = ", ".join(_name(e, c.id, o) for o in r.result_margin.elected)
    before = ", ".join(_name(e, c.id, o) for o in r.original_margin.elected) if r.original_margin else "?"
    out.append(f"  elected: {winners}" + (f" (original count: {before})" if winners != before else ""))
    out.append("")
    out.append(f"Ballots whose result changed: {len(r.changes)}")
    for ch in r.changes:
        b = ch.ballot
        fmt = lambda s: ", ".join(_name(e, c.id, o) for o in s) or "no vote"
        out.append(
            f"  {b.label} (sheet {b.sheet_id}, tabulator {b.tabulator}): "
            f"{'not counted' if ch.before is None else fmt(ch.before)} -> {fmt(ch.after)}: {ch.why}"
        )
    return "\n".join(out) + "\n"


def _sbe82_page(form: Form, r: RecountResult, t: TabulatorCount) -> None:
    e, c = r.election, r.contest
    form.fields(
        (
            ("County", e.jurisdiction),
            ("Election", f"{e.title}, {e.date}"),
            ("Race", c.title),
            ("Tabulator", t.tabulator),
            ("Date", form_date().strftime("%Y-%m-%d")),
        )
    )
    form.blank_lines(
        (
            "Machine Verification Form transposed (Section 7(3))",
            "Ballot box / tub seal number (Section 8(2))",
            "New seal number after recount (Section 9(8))",
        )
    )
    form.heading("Cumulative totals (Section 9(2))")
    form.table(("Candidate or slate", "Votes"), [(_name(e, c.id, o), n) for o, n in t.totals], widths=(5.0, 1.2))
    form.table(
        ("Undervotes", "Overvotes", "Damaged ballots"), [(t.undervotes, t.overvotes, t.damaged)], widths=(2.0, 2.0, 2.0)
    )
    aside = [b for b in t.ballots if b.set_aside is not None]
    if aside:
        form.heading("Ballots set aside (Section 9(3)-(4)) and the board's adjudication (Section 9(12))")
        rows = [
            (
                b.label,
                b.set_aside,
                b.attempts,
                (", ".join(_name(e, c.id, o) for o in b.board.selections) or "no candidate")
                if b.board
                else ("awaiting the board" if r.board_needed else "not adjudicated (Section 9(11)(b))"),
                ", ".join(b.board.members) if b.board else "",
            )
            for b in aside
        ]
        form.table(
            ("Ballot", "Set aside as", "Attempts", "Board's decision", "Majority"),
            rows,
            widths=(1.6, 1.0, 0.8, 1.8, 2.1),
            size=8,
        )
    form.signature_block(
        (
            "Recount team member",
            "Recount team member",
            "County board of elections member",
            "County board of elections member",
            "County board of elections member",
        )
    )


def sbe82_form(r: RecountResult) -> Form:
    """SBE 82-like Recount Tabulation Forms, one per tabulator (the board's decisions included)."""
    form = Form("Recount Tabulation Form", subtitle=f"SBE 82-like — 31 KAR 4:220 Section 9 — {r.contest.title}")
    for i, t in enumerate(r.final):
        if i:
            form.new_page()
        _sbe82_page(form, r, t)
    return form


def sbe49_form(r: RecountResult) -> Form:
    """SBE 49-like Official Count and Record of Election Totals: the totals of every SBE 82 (Section 10)."""
    e, c = r.election, r.contest
    final = r.final
    form = Form(
        "Official Count and Record of Election Totals",
        subtitle=f"SBE 49-like — 31 KAR 4:220 Section 10 — recount of {c.title}",
    )
    form.fields(
        (
            ("County", e.jurisdiction),
            ("Election", f"{e.title}, {e.date}"),
            ("Office", c.title),
            ("Date", form_date().strftime("%Y-%m-%d")),
            ("Recount complete", "yes" if r.complete else f"no: {len(r.awaiting_board)} ballots await the board"),
        )
    )
    tabs = [t.tabulator for t in final]
    rows = []
    for o in c.options:
        per = [dict(t.totals)[o.id] for t in final]
        rows.append((_name(e, c.id, o.id), *per, sum(per)))
    widths = (2.8,) + (max(0.6, 3.2 / max(1, len(tabs))),) * len(tabs) + (0.9,)
    form.table(("Candidate or slate", *[f"Tab. {t}" for t in tabs], "Total"), rows, widths=widths)
    form.paragraph(section_9_11_text(r), size=9)
    form.paragraph(f"Result: {_margin_text(e, r.result_margin)}.", size=9)
    form.signature_block(("County board of elections member",) * 3)
    return form
