"""One audit, everything known about it: what the board reviews and the findings (SBE 91) print."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...election import Contest, Election
from ...store import Store
from ...store.sqldb import Connection
from . import book
from .compare import ComparisonRow, compare, option_label
from .explain import Explanation, Prediction, explain, predict
from .tallies import Attempt, group_attempts, matched_tally
from .workbench import ScannerSheets, ballots_with_race, hand_clauses, machine_counts, scanner_sheets

FORMAT = "tabulate-handeye-audit/1"


def changing(prediction: dict[str, Any]) -> list[int]:
    """Sheet ids a stored prediction says change the count (sure or possible)."""
    return [b["sheet_id"] for b in prediction.get("ballots", []) if b.get("sure") or b.get("possible")]


@dataclass(frozen=True)
class AuditState:
    audit: book.Audit
    election: Election
    contest: Contest
    sheets: ScannerSheets
    pile: int
    machine: dict[str, int]
    attempts: tuple[Attempt, ...]
    matched: Attempt | None
    tape: book.Tape | None
    prediction: Prediction
    explanation: Explanation | None
    comparison: tuple[ComparisonRow, ...] | None
    determinations: tuple[book.Finding, ...]
    signatures: tuple[book.Finding, ...]
    annotations: tuple[book.Finding, ...]

    @property
    def signed(self) -> bool:
        return bool(self.signatures)

    @property
    def hand(self) -> dict[str, int] | None:
        return None if self.matched is None else dict(self.matched.entries[0].counts)

    @property
    def same_ballots_as_predicted(self) -> bool:
        """The ballots the prediction named when the audit was selected are the ones named now."""
        return sorted(changing(self.audit.prediction)) == sorted(self.prediction.sheet_ids)

    def label(self, option_id: str) -> str:
        return option_label(self.contest, option_id)

    def to_dict(self) -> dict:
        a = self.audit
        return {
            "format": FORMAT,
            "election": {
                "title": self.election.title,
                "date": self.election.date,
                "jurisdiction": self.election.jurisdiction,
                "hash": self.election.hash,
            },
            "audit": a.id,
            "created_at": a.created_at,
            "created_by": a.created_by,
            "selection": dict(a.selection),
            "race": {
                "contest_id": self.contest.id,
                "title": self.contest.title,
                "vote_for": self.contest.vote_for,
                "options": [{"option_id": o.id, "label": self.label(o.id)} for o in self.contest.options],
            },
            "pile": {
                "ballots_with_race": self.pile,
                "sheets": len(self.sheets.sheets),
                "awaiting_review": self.sheets.awaiting_review,
                "set_aside": len(self.sheets.set_aside),
            },
            "machine": self.machine,
            "attempts": [
                {
                    "attempt": t.number,
                    "matched": t.matched,
                    "differences": list(t.differences),
                    "tallies": [e.to_dict() for e in t.entries],
                }
                for t in self.attempts
            ],
            "matched_attempt": None if self.matched is None else self.matched.number,
            "tape": None
            if self.tape is None
            else {
                "source": self.tape.source,
                "counts": dict(self.tape.counts),
                "entered_at": self.tape.entered_at,
                "entered_by": self.tape.entered_by,
            },
            "comparison": None if self.comparison is None else [r.to_dict() for r in self.comparison],
            "prediction_at_selection": dict(a.prediction),
            "prediction": self.prediction.to_dict(),
            "same_ballots_as_predicted": self.same_ballots_as_predicted,
            "explanation": None if self.explanation is None else self.explanation.to_dict(),
            "determinations": [f.to_dict() for f in self.determinations],
            "signatures": [f.to_dict() for f in self.signatures],
            "annotations": [f.to_dict() for f in self.annotations],
            "signed": self.signed,
        }


def audit_state(store: Store, conn: Connection, audit_id: int) -> AuditState:
    """Read one audit and everything it is compared with."""
    audit = book.get_audit(conn, audit_id)
    election = store.election()
    contest = election.contest(audit.contest_id)
    sheets = scanner_sheets(store, conn, audit.tabulator)
    prediction = predict(election, audit.tabulator, contest.id, sheets.sheets, sheets.set_aside, hand_clauses(store))
    machine = machine_counts(election, sheets, contest.id)
    entries = book.tallies(conn, audit_id)
    matched = matched_tally(entries)
    tape = book.tape(conn, audit_id)
    explanation = comparison = None
    if matched is not None:
        hand = dict(matched.entries[0].counts)
        explanation = explain(prediction, hand, machine)
        comparison = compare(contest, hand, machine, None if tape is None else tape.counts)
    found = book.findings(conn, audit_id)
    return AuditState(
        audit,
        election,
        contest,
        sheets,
        ballots_with_race(sheets, contest.id),
        machine,
        tuple(group_attempts(entries)),
        matched,
        tape,
        prediction,
        explanation,
        comparison,
        tuple(f for f in found if f.kind == "determination"),
        tuple(f for f in found if f.kind == "signature"),
        tuple(f for f in found if f.kind == "annotation"),
    )
