"""The recount of one race (31 KAR 4:220 Sections 9-10, KRS 120.157): re-read, set aside, test, let the board decide.

Section 9(2): "Scanned ballots shall be counted by the electronic voting
equipment in accordance with 31 KAR 6:030, Section 2(1), and the cumulative
totals for each slate of candidates shall be recorded on the Form SBE 82".
Here every stored sheet of the race is read again from its stored images with
today's reader (`reread`), per tabulator.

Section 9(3): "If a ballot does not scan through the piece of voting equipment
on the first attempt, each member of the associated recount team shall attempt
to scan the ballot one (1) additional time each. If, after three (3)
unsuccessful attempts, a ballot does not scan, it shall be set aside for later
adjudication." Section 9(4): the set-aside ballots are "(a) An overvote ...
(b) An undervote ... or (c) A damaged ballot". A sheet that reads but
overvotes the race is set aside as an overvote (it cannot be counted by the
equipment); one that does not read after three attempts is set aside as
damaged, the board's visual inspection being the only thing that can say more.

Section 9(11)(b), for a KRS 120.157 recount: if the machine margin of victory
is "0.25% or less", the overvotes and damaged ballots are totalled, and "If
the cumulative number of overvotes and damaged ballots is large enough to
overcome the machine-established margin of victory", the board counts them.
We read "large enough to overcome" as at least the margin: a set-aside count
equal to the margin could tie the race, which changes its outcome too.
Section 9(12)(a): "Each adjudicated ballot, shall, by majority vote of the
county board of elections, result in a vote for either" a candidate or slate,
a write-in, or no one; 9(12)(b): "The adjudication of each ballot shall be
recorded onto the Form SBE 82".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence

from ..central.interpret import Interpretation
from ..central.pages import PageLoadError, load_page
from ..central.sources import PageSource
from ..election.model import PAPER_SIZES_IN, Contest, Election
from ..report.tally import ContestCounts, WriteInCounts
from ..store.base import StoredSheet
from .margins import RaceMargin, race_margin

Reader = Callable[[Election, Sequence[bytes]], Interpretation]
#: Section 9(3): the first attempt and one more by each member of the team.
ATTEMPTS = 3
OVERVOTE, UNDERVOTE, DAMAGED = "overvote", "undervote", "damaged"


@dataclass(frozen=True)
class BoardDecision:
    """The county board's majority decision on one set-aside ballot (Section 9(12))."""

    sheet_id: int
    selections: tuple[str, ...]
    members: tuple[str, ...]
    decided_at: str
    decision_id: int | None = None


@dataclass(frozen=True)
class RecountBallot:
    """One sheet of the race in the recount: what the machine did with it, and what the board decided."""

    sheet_id: int
    label: str
    tabulator: str
    precinct_id: str | None
    attempts: int
    selections: tuple[str, ...] = ()
    undervotes: int = 0
    set_aside: str | None = None
    why: str = ""
    board: BoardDecision | None = None
    #: The original count's selections on this ballot; None where the original did not count it.
    original: tuple[str, ...] | None = None
    #: The sheet's status in the store (``counted``, ``needs_review``, ``rejected``).
    stored_status: str = ""

    @property
    def final(self) -> tuple[str, ...]:
        """The selections the recount credits: the machine's, or for a set-aside ballot the board's."""
        if self.set_aside is None:
            return self.selections
        return self.board.selections if self.board is not None else ()


def _page_source(label: str) -> PageSource:
    path, _, page = label.rpartition("#")
    return PageSource(path, int(page)) if path and page.isdigit() else PageSource(label)


def reread(
    election: Election, sheet: StoredSheet, reader: Reader, *, attempts: int = ATTEMPTS
) -> tuple[Interpretation | None, int, str]:
    """Read a stored sheet's images again, up to ``attempts`` times (Section 9(3)).

    Returns the interpretation (None if no attempt read it), the attempts
    made, and why the last attempt failed.
    """
    paper = PAPER_SIZES_IN[election.paper_size]
    why = ""
    for n in range(1, attempts + 1):
        try:
            pages = [load_page(_page_source(p.source), paper)[0] for p in sheet.pages]
        except PageLoadError as e:
            why = f"{e.code}: {e.detail}"
            continue
        if len(pages) < 2:
            why = "one page only: the sheet's other side is missing"
            continue
        result = reader(election, pages)
        if result.status != "rejected" and result.votes is not None:
            return result, n, ""
        why = "; ".join(f"{r.code}: {r.detail}" if r.detail else r.code for r in result.reasons) or "not read"
    return None, attempts, why


def _holds(election: Election, sheet: StoredSheet, contest_id: str) -> bool:
    """Whether a sheet may carry the race: its style does, or (unread) its precinct votes on it."""
    if sheet.style_id:
        try:
            return contest_id in election.style(sheet.style_id).contests
        except KeyError:
            return True
    precinct = sheet.precinct_id or sheet.batch.precinct_id
    if precinct is None:
        return True
    return any(contest_id in s.contests and precinct in s.precincts for s in election.ballot_styles)


def _reread_task(args) -> tuple[Interpretation | None, int, str]:
    election, sheet, reader, attempts = args
    return reread(election, sheet, reader, attempts=attempts)


def _rereads(
    election: Election,
    sheets: list[StoredSheet],
    reader: Reader,
    attempts: int,
    workers: int,
    readers: Mapping[int, Reader],
):
    """Each sheet's `reread`, in order; on ``workers`` processes when more than one."""
    jobs = [(election, s, readers.get(s.id, reader), attempts) for s in sheets]
    if workers <= 1 or len(jobs) < 2:
        return [_reread_task(j) for j in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # forkserver (or spawn): never fork a parent that holds an open SQLite store.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method)) as pool:
        return list(pool.map(_reread_task, jobs, chunksize=max(1, len(jobs) // (8 * workers))))


def recount_sheets(
    election: Election,
    contest_id: str,
    sheets: Iterable[StoredSheet],
    reader: Reader,
    *,
    tabulator: str | None = None,
    original: Mapping[int, tuple[str, ...]] | None = None,
    attempts: int = ATTEMPTS,
    workers: int = 1,
    readers: Mapping[int, Reader] | None = None,
) -> list[RecountBallot]:
    """The machine part of the recount: every sheet of the race re-read, counted or set aside.

    Duplicates are left out (they are the same paper as a sheet already
    here); everything else the store holds for the race is accounted for.
    ``reader`` must be picklable (a module-level function) when ``workers > 1``. ``readers`` gives
    a sheet (by id) another one: the template set it was scanned with (`tabulate.central.recorded`).
    """
    election.contest(contest_id)  # KeyError for a race the election does not have
    original = original or {}
    chosen = [
        s
        for s in sheets
        if s.status != "duplicate"
        and (tabulator is None or s.batch.tabulator == tabulator)
        and _holds(election, s, contest_id)
    ]
    out = []
    for s, (result, n, why) in zip(chosen, _rereads(election, chosen, reader, attempts, workers, readers or {})):
        base = dict(
            sheet_id=s.id,
            label=s.label,
            tabulator=s.batch.tabulator,
            precinct_id=s.precinct_id or s.batch.precinct_id,
            attempts=n,
            original=original.get(s.id),
            stored_status=s.status,
        )
        if result is None:
            out.append(RecountBallot(**base, set_aside=DAMAGED, why=f"did not read in {n} attempts ({why})"))
            continue
        try:
            cv = result.votes.contest(contest_id)
        except KeyError:
            continue  # read as a style without the race
        if cv.status == "overvote":
            out.append(RecountBallot(**base, set_aside=OVERVOTE, why="more selections than allowed in the race"))
        else:
            out.append(RecountBallot(**base, selections=cv.selections, undervotes=cv.undervotes))
    return out


@dataclass(frozen=True)
class TabulatorCount:
    """One tabulator's SBE 82 numbers: cumulative totals, undervotes, overvotes, damaged ballots."""

    tabulator: str
    ballots: tuple[RecountBallot, ...]
    totals: tuple[tuple[str, int], ...]
    undervotes: int
    overvotes: int
    damaged: int


def tabulator_count(
    contest: Contest, tabulator: str, ballots: Sequence[RecountBallot], *, with_board: bool
) -> TabulatorCount:
    votes = Counter()
    for b in ballots:
        votes.update(b.final if with_board else (b.selections if b.set_aside is None else ()))
    under = sum(b.undervotes for b in ballots if b.set_aside is None)
    return TabulatorCount(
        tabulator,
        tuple(ballots),
        tuple((o.id, votes.get(o.id, 0)) for o in contest.options),
        under,
        sum(b.set_aside == OVERVOTE for b in ballots),
        sum(b.set_aside == DAMAGED for b in ballots),
    )


def _counts(contest: Contest, counts: Iterable[TabulatorCount]) -> ContestCounts:
    totals = Counter()
    for t in counts:
        totals.update(dict(t.totals))
    return ContestCounts(0, 0, 0, 0, tuple((o.id, totals.get(o.id, 0)) for o in contest.options), WriteInCounts())


@dataclass(frozen=True)
class Change:
    """A ballot whose result in the race is not what the original count gave it, and why."""

    ballot: RecountBallot
    before: tuple[str, ...] | None
    after: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class RecountResult:
    """The whole recount of a race: per tabulator, the §9(11) test, the board's decisions, the comparison."""

    election: Election
    contest: Contest
    machine: tuple[TabulatorCount, ...]
    final: tuple[TabulatorCount, ...]
    machine_margin: RaceMargin
    final_margin: RaceMargin
    original_margin: RaceMargin | None
    changes: tuple[Change, ...] = field(default=())

    @property
    def set_aside(self) -> tuple[RecountBallot, ...]:
        return tuple(b for t in self.machine for b in t.ballots if b.set_aside is not None)

    @property
    def overvotes_and_damaged(self) -> int:
        return sum(t.overvotes + t.damaged for t in self.machine)

    @property
    def margin_test(self) -> bool:
        """Section 9(11)(b): the machine margin of victory is 0.25 % or less."""
        return self.machine_margin.board_count_test

    @property
    def board_needed(self) -> bool:
        """Section 9(11)(b)-(12): the overvotes and damaged ballots could overcome the machine margin."""
        m = self.machine_margin.margin
        return self.margin_test and m is not None and self.overvotes_and_damaged >= m

    @property
    def awaiting_board(self) -> tuple[RecountBallot, ...]:
        if not self.board_needed:
            return ()
        return tuple(b for b in self.set_aside if b.set_aside in (OVERVOTE, DAMAGED) and b.board is None)

    @property
    def complete(self) -> bool:
        return not self.awaiting_board

    @property
    def result_margin(self) -> RaceMargin:
        """The recount's result: the machine count, plus the board's decisions when the board counts."""
        return self.final_margin


def _change_reason(b: RecountBallot, board_counts: bool) -> str:
    if b.set_aside is not None and board_counts and b.board is not None:
        return f"set aside as {b.set_aside} ({b.why}); the board decided by majority ({', '.join(b.board.members)})"
    if b.set_aside is not None:
        return f"set aside as {b.set_aside} ({b.why})" + (
            "; not counted: the board did not need to meet (Section 9(11)(b))"
            if not board_counts
            else "; awaiting the board"
        )
    if b.original is None:
        was = {"rejected": "the scanner had set it aside", "needs_review": "it still awaited review"}
        return f"not in the original count ({was.get(b.stored_status, b.stored_status)}); today's reader counts it"
    return "today's reader reads the marks differently from the original count"


def compare(ballots: Sequence[RecountBallot], *, board_counts: bool) -> tuple[Change, ...]:
    """Every ballot whose credited selections in the race differ from the original count's."""
    out = []
    for b in ballots:
        after = b.final if board_counts else (b.selections if b.set_aside is None else ())
        before = b.original
        if tuple(sorted(before or ())) != tuple(sorted(after)):
            out.append(Change(b, before, after, _change_reason(b, board_counts)))
    return tuple(out)


def recount_result(
    election: Election,
    contest_id: str,
    ballots: Sequence[RecountBallot],
    *,
    decisions: Mapping[int, BoardDecision] | None = None,
) -> RecountResult:
    """Put the recount together: per tabulator (SBE 82), the §9(11) test, the board's decisions, the changes.

    The board's decisions count only when Section 9(11)(b) calls the board
    (`RecountResult.board_needed`); otherwise the recount ends at the machine
    count. The original count is the sum of the ballots' ``original`` selections.
    """
    contest = election.contest(contest_id)
    decisions = decisions or {}
    ballots = [b if b.set_aside is None else _with_board(b, decisions.get(b.sheet_id)) for b in ballots]
    tabs = sorted({b.tabulator for b in ballots})

    def per_tabulator(with_board: bool) -> tuple[TabulatorCount, ...]:
        return tuple(
            tabulator_count(contest, t, [b for b in ballots if b.tabulator == t], with_board=with_board) for t in tabs
        )

    machine = per_tabulator(False)
    machine_margin = race_margin(contest, _counts(contest, machine))
    if machine_margin is None:
        raise ValueError(f"{contest_id} is a question: a recount under 31 KAR 4:220 is of a race between candidates")
    before = Counter(o for b in ballots for o in (b.original or ()))
    original = race_margin(
        contest, ContestCounts(0, 0, 0, 0, tuple((o.id, before.get(o.id, 0)) for o in contest.options), WriteInCounts())
    )
    probe = RecountResult(election, contest, machine, machine, machine_margin, machine_margin, original)
    if not probe.board_needed:
        return replace(probe, changes=compare(ballots, board_counts=False))
    final = per_tabulator(True)
    final_margin = race_margin(contest, _counts(contest, final))
    return RecountResult(
        election, contest, machine, final, machine_margin, final_margin, original, compare(ballots, board_counts=True)
    )


def _with_board(b: RecountBallot, decision: BoardDecision | None) -> RecountBallot:
    return b if decision is None else replace(b, board=decision)
