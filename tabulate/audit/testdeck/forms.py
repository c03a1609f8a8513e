"""The accuracy test's paper: tally sheet, errorless-test printout, checklist and SBE 16-like certificate.

- Tally sheet, 31 KAR 2:020 Section 1(9): "a listing of the results from the
  test deck to be compared to the results printout"; Section 3(5): "The
  Accuracy Board shall approve a tally sheet showing the results of each test
  deck."
- Printout, Section 5(7): "A printout from each voting machine or voting system
  from the accuracy test shall be created, signed, and dated by the person
  conducting the test."
- Checklist, Section 4(2)(a)-(b).
- Certificate, Section 1(5) (SBE 16) and Section 2(3): "The Accuracy Board
  shall sign the certificate upon completion of the accuracy tests".

Each comes as text (for the terminal and the record) and as a PDF form.
"""

from __future__ import annotations

from typing import Mapping

from ...election.model import Election
from ...report.pdf import Form, form_date
from ..labels import contest_title, option_label
from .check import DeckResult, StyleResult, findings
from .design import TallySheet

_CLAUSE = "31 KAR 2:020"


def _subtitle(election: Election, what: str) -> str:
    return (
        f"{election.title}, {election.date}, {election.jurisdiction} — {what} — "
        f"election definition {election.hash_prefix}"
    )


def _tally_rows(election: Election, tally: TallySheet) -> list[tuple[str, str, int]]:
    rows = [("Straight Party", option_label(election, "straight-party", p), n) for p, n in tally.straight_party]
    for c in tally.contests:
        title = contest_title(election, c.contest_id)
        rows += [(title, option_label(election, c.contest_id, o), n) for o, n in c.votes]
        rows += [(title, "Overvotes", c.overvotes), (title, "Undervotes", c.undervotes)]
    return rows


def tally_sheet_text(election: Election, tallies: Mapping[str, TallySheet]) -> str:
    """The tally sheets of a deck as plain text, one block per ballot style."""
    out = [f"ACCURACY TEST TALLY SHEET ({_CLAUSE} Section 1(9), Section 3(5))", _subtitle(election, "test deck"), ""]
    for style_id, tally in tallies.items():
        out.append(f"Ballot style {style_id} (precinct {tally.precinct_id}): {tally.ballots} ballots")
        out += [f"  {t[:34]:<34} {o[:36]:<36} {n:5d}" for t, o, n in _tally_rows(election, tally)]
        out.append("")
    return "\n".join(out)


def tally_sheet_form(election: Election, tallies: Mapping[str, TallySheet]) -> Form:
    form = Form("Accuracy Test Tally Sheet", subtitle=_subtitle(election, f"{_CLAUSE} Section 1(9), Section 3(5)"))
    for style_id, tally in tallies.items():
        form.heading(f"Ballot style {style_id} — precinct {tally.precinct_id} — {tally.ballots} ballots")
        form.table(("Contest", "Option", "Predetermined votes"), _tally_rows(election, tally), widths=(2.8, 3.0, 1.4))
    form.paragraph("The Accuracy Board approves this tally sheet before the accuracy test (Section 3(5)).")
    form.signature_block(("Accuracy Board member", "Accuracy Board member"))
    return form


def _result_rows(election: Election, s: StyleResult) -> list[tuple[str, str, int, int, str]]:
    return [
        (
            contest_title(election, line.contest_id),
            option_label(election, line.contest_id, line.option_id),
            line.expected,
            line.counted,
            "ok" if line.ok else "ERROR",
        )
        for line in s.lines
    ]


def printout_text(election: Election, result: DeckResult, *, store_path: str = "") -> str:
    """The errorless-test printout: for every option, expected against counted; PASS only if all match."""
    out = [
        f"ACCURACY TEST PRINTOUT ({_CLAUSE} Section 4(2)(b), Section 5(7))",
        _subtitle(election, "test deck"),
        f"Printed {form_date().strftime('%Y-%m-%d %H:%M UTC')}" + (f"; test store {store_path}" if store_path else ""),
        f"RESULT: {result.verdict}",
        "",
    ]
    for s in result.styles:
        out.append(
            f"Ballot style {s.style_id}: {s.ballots_read} sheets read, {s.ballots_expected} in the deck — "
            + ("PASS" if s.passed else "FAIL")
        )
        out.append(f"  {'contest':<34} {'option':<36} {'expected':>8} {'counted':>8}")
        out += [f"  {t[:34]:<34} {o[:36]:<36} {e:8d} {c:8d}  {ok}" for t, o, e, c, ok in _result_rows(election, s)]
        out.append("")
    problems = findings(result, election)
    out.append("Errors found:" if problems else "No error: the count matches the tally sheet in every number.")
    out += [f"  - {p}" for p in problems]
    return "\n".join(out) + "\n"


def printout_form(election: Election, result: DeckResult) -> Form:
    form = Form("Accuracy Test Printout", subtitle=_subtitle(election, f"{_CLAUSE} Section 4(2)(b), Section 5(7)"))
    form.fields(
        (
            (
                "Result",
                f"{result.verdict} — "
                + (
                    "every number matches the tally sheet"
                    if result.passed
                    else "the count differs from the tally sheet: find the cause, correct it, test again (Section 5(5))"
                ),
            ),
            ("Printed", form_date().strftime("%Y-%m-%d %H:%M UTC")),
        )
    )
    problems = findings(result, election)
    if problems:
        form.heading("Errors")
        for p in problems:
            form.paragraph("• " + p, size=9)
    for s in result.styles:
        form.heading(
            f"Ballot style {s.style_id}: {s.ballots_read} sheets read of {s.ballots_expected} — "
            + ("PASS" if s.passed else "FAIL")
        )
        form.table(
            ("Contest", "Option", "Expected", "Counted", ""),
            _result_rows(election, s),
            widths=(2.5, 2.7, 0.8, 0.8, 0.5),
        )
    form.paragraph("Signed and dated by the person conducting the test (Section 5(7)).")
    form.signature_block(("Person conducting the test",))
    return form


def checklist_form(election: Election, result: DeckResult, *, device: str = "central-count scanner") -> Form:
    """The accuracy test checklist of Section 4(2)(a)-(b), with the processing box ticked only on PASS."""
    form = Form("Accuracy Test Checklist", subtitle=_subtitle(election, f"{_CLAUSE} Section 4"))
    form.heading("Section 4(2)(a)")
    form.fields(
        (
            ("Date", form_date().strftime("%Y-%m-%d")),
            ("Description of device", device),
            ("Ballot styles tested", ", ".join(s.style_id for s in result.styles)),
        )
    )
    form.blank_lines(
        (
            "Assigned precinct",
            "Serial number",
            "Firmware version",
            "Firmware certified by the SBE (KRS 117.379, 117.381)",
            "Person completing this checklist",
        )
    )
    form.heading("Section 4(2)(b)")
    form.checkboxes(
        (
            (
                "Visual inspection of the voting machine or voting system and all working parts to check for damage "
                "or defects",
                False,
            ),
            (
                "Visual inspection of all power sources, cables, card slots, and locking devices, including an "
                "accounting for all cables, batteries, power cords, and locking devices",
                False,
            ),
            (
                f"Completion of the processing of the test deck through the voting system with a printout showing an "
                f"errorless test upon comparison with the tally sheet (this run: {result.verdict})",
                result.passed,
            ),
            (
                "The accuracy test was performed on the voting system, not on this individual voting machine "
                "(Section 5(3))",
                False,
            ),
        )
    )
    form.signature_block(("Person completing the checklist", "Accuracy Board member", "Accuracy Board member"))
    return form


def certificate_form(election: Election, result: DeckResult) -> Form:
    """An SBE 16-like County Board of Elections Certificate of Completion of Accuracy Test."""
    form = Form(
        "Certificate of Completion of Accuracy Test",
        subtitle=_subtitle(election, f"SBE 16-like, {_CLAUSE} Section 1(5), Section 2(3), Section 7(2)"),
    )
    form.fields(
        (
            ("County", election.jurisdiction),
            ("Election", f"{election.title}, {election.date}"),
            ("Ballot styles tested", ", ".join(s.style_id for s in result.styles)),
            ("Result of the test recorded here", result.verdict),
        )
    )
    form.paragraph(
        "We, the Accuracy Board, certify that an accuracy test was conducted on the voting system with the approved "
        "test deck, that the results printout was compared with the tally sheet, and that an errorless count was "
        "ascertained, and that an accuracy test checklist was completed for each voting machine and voting system "
        "(31 KAR 2:020 Section 2(3), Section 5(8))."
    )
    if not result.passed:
        form.paragraph(
            "THIS TEST WAS NOT ERRORLESS. Do not sign: find the cause, correct the error and test "
            "again until an errorless count is ascertained (Section 5(5))."
        )
    form.signature_block(("Accuracy Board member", "Accuracy Board member"))
    form.paragraph(
        "The county board of elections, having ascertained that an errorless accuracy test was performed "
        "(Section 7(2)):"
    )
    form.signature_block(
        ("County board of elections member", "County board of elections member", "County board of elections member")
    )
    return form
