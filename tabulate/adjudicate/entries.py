"""One person's reading of a ballot, and the votes it amounts to under 31 KAR 6:030.

A reviewer decides *facts*: for each option, whether the voter marked it
(the visual inspection of 31 KAR 6:030 §3(1) and 4:220 §9(4)), what name is
written on a write-in line, and, with the clause `resolve_write_in` proposes,
whose vote that name is (§4). The *law* then runs again: the decided marks go
through `apply_rules` exactly as a scanned ballot's would, so overvotes,
straight party (§5) and write-in rules are applied the same way for every
ballot, and a recount can replay any decision from its entry. (The other way,
letting people pick the contest's final selections directly, would let two
teams apply §5 or §2(2)(b) differently; it is not offered.)

Write-in names fold in as the reports expect (`tabulate.core.records`): the
write-in line stays the selection, and ``write_ins`` maps it to the declared
candidate, or to None when the name is not counted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Mapping

from ..core.canonical import canonical_json
from ..core.errors import TabulateError
from ..election import Contest, Election
from ..rules import BallotMarks, BallotVotes, OptionMark, WriteInDecision, apply_rules, resolve_write_in
from ..rules.clauses import ALREADY_ON_BALLOT, CANDIDATE_PLUS_WRITE_IN, FWAB
from .source import ReviewSheet

NOT_COUNTED = "not_counted"
MAX_NOTE_CHARS = 1000
MAX_NAME_CHARS = 120


class DecisionError(TabulateError, ValueError):
    """An entry that cannot be recorded as it is; ``problems`` lists each thing to fix, in words."""

    code = "decision"

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class WriteInReading:
    """What a person read on one write-in line and whose vote they confirm it is.

    ``outcome`` is a declared write-in candidate's id, `NOT_COUNTED`, or None
    while nobody has chosen. ``sticker`` is a sticker, label or stamp (§4(3)).
    """

    contest_id: str
    option_id: str
    name: str
    sticker: bool = False
    outcome: str | None = None

    @property
    def has_name(self) -> bool:
        return bool(self.name.strip()) or self.sticker


@dataclass(frozen=True)
class Entry:
    """One reviewer's (or board member's) reading of a whole ballot.

    ``marked`` gives, for every contest on the style (the straight-party
    pseudo-contest included), the options the person finds marked.
    ``manual`` is an entry made by hand from the paper of a ballot the
    scanner could not read (31 KAR 4:220 §9(4)(c)).
    """

    sheet_id: str
    round: int
    style_id: str
    precinct_id: str | None
    marked: Mapping[str, tuple[str, ...]]
    write_ins: tuple[WriteInReading, ...] = ()
    manual: bool = False
    note: str = ""

    def reading(self, contest_id: str, option_id: str) -> WriteInReading | None:
        for w in self.write_ins:
            if (w.contest_id, w.option_id) == (contest_id, option_id):
                return w
        return None

    def agreement(self) -> dict:
        """What two people must agree on: the marks and whose vote each marked write-in is.

        The spelling of a name read and the note are not compared.
        """
        out = {
            "style": self.style_id,
            "marked": {c: sorted(o) for c, o in sorted(self.marked.items())},
            "write_ins": {
                f"{w.contest_id}/{w.option_id}": w.outcome
                for w in self.write_ins
                if w.option_id in self.marked.get(w.contest_id, ()) and w.has_name
            },
        }
        if self.manual:
            out["precinct"] = self.precinct_id
        return out

    def digest(self) -> str:
        return hashlib.sha256(canonical_json(self.agreement())).hexdigest()

    def to_json(self) -> dict:
        return {
            "sheet_id": self.sheet_id,
            "round": self.round,
            "style": self.style_id,
            "precinct": self.precinct_id,
            "manual": self.manual,
            "note": self.note,
            "marked": {c: list(o) for c, o in self.marked.items()},
            "write_ins": [
                {
                    "contest": w.contest_id,
                    "option": w.option_id,
                    "name": w.name,
                    "sticker": w.sticker,
                    "outcome": w.outcome,
                }
                for w in self.write_ins
            ],
        }

    @classmethod
    def from_json(cls, d: Mapping) -> Entry:
        return cls(
            d["sheet_id"],
            int(d["round"]),
            d["style"],
            d.get("precinct"),
            {c: tuple(o) for c, o in d["marked"].items()},
            tuple(
                WriteInReading(w["contest"], w["option"], w["name"], bool(w.get("sticker")), w.get("outcome"))
                for w in d.get("write_ins", ())
            ),
            bool(d.get("manual")),
            d.get("note", ""),
        )


@dataclass(frozen=True)
class DecidedVotes:
    """The votes an entry amounts to, with the write-in names and what people should read about it."""

    marks: BallotMarks
    votes: BallotVotes
    write_ins: Mapping[tuple[str, str], str | None]
    notes: tuple[str, ...] = ()
    proposals: Mapping[tuple[str, str], WriteInDecision] = field(default_factory=dict)


def machine_mark(sheet: ReviewSheet, contest_id: str, option_id: str) -> OptionMark | None:
    if sheet.marks is None:
        return None
    return sheet.marks.marks.get(contest_id, {}).get(option_id)


def check_entry(election: Election, sheet: ReviewSheet, entry: Entry) -> None:
    """Raise `DecisionError` listing everything wrong with an entry (all at once)."""
    problems: list[str] = []
    try:
        contests = election.style_contests(entry.style_id)
    except KeyError:
        raise DecisionError([f"ballot style {entry.style_id!r} is not in the election"]) from None
    if not entry.manual and sheet.style_id and entry.style_id != sheet.style_id:
        problems.append(
            f"the style read by the scanner is {sheet.style_id!r}; only a ballot entered by hand may name another"
        )
    if entry.manual and entry.precinct_id not in election.style(entry.style_id).precincts:
        problems.append(f"choose a precinct served by ballot style {entry.style_id!r}")
    on_style = {c.id for c in contests}
    for cid in entry.marked:
        if cid not in on_style:
            problems.append(f"contest {cid!r} is not on ballot style {entry.style_id!r}")
    for contest in contests:
        if contest.id not in entry.marked:
            problems.append(f"{contest.title}: no decision was given")
            continue
        ids = {o.id for o in contest.options}
        for oid in entry.marked[contest.id]:
            if oid not in ids:
                problems.append(f"{contest.title}: {oid!r} is not one of its options")
    for w in entry.write_ins:
        if len(w.name) > MAX_NAME_CHARS:
            problems.append(f"the name read on a write-in line is longer than {MAX_NAME_CHARS} characters")
        if w.outcome in (None, NOT_COUNTED):
            continue
        try:
            contest = election.contest(w.contest_id)
        except KeyError:
            problems.append(f"write-in for unknown contest {w.contest_id!r}")
            continue
        allowed = {d.id for d in contest.declared_write_ins}
        if sheet.fwab:  # 31 KAR 5:011 §2 suspends 6:030 §4(2): a name on the ballot counts on an FWAB.
            allowed |= {c.id for c in contest.candidates}
        if w.outcome not in allowed:
            problems.append(f"{contest.title}: {w.outcome!r} is not a declared write-in candidate of the contest")
    if len(entry.note) > MAX_NOTE_CHARS:
        problems.append(f"the note is longer than {MAX_NOTE_CHARS} characters")
    if problems:
        raise DecisionError(problems)


def propose(election: Election, sheet: ReviewSheet, entry: Entry) -> dict[tuple[str, str], WriteInDecision]:
    """`resolve_write_in`'s proposal for every write-in line found marked with a name (or sticker)."""
    out = {}
    for contest in election.style_contests(entry.style_id):
        for w in entry.write_ins:
            if w.contest_id == contest.id and w.option_id in entry.marked.get(contest.id, ()) and w.has_name:
                out[(w.contest_id, w.option_id)] = resolve_write_in(
                    w.name, contest, election, fwab=sheet.fwab, sticker=w.sticker
                )
    return out


def _adjust_for_names(contest: Contest, selected: set[str], entry: Entry, proposals, fwab: bool) -> list[str]:
    """Write-ins that name a candidate printed on the ballot.

    31 KAR 6:030 §2(2)(b) makes a named candidate plus a write-in an overvote
    only for "the name of a different person"; a write-in of the candidate the
    voter also marked is the same person, and §4(2) does not count the
    write-in. So the write-in line is set aside and the mark for the candidate
    stands. On an FWAB (31 KAR 5:011 §2 suspends §4(2)) a written name of a
    candidate on the ballot is a vote for that candidate.
    """
    notes = []
    on_ballot = {c.id: c for c in contest.candidates}
    for w in entry.write_ins:
        if w.contest_id != contest.id or w.option_id not in selected:
            continue
        proposal = proposals.get((w.contest_id, w.option_id))
        if fwab and w.outcome in on_ballot:
            selected.discard(w.option_id)
            selected.add(w.outcome)
            notes.append(
                f"{contest.title}: the name written is {on_ballot[w.outcome].name}, on the ballot; on a "
                f"federal write-in absentee ballot it is a vote for them ({FWAB})"
            )
        elif (
            w.outcome == NOT_COUNTED
            and proposal is not None
            and proposal.clause == ALREADY_ON_BALLOT
            and proposal.candidates
            and proposal.candidates[0] in selected
        ):
            selected.discard(w.option_id)
            name = on_ballot[proposal.candidates[0]].name if proposal.candidates[0] in on_ballot else "a candidate"
            notes.append(
                f"{contest.title}: the write-in names {name}, whom the voter also marked: not 'a different "
                f"person' ({CANDIDATE_PLUS_WRITE_IN}); the write-in is not counted ({ALREADY_ON_BALLOT})"
                " and the mark stands"
            )
    return notes


def decided_votes(
    election: Election, sheet: ReviewSheet, entry: Entry, *, require_outcomes: bool = True
) -> DecidedVotes:
    """The votes an entry amounts to: its marks through `apply_rules`, write-in names folded in.

    Raises
    ------
    DecisionError
        The entry does not fit the ballot, or (with ``require_outcomes``) a
        write-in that counts as a selection has no confirmed outcome.
    """
    check_entry(election, sheet, entry)
    proposals = propose(election, sheet, entry)
    notes: list[str] = []
    marks: dict[str, dict[str, OptionMark]] = {}
    for contest in election.style_contests(entry.style_id):
        selected = set(entry.marked.get(contest.id, ()))
        notes += _adjust_for_names(contest, selected, entry, proposals, sheet.fwab)
        marks[contest.id] = {}
        for option in contest.options:
            machine = machine_mark(sheet, contest.id, option.id)
            reading = entry.reading(contest.id, option.id) if option.kind == "write_in" else None
            marks[contest.id][option.id] = OptionMark(
                scan="marked" if option.id in selected else "unmarked",
                write_in_ink=bool(reading and reading.has_name),
                score=machine.score if machine else None,
            )
    ballot_marks = BallotMarks(sheet.ballot_id, entry.style_id, marks, precinct_id=entry.precinct_id, fwab=sheet.fwab)
    votes = apply_rules(election, ballot_marks)
    write_ins: dict[tuple[str, str], str | None] = {}
    missing = []
    for cv in votes.contests:
        contest = election.contest(cv.contest_id)
        lines = {o.id for o in contest.options if o.kind == "write_in"}
        for s in cv.selections:
            if s not in lines:
                continue
            reading = entry.reading(cv.contest_id, s)
            if reading is None or reading.outcome is None:
                missing.append(f"{contest.title}: confirm whose vote the write-in is, or that it is not counted")
                continue
            write_ins[(cv.contest_id, s)] = None if reading.outcome == NOT_COUNTED else reading.outcome
    if missing and require_outcomes:
        raise DecisionError(missing)
    votes = replace(votes, reasons=(), needs_review=False)
    return DecidedVotes(ballot_marks, votes, write_ins, tuple(notes), proposals)
