"""The paper of a hand-to-eye audit: a tally sheet for each counter (like Form SBE 90) and a retrieval list.

31 KAR 4:230 Section 2(1): "poll workers shall hand-tally ballots cast in the
election on a Form SBE 90, "Post-election Hand-to-eye Recount Tally Sheet"".
Each counter gets their own sheet: the race, every option including the
write-in lines, rows of boxes for tally marks in fives (four strokes and one
across, one box per five votes), a total, and name, party, signature and date
lines. The retrieval list says which batches hold the scanner's ballots and
where they are kept; the board's copy adds the ballots the store predicts the
hand count will read differently (not for the counters, so as not to lead them).

Printed with the project's form base (`tabulate.report.pdf`, fpdf2).
"""

from __future__ import annotations

import math
from pathlib import Path

from ...report.pdf import Form, write_form
from .state import AuditState

#: Tally boxes per printed row, and votes per box (tally marks in fives).
BOXES_PER_ROW = 20
PER_BOX = 5
#: Rows printed per option before a continuation sheet is needed (1,000 votes).
MAX_ROWS = 10
BOX_W, BOX_H = 0.33, 0.24


def _subtitle(state: AuditState) -> str:
    e = state.election
    return f"{e.title}, {e.date}, {e.jurisdiction}. KRS 117.383(8); 31 KAR 4:230 §2(1). Audit {state.audit.id}."


def tally_rows(pile: int) -> int:
    """Rows of boxes printed per option: enough for every ballot of the pile to vote for it, at most `MAX_ROWS`."""
    return max(1, min(MAX_ROWS, math.ceil(max(pile, 1) / (BOXES_PER_ROW * PER_BOX))))


def _boxes(form: Form, rows: int) -> None:
    pdf = form.pdf
    for r in range(rows):
        form.keep_together(BOX_H + 0.12)
        x0, y = pdf.l_margin, pdf.get_y()
        for b in range(BOXES_PER_ROW):
            x = x0 + b * BOX_W
            pdf.rect(x, y, BOX_W - 0.04, BOX_H)
            pdf.set_font("DejaVu", "", 5)
            pdf.text(x + 0.02, y + BOX_H + 0.07, str((r * BOXES_PER_ROW + b + 1) * PER_BOX))
        pdf.set_y(y + BOX_H + 0.12)
    pdf.set_font("DejaVu", "", 10)


def tally_sheet(form: Form, state: AuditState, counter: int) -> None:
    """One counter's SBE 90-like tally sheet (from the current position of ``form``)."""
    c, sel = state.contest, state.audit.selection
    form.heading(f"Tally sheet of counter {counter}")
    form.fields(
        [
            ("Scanner (tabulator)", state.audit.tabulator),
            ("Race", c.title),
            ("Vote for", str(c.vote_for)),
            ("Ballots with this race", str(state.pile)),
            (
                "Selected",
                f"drawn from the public seed {sel['seed']}"
                if sel.get("seed")
                else "as announced by the Secretary of State",
            ),
        ]
    )
    form.paragraph(
        "Count every ballot of the pile under 31 KAR 6:030 §3(1): a vote is a majority-filled oval, "
        "an oval or name circled or underlined, an X, check or other mark beside the name, or a line "
        "through the oval. Draw four strokes and one across in a box for each five votes; write the "
        "total beside each option.",
        size=8,
    )
    rows = tally_rows(state.pile)
    for o in c.options:
        form.keep_together(0.3 + rows * (BOX_H + 0.12) + 0.3)
        form.pdf.set_font("DejaVu", "B", 10)
        form.pdf.cell(5.2, 0.24, state.label(o.id))
        form.pdf.set_font("DejaVu", "", 10)
        form.pdf.cell(0, 0.24, "Total: __________", new_x="LMARGIN", new_y="NEXT")
        _boxes(form, rows)
    if state.pile > MAX_ROWS * BOXES_PER_ROW * PER_BOX:
        form.paragraph(
            f"Beyond {MAX_ROWS * BOXES_PER_ROW * PER_BOX} votes for one option, continue on "
            "another copy of this sheet.",
            size=8,
        )
    form.keep_together(1.2)
    form.signature_block([f"Counter {counter}"])


def retrieval_list(form: Form, state: AuditState, containers) -> None:
    """Which batches and containers hold the scanner's ballots, and how many sheets each."""
    form.heading(f"Retrieval list: the ballots scanner {state.audit.tabulator} counted")
    rows = [(k.batch, k.container, k.sheets, k.set_aside, f"{k.first}–{k.last}") for k in containers]
    total = sum(k.sheets for k in containers)
    form.table(
        ("Batch", "Container", "Sheets counted", "Set aside", "Positions"), rows, widths=(1.6, 2.6, 1.0, 0.8, 1.0)
    )
    form.paragraph(
        f"{total} sheets counted by the scanner; {state.pile} of them carry {state.contest.title}. "
        f"{len(state.sheets.set_aside)} sheets were set aside by the scanner.",
        size=9,
    )


def prediction_page(form: Form, state: AuditState) -> None:
    """The board's copy: what the store predicts the hand count will find, and the ballots behind it."""
    form.heading("Board's copy — prediction before the count (not for the counters)")
    p = state.prediction
    rows = []
    for o in p.options:
        if o.sure or o.low or o.high:
            span = "" if o.low == o.high else f" (between {o.low:+d} and {o.high:+d})"
            rows.append((state.label(o.option_id), f"{o.sure:+d}{span}", len(o.ballots) + len(o.maybe)))
    form.paragraph(
        "Hand count minus machine count the store predicts, per option:"
        if rows
        else "The store predicts no difference between the hand count and the machine count.",
        size=9,
    )
    if rows:
        form.table(("Option", "Predicted difference", "Ballots"), rows, widths=(4.0, 2.0, 1.0))
    ballots = [
        (b.batch, b.position, b.precinct_id, _change(state, b), "; ".join(b.why), "; ".join(b.clauses))
        for b in p.ballots
    ]
    ballots += [(b.batch, b.position, "", "not read", b.detail, "; ".join(b.clauses)) for b in p.set_aside]
    if ballots:
        form.table(
            ("Batch", "Position", "Precinct", "Change", "Why", "Clause"),
            ballots,
            widths=(1.1, 0.6, 0.7, 1.4, 1.6, 1.9),
            size=7,
        )


def _change(state: AuditState, note) -> str:
    parts = [f"{state.label(o).split(' (')[0]} {d:+d}" for o, d in note.sure.items()]
    parts += [f"{state.label(o).split(' (')[0]} {d:+d}?" for o, d in note.possible.items()]
    return ", ".join(parts) or "none expected"


def audit_sheets(state: AuditState, containers) -> Form:
    """The whole packet: counter 1's and counter 2's tally sheets, the retrieval list, the board's prediction."""
    form = Form("Post-election Hand-to-eye Recount Tally Sheet (SBE 90)", subtitle=_subtitle(state))
    tally_sheet(form, state, 1)
    form.new_page()
    tally_sheet(form, state, 2)
    form.new_page()
    retrieval_list(form, state, containers)
    prediction_page(form, state)
    return form


def write_audit_sheets(state: AuditState, containers, out_dir: str | Path) -> Path:
    return write_form(audit_sheets(state, containers), Path(out_dir) / f"handeye-audit-{state.audit.id}-sheets.pdf")
