"""Which ballots a hand count of the audited race should disagree on, before and after the count.

Before the poll workers count, `predict` lists the ballots of the audited
scanner that a hand count under 31 KAR 6:030 Section 3(1) should read
differently from the scanner under Section 2(1), with the other ballots worth
pulling (marginal marks, overvotes, write-ins, ballots people adjudicated or
have still to) and the sheets set aside. Summed per option it says what the
hand count should find ("3 more votes for Caldwell: these ballots").

After the count, `explain` sets each option's difference (hand - machine)
against that prediction: the part inside the predicted range is explained by
the listed ballots, the rest is unexplained and needs the board's attention.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from ...core import BallotRecord
from ...election import Contest, Election
from .reading import hand_votes

#: Why a ballot is listed, with the clause behind it.
WHY: dict[str, tuple[str, str]] = {
    "hand_reading_differs": (
        "a hand count reads this race differently from the scanner",
        "31 KAR 6:030 §3(1) (hand count) against §2(1) (scanner)",
    ),
    "marginal_mark": ("a mark neither clearly made nor clearly absent", "31 KAR 6:030 §2(1), §3(1)"),
    "overvote": ("more selections than the race allows: no option credited", "31 KAR 6:030 §1(6), §2(2)(b)"),
    "write_in": ("a write-in line marked or written on", "31 KAR 6:030 §2(1)(b), §4"),
    "adjudicated": ("people decided this ballot; the count uses their decision", "31 KAR 4:220 §7(1), §9(12)"),
    "awaiting_review": (
        "flagged for people, not yet decided: the count uses the scanner's reading",
        "31 KAR 6:030 §2(1)",
    ),
    "set_aside": ("set aside by the scanner: not in the machine count", "31 KAR 4:220 §9(3)"),
}


@dataclass(frozen=True)
class BallotNote:
    """One ballot to pull from its container, and why.

    ``sure`` maps an option to the change the hand count makes there
    (+1: the hand count finds a vote the machine did not credit; -1 the
    reverse); ``possible`` the change if a mark the reader left marginal is
    counted. Both are empty for a ballot listed only to be looked at.
    """

    sheet_id: int
    ballot_id: str
    batch: str
    position: int
    precinct_id: str
    why: tuple[str, ...]
    clauses: tuple[str, ...]
    sure: Mapping[str, int]
    possible: Mapping[str, int]
    detail: str = ""

    @property
    def label(self) -> str:
        return f"{self.batch} #{self.position}"

    def to_dict(self) -> dict:
        return {
            "sheet_id": self.sheet_id,
            "ballot_id": self.ballot_id,
            "batch": self.batch,
            "position": self.position,
            "precinct_id": self.precinct_id,
            "why": list(self.why),
            "clauses": list(self.clauses),
            "sure": dict(self.sure),
            "possible": dict(self.possible),
            "detail": self.detail,
        }


@dataclass(frozen=True)
class OptionPrediction:
    """What the hand count should find for one option, against the machine count.

    ``sure`` is the change the ballots read with certainty make; the hand
    count's difference should lie in ``low .. high`` (marginal marks either way).
    """

    option_id: str
    sure: int
    low: int
    high: int
    ballots: tuple[int, ...]
    maybe: tuple[int, ...]


@dataclass(frozen=True)
class Prediction:
    tabulator: str
    contest_id: str
    options: tuple[OptionPrediction, ...]
    ballots: tuple[BallotNote, ...]
    set_aside: tuple[BallotNote, ...]

    def option(self, option_id: str) -> OptionPrediction:
        return next(o for o in self.options if o.option_id == option_id)

    @property
    def sheet_ids(self) -> tuple[int, ...]:
        """The ballots the prediction says change the count (sure or possible), in container order."""
        return tuple(b.sheet_id for b in self.ballots if b.sure or b.possible)

    def to_dict(self) -> dict:
        return {
            "tabulator": self.tabulator,
            "contest_id": self.contest_id,
            "options": [
                {
                    "option_id": o.option_id,
                    "sure": o.sure,
                    "low": o.low,
                    "high": o.high,
                    "ballots": list(o.ballots),
                    "maybe": list(o.maybe),
                }
                for o in self.options
            ],
            "ballots": [b.to_dict() for b in self.ballots],
            "set_aside": [b.to_dict() for b in self.set_aside],
        }


@dataclass(frozen=True)
class AuditedSheet:
    """A live sheet of the audited scanner: its store id and its record (decisions folded in)."""

    sheet_id: int
    record: BallotRecord


@dataclass(frozen=True)
class SetAsideSheet:
    sheet_id: int
    ballot_id: str
    batch: str
    position: int
    status: str
    reason: str


def _why(contest: Contest, record: BallotRecord, changes: bool, unsure: bool) -> tuple[str, ...]:
    why = []
    if changes:
        why.append("hand_reading_differs")
    marks = record.marks.marks.get(contest.id, {})
    if unsure or any(m.scan == "marginal" for m in marks.values()):
        why.append("marginal_mark")
    try:
        cv = record.votes.contest(contest.id)
    except KeyError:
        cv = None
    if cv is not None and cv.status == "overvote":
        why.append("overvote")
    write_in_lines = {o.id for o in contest.options if o.kind == "write_in"}
    if (cv is not None and write_in_lines & set(cv.selections)) or any(
        m.write_in_ink for oid, m in marks.items() if oid in write_in_lines
    ):
        why.append("write_in")
    # A flag or a decision elsewhere on the ballot does not concern the race.
    here = any(x.contest_id in (None, contest.id) for x in record.interpreted.reasons)
    if record.decided and (here or _changed(record, contest.id)):
        why.append("adjudicated")
    elif record.status == "needs_review" and here:
        why.append("awaiting_review")
    return tuple(why)


def _changed(record: BallotRecord, contest_id: str) -> bool:
    """People's decision changed the race's votes on this ballot."""
    if record.modified is None:
        return False
    try:
        return record.modified.contest(contest_id) != record.interpreted.contest(contest_id)
    except KeyError:
        return False


def note_for(
    election: Election,
    sheet: AuditedSheet,
    contest_id: str,
    hand_clauses: Callable[[int, str], tuple[str, ...]] | None = None,
) -> BallotNote | None:
    """The note for one ballot in the audited race, or None when there is nothing to look at."""
    contest = election.contest(contest_id)
    r = sheet.record
    hv = hand_votes(election, r, contest_id)
    sure, possible = {}, {}
    for o in contest.options:
        lo, hi = hv.delta(o.id)
        if lo:
            sure[o.id] = lo
        if hi != lo:
            possible[o.id] = hi
    why = _why(contest, r, bool(sure), bool(hv.uncertain))
    if not why and not possible:
        return None
    seen = hand_clauses(sheet.sheet_id, contest_id) if hand_clauses is not None and (sure or possible) else ()
    # The reader's own clauses ("circled (31 KAR 6:030 §3(1)(b))") say more than the generic one.
    generic = [WHY[w][1] for w in why if not (seen and w == "hand_reading_differs")]
    clauses = tuple(dict.fromkeys((*seen, *generic)))
    return BallotNote(
        sheet.sheet_id,
        r.ballot_id,
        r.batch,
        r.position,
        r.precinct_id,
        why,
        clauses,
        sure,
        possible,
        "; ".join(WHY[w][0] for w in why),
    )


def predict(
    election: Election,
    tabulator: str,
    contest_id: str,
    sheets: Iterable[AuditedSheet],
    set_aside: Iterable[SetAsideSheet] = (),
    hand_clauses: Callable[[int, str], tuple[str, ...]] | None = None,
) -> Prediction:
    """The ballots to pull and what the hand count of ``contest_id`` should find, option by option.

    Parameters
    ----------
    sheets
        Every live sheet the scanner counted, in container (batch, position) order.
    set_aside
        The scanner's sheets that were not counted (rejected or duplicate).
    hand_clauses
        ``(sheet_id, contest_id) -> clauses`` the reader gave its hand
        reading (for example "circled (31 KAR 6:030 §3(1)(b))"), if known.
    """
    contest = election.contest(contest_id)
    notes = [n for s in sheets if (n := note_for(election, s, contest_id, hand_clauses)) is not None]
    options = []
    for o in contest.options:
        sure = sum(n.sure.get(o.id, 0) for n in notes)
        lo = hi = 0
        for n in notes:
            a, b = n.sure.get(o.id, 0), n.possible.get(o.id, n.sure.get(o.id, 0))
            lo, hi = lo + min(a, b), hi + max(a, b)
        options.append(
            OptionPrediction(
                o.id,
                sure,
                lo,
                hi,
                tuple(n.sheet_id for n in notes if o.id in n.sure),
                tuple(n.sheet_id for n in notes if o.id in n.possible),
            )
        )
    aside = tuple(
        BallotNote(
            s.sheet_id,
            s.ballot_id,
            s.batch,
            s.position,
            "",
            ("set_aside",),
            (WHY["set_aside"][1],),
            {},
            {},
            f"{s.status}: {s.reason}",
        )
        for s in set_aside
    )
    return Prediction(tabulator, contest_id, tuple(options), tuple(notes), aside)


@dataclass(frozen=True)
class OptionExplanation:
    """One option after the count: the difference, the part the listed ballots explain, the rest."""

    option_id: str
    hand: int
    machine: int
    predicted: OptionPrediction

    @property
    def difference(self) -> int:
        return self.hand - self.machine

    @property
    def unexplained(self) -> int:
        """How far the difference lies outside the predicted range (0 inside it), signed."""
        d, p = self.difference, self.predicted
        return d - p.high if d > p.high else d - p.low if d < p.low else 0

    @property
    def explained(self) -> int:
        return self.difference - self.unexplained


@dataclass(frozen=True)
class Explanation:
    prediction: Prediction
    options: tuple[OptionExplanation, ...]

    @property
    def total_difference(self) -> int:
        """Votes the hand count and the machine disagree on, summed over options (absolute)."""
        return sum(abs(o.difference) for o in self.options)

    @property
    def total_unexplained(self) -> int:
        return sum(abs(o.unexplained) for o in self.options)

    @property
    def share_explained(self) -> float:
        """Fraction of the difference the listed ballots account for (1.0 when there is none)."""
        total = self.total_difference
        return 1.0 if total == 0 else (total - self.total_unexplained) / total

    def to_dict(self) -> dict:
        return {
            "total_difference": self.total_difference,
            "total_unexplained": self.total_unexplained,
            "share_explained": round(self.share_explained, 6),
            "options": [
                {
                    "option_id": o.option_id,
                    "hand": o.hand,
                    "machine": o.machine,
                    "difference": o.difference,
                    "predicted": o.predicted.sure,
                    "predicted_low": o.predicted.low,
                    "predicted_high": o.predicted.high,
                    "explained": o.explained,
                    "unexplained": o.unexplained,
                    "ballots": list(o.predicted.ballots),
                    "maybe": list(o.predicted.maybe),
                }
                for o in self.options
            ],
        }


def explain(prediction: Prediction, hand: Mapping[str, int], machine: Mapping[str, int]) -> Explanation:
    """Set the counted difference of every option against the prediction."""
    return Explanation(
        prediction,
        tuple(
            OptionExplanation(p.option_id, int(hand.get(p.option_id, 0)), int(machine.get(p.option_id, 0)), p)
            for p in prediction.options
        ),
    )
