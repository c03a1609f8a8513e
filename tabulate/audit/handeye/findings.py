"""The board's determinations and findings after the hand-to-eye recount (like Form SBE 91), as PDF and JSON.

31 KAR 4:230 Section 2(2): "Determinations and findings made by a County Board
of Elections following the hand-to-eye recount shall be recorded on a Form SBE
91, "Determinations and Findings Following Hand-to-eye Recount", for reporting
to the Attorney General and Secretary of State."

The document holds the selection, the counters, both tallies of every
attempt, the comparison with the machine and the tally tape, the differences
the listed ballots explain and those they do not, the board's
determinations, and signature lines. The JSON (`AuditState.to_dict`) holds
the same content.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...report.pdf import Form, write_form
from .forms import _change, _subtitle
from .state import AuditState


def _selection(form: Form, state: AuditState) -> None:
    sel = state.audit.selection
    form.heading("1. Selection (KRS 117.383(8)(a))")
    how = (
        f"drawn from the public seed {sel['seed']} (SHA-256 of seed and counter)"
        if sel["method"] == "seed"
        else "as announced by the Secretary of State"
    )
    form.fields(
        [
            ("Scanner (tabulator)", state.audit.tabulator),
            ("Race", state.contest.title),
            ("How chosen", how),
            (
                "Chosen from",
                f"scanners {', '.join(sel['tabulators'])}; races on {state.audit.tabulator}: {', '.join(sel['races'])}",
            ),
            ("Recorded", f"{state.audit.created_at} by {state.audit.created_by}"),
            ("Ballots with the race", str(state.pile)),
        ]
    )


def _tallies(form: Form, state: AuditState) -> None:
    form.heading("2. The two hand tallies, every attempt (31 KAR 4:230 §2(1))")
    for a in state.attempts:
        verdict = (
            "match"
            if a.matched
            else ("differ on " + ", ".join(state.label(o) for o in a.differences) if a.complete else "incomplete")
        )
        form.paragraph(
            f"Attempt {a.number}: " + "; ".join(f"{e.counter} ({e.party})" for e in a.entries) + f" — {verdict}.",
            size=9,
        )
        head = ("Option",) + tuple(f"{e.counter} ({e.party})" for e in a.entries)
        rows = [(state.label(o.id),) + tuple(e.counts.get(o.id, 0) for e in a.entries) for o in state.contest.options]
        form.table(head, rows, size=8)
    if not state.attempts:
        form.paragraph("No tally has been entered.", size=9)


def _comparison(form: Form, state: AuditState) -> None:
    form.heading("3. Hand count against the machine")
    if state.comparison is None:
        form.paragraph("The two tallies have not matched yet: nothing to compare.", size=9)
        return
    tape = state.tape is not None
    head = ("Option", "Hand", "Machine", "Difference") + (("Tally tape", "Hand − tape") if tape else ())
    rows = [
        (r.label, r.hand, r.machine, f"{r.difference:+d}") + ((r.tape, f"{r.tape_difference:+d}") if tape else ())
        for r in state.comparison
    ]
    form.table(head, rows, size=8)
    notes = [
        f"Machine: the store's count of the {len(state.sheets.sheets)} sheets scanner "
        f"{state.audit.tabulator} read, with people's decisions"
    ]
    if state.sheets.awaiting_review:
        notes.append(f"{state.sheets.awaiting_review} of them still awaiting review (counted as the scanner read them)")
    if tape:
        notes.append(f"tally tape from {state.tape.source}, entered {state.tape.entered_at} by {state.tape.entered_by}")
    form.paragraph("; ".join(notes) + ".", size=8)


def _explanation(form: Form, state: AuditState) -> None:
    form.heading("4. Differences explained and unexplained")
    x = state.explanation
    if x is None:
        return form.paragraph("Not yet: the tallies have not matched.", size=9)
    form.paragraph(
        f"Difference in all: {x.total_difference} votes; explained by the listed ballots: "
        f"{x.total_difference - x.total_unexplained}; unexplained: {x.total_unexplained} "
        f"({100 * x.share_explained:.1f} % explained). The ballots named before the count "
        f"{'are' if state.same_ballots_as_predicted else 'are NOT'} the ones named now.",
        size=9,
    )
    rows = [
        (
            state.label(o.option_id),
            f"{o.difference:+d}",
            f"{o.predicted.sure:+d}"
            + ("" if o.predicted.low == o.predicted.high else f" ({o.predicted.low:+d}..{o.predicted.high:+d})"),
            f"{o.explained:+d}",
            f"{o.unexplained:+d}",
        )
        for o in x.options
    ]
    form.table(("Option", "Difference", "Predicted", "Explained", "Unexplained"), rows, size=8)
    ballots = [
        (b.batch, b.position, _change(state, b), "; ".join(b.clauses))
        for b in state.prediction.ballots
        if b.sure or b.possible
    ]
    if ballots:
        form.table(("Batch", "Position", "Change", "Clause"), ballots, widths=(1.4, 0.8, 2.0, 3.1), size=7)
    if state.sheets.set_aside:
        form.paragraph(
            f"{len(state.sheets.set_aside)} sheets were set aside by the scanner and have no reading: "
            + "; ".join(f"{s.batch} #{s.position} ({s.reason})" for s in state.sheets.set_aside),
            size=8,
        )


def _board(form: Form, state: AuditState) -> None:
    form.heading("5. Determinations of the county board (31 KAR 4:230 §2(2))")
    for f in state.determinations:
        form.paragraph(f"{f.author}{f' ({f.party})' if f.party else ''}, {f.at}: {f.text}", size=9)
    if not state.determinations:
        form.blank_lines(["Determination", "", ""], width=5.0)
    if state.signatures:
        form.paragraph(
            "Signed in the record by: "
            + "; ".join(f"{f.author}{f' ({f.party})' if f.party else ''} at {f.at}" for f in state.signatures),
            size=9,
        )
    for f in state.annotations:
        form.paragraph(f"Annotation by {f.author}, {f.at}: {f.text}", size=8)
    form.keep_together(2.2)
    form.signature_block(["County board member", "County board member", "County clerk"])


def findings_form(state: AuditState) -> Form:
    form = Form("Determinations and Findings Following Hand-to-eye Recount (SBE 91)", subtitle=_subtitle(state))
    _selection(form, state)
    _tallies(form, state)
    _comparison(form, state)
    _explanation(form, state)
    _board(form, state)
    return form


def write_findings(state: AuditState, out: str | Path) -> tuple[Path, Path]:
    """Write the PDF to ``out`` and the same content as JSON beside it (``.json``)."""
    pdf = write_form(findings_form(state), out)
    doc = pdf.with_suffix(".json")
    doc.write_text(json.dumps(state.to_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return pdf, doc
