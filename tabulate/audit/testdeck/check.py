"""The accuracy test itself: count the deck and compare every number with the tally sheet.

31 KAR 2:020 Section 4(2)(b): "Completion of the processing of the test desk
through the voting machine or voting system with a printout showing an
errorless test upon comparison with the tally sheet."
Section 5(5): "If an error in a voting machine or voting system is detected
during an accuracy test, the cause shall be ascertained, the error shall be
corrected, and the accuracy test shall be performed until an errorless count
is ascertained."

The comparison reads what the machine read (the rules' votes under 31 KAR
6:030 Section 2(1), for every sheet it could read, whether or not a person
would later look at it): a write-in is a vote on its write-in line, an
overvote credits no option. A sheet the machine could not read, or read as
another style, is itself an error.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping

from ...core import BallotVotes
from ...election.model import STRAIGHT_PARTY_CONTEST_ID, Election
from ..labels import OVERVOTES, UNDERVOTES, contest_title, option_label
from .design import TallySheet


@dataclass(frozen=True)
class ReadSheet:
    """One deck sheet as the machine read it: where it was fed, its status and votes."""

    label: str
    status: str
    style_id: str | None
    votes: BallotVotes | None
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Line:
    """One number of the printout: an option (or the overvote/undervote line), expected against counted."""

    style_id: str
    contest_id: str
    option_id: str
    expected: int
    counted: int

    @property
    def ok(self) -> bool:
        return self.expected == self.counted


@dataclass(frozen=True)
class StyleResult:
    """One style's deck: every line, and the sheets that are errors in themselves."""

    style_id: str
    ballots_expected: int
    ballots_read: int
    lines: tuple[Line, ...]
    sheet_errors: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return (
            not self.sheet_errors and self.ballots_read == self.ballots_expected and all(line.ok for line in self.lines)
        )

    def mismatches(self) -> tuple[Line, ...]:
        return tuple(line for line in self.lines if not line.ok)


@dataclass(frozen=True)
class DeckResult:
    """The errorless-test verdict for a whole deck: PASS only if every style passed."""

    styles: tuple[StyleResult, ...]

    @property
    def passed(self) -> bool:
        return bool(self.styles) and all(s.passed for s in self.styles)

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"


def _count(election: Election, tally: TallySheet, sheets: Iterable[ReadSheet]) -> tuple[dict, dict, int, list[str]]:
    votes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    party: dict[str, int] = defaultdict(int)
    errors: list[str] = []
    read = 0
    wanted = {c.contest_id for c in tally.contests}
    for s in sheets:
        read += 1
        if s.votes is None or s.status not in ("counted", "needs_review"):
            errors.append(f"{s.label}: not read ({s.status}: {', '.join(s.reasons) or 'no reason given'})")
            continue
        if s.style_id != tally.style_id:
            errors.append(f"{s.label}: read as ballot style {s.style_id!r}, not {tally.style_id!r}")
            continue
        if s.votes.straight_party:
            party[s.votes.straight_party] += 1
        for cv in s.votes.contests:
            if cv.contest_id not in wanted:
                continue
            for o in cv.selections:
                votes[cv.contest_id][o] += 1
            votes[cv.contest_id][OVERVOTES] += cv.overvotes
            votes[cv.contest_id][UNDERVOTES] += cv.undervotes
    return votes, party, read, errors


def compare_style(election: Election, tally: TallySheet, sheets: Iterable[ReadSheet]) -> StyleResult:
    """Compare what the machine counted from one style's deck with its tally sheet, number by number."""
    votes, party, read, errors = _count(election, tally, sheets)
    lines = [Line(tally.style_id, STRAIGHT_PARTY_CONTEST_ID, p, n, party.get(p, 0)) for p, n in tally.straight_party]
    for c in tally.contests:
        got = votes.get(c.contest_id, {})
        unknown = sorted(set(got) - {o for o, _ in c.votes} - {OVERVOTES, UNDERVOTES})
        lines += [Line(tally.style_id, c.contest_id, o, n, got.get(o, 0)) for o, n in c.votes]
        lines += [Line(tally.style_id, c.contest_id, o, 0, got[o]) for o in unknown]
        lines.append(Line(tally.style_id, c.contest_id, OVERVOTES, c.overvotes, got.get(OVERVOTES, 0)))
        lines.append(Line(tally.style_id, c.contest_id, UNDERVOTES, c.undervotes, got.get(UNDERVOTES, 0)))
    return StyleResult(tally.style_id, tally.ballots, read, tuple(lines), tuple(errors))


def swapped_pairs(result: StyleResult) -> list[tuple[str, str, str]]:
    """Pairs of options where what one counted too many the other counted too few: ``(contest, a, b)``.

    The signature of two targets swapped between the printed ballot and the
    tabulator's layout; the deck gives every option of a contest a different
    total so that such a swap always shows.
    """
    by_contest: Mapping[str, list[Line]] = defaultdict(list)
    for line in result.mismatches():
        if line.option_id not in (OVERVOTES, UNDERVOTES):
            by_contest[line.contest_id].append(line)
    pairs = []
    for cid, lines in by_contest.items():
        for i, a in enumerate(lines):
            for b in lines[i + 1 :]:
                # A swap moves the marks of each target to the other: what one gains the other loses.
                if a.counted - a.expected == b.expected - b.counted:
                    pairs.append((cid, a.option_id, b.option_id))
    return pairs


def findings(result: DeckResult, election: Election) -> list[str]:
    """One sentence per error, naming the style, the contest and the options (for the printout and the CLI)."""
    out = []
    for s in result.styles:
        out += [f"style {s.style_id}: {e}" for e in s.sheet_errors]
        if s.ballots_read != s.ballots_expected:
            out.append(f"style {s.style_id}: {s.ballots_read} sheets read, the deck has {s.ballots_expected}")
        paired = set()
        lines = {(line.contest_id, line.option_id): line for line in s.lines}
        for cid, a, b in swapped_pairs(s):
            a_line, b_line = lines[(cid, a)], lines[(cid, b)]
            out.append(
                f"style {s.style_id}: {contest_title(election, cid)}: the targets of "
                f"{option_label(election, cid, a)} [{a}] and {option_label(election, cid, b)} [{b}] "
                f"look swapped "
                f"(expected {a_line.expected} and {b_line.expected}, counted {a_line.counted} and "
                f"{b_line.counted})"
            )
            paired |= {(cid, a), (cid, b)}
        for line in s.mismatches():
            if (line.contest_id, line.option_id) in paired:
                continue
            out.append(
                f"style {s.style_id}: {contest_title(election, line.contest_id)}: "
                f"{option_label(election, line.contest_id, line.option_id)} [{line.option_id}]: "
                f"expected {line.expected}, counted {line.counted}"
            )
    return out
