"""Recanvass (31 KAR 4:071, KRS 117.305): re-derive the totals from the sheets and compare with what was reported.

31 KAR 4:071 Section 4(1)(a): with a central tabulation system "the recanvass
shall be taken: (a) By clearing the system, such as by setting the tabulation
system to zero and retabulating the votes recorded". Here that is a fresh
tally of the stored sheet records (their votes, with the adjudication
decisions folded in), never the tallies saved on election night; it is then
compared, number by number, with the last unofficial results reported
(`tabulate unofficial` keeps a dated snapshot of each report in the store's
event log).

Section 3(1): "In a general election, the county board of elections shall only
check and tabulate the votes of the candidate requesting a recanvass and each
opposing candidate seeking the same office": ``contests`` narrows the
recanvass to that office. Section 1(3) lists what the SBE 49A report states:
"the machine votes, absentee votes, provisional votes, and total votes for
each candidate" (`tabulate.audit.forms.sbe49a_form`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Mapping

from ..core import VOTE_TYPES
from ..election.model import Election
from ..report.tally import Tally
from ..store.base import Event, Store
from .labels import OVERVOTES, UNDERVOTES
from .margins import RaceMargin, race_margin

#: The event kind of an unofficial-results snapshot in the store's log.
SNAPSHOT_EVENT = "unofficial_snapshot"

Totals = Mapping[str, Mapping[str, Mapping[str, Mapping[str, int]]]]


def totals_of(tally: Tally) -> dict:
    """``{contest: {precinct: {option or (overvotes)/(undervotes): {vote type: n}}}}``, zeros left out."""
    out: dict = {}
    for ct in tally.contests:
        for p, v, c in ct.cells:
            cells = dict(c.votes)
            cells[OVERVOTES], cells[UNDERVOTES] = c.overvotes, c.undervotes
            for option, n in cells.items():
                if n:
                    out.setdefault(ct.contest.id, {}).setdefault(p, {}).setdefault(option, {})[v] = n
    return out


def record_snapshot(store: Store, tally: Tally, *, actor: str | None = None, report: str = "unofficial") -> Event:
    """Keep what an unofficial report said, dated, in the store's append-only event log."""
    # The real time, even under SOURCE_DATE_EPOCH: the snapshot dates what was reported, when.
    taken = datetime.now(timezone.utc)
    return store.log(
        SNAPSHOT_EVENT,
        actor=actor,
        data={
            "taken_at": taken.isoformat(timespec="seconds"),
            "report": report,
            "election": tally.election.hash,
            "totals": totals_of(tally),
        },
    )


def last_snapshot(store: Store) -> Event | None:
    """The most recent unofficial-results snapshot, or None if `tabulate unofficial` never ran on this store."""
    last = None
    for event in store.events():
        if event.kind == SNAPSHOT_EVENT:
            last = event
    return last


@dataclass(frozen=True)
class Difference:
    """One number that the recanvass found different from the report."""

    contest_id: str
    precinct_id: str
    option_id: str
    vote_type: str
    reported: int
    recanvassed: int

    @property
    def change(self) -> int:
        return self.recanvassed - self.reported


@dataclass(frozen=True)
class RecanvassedContest:
    """One office: its recanvassed totals, every difference from the report, and its margin."""

    contest_id: str
    precincts: tuple[str, ...]
    totals: Mapping[str, Mapping[str, Mapping[str, int]]]
    differences: tuple[Difference, ...]
    margin: RaceMargin | None

    def total(self, option_id: str, vote_types: Iterable[str] = VOTE_TYPES) -> int:
        types = tuple(vote_types)
        return sum(
            n for p in self.precincts for v, n in self.totals.get(p, {}).get(option_id, {}).items() if v in types
        )


@dataclass(frozen=True)
class Recanvass:
    election: Election
    snapshot_at: str
    contests: tuple[RecanvassedContest, ...]

    @property
    def differences(self) -> tuple[Difference, ...]:
        return tuple(d for c in self.contests for d in c.differences)


def _differences(contest_id: str, precincts: Iterable[str], now: Mapping, reported: Mapping) -> list[Difference]:
    out = []
    for p in precincts:
        a, b = reported.get(p, {}), now.get(p, {})
        for option in sorted(set(a) | set(b)):
            for v in VOTE_TYPES:
                old, new = int(a.get(option, {}).get(v, 0)), int(b.get(option, {}).get(v, 0))
                if old != new:
                    out.append(Difference(contest_id, p, option, v, old, new))
    return out


def recanvass(
    tally: Tally, snapshot: Event, *, contests: Iterable[str] | None = None, precincts: Iterable[str] | None = None
) -> Recanvass:
    """Compare a fresh tally of the sheets with the snapshot of the last unofficial report.

    Parameters
    ----------
    tally
        A tally of the stored sheet records made now (`tabulate.report.tally_records`).
    snapshot
        The `SNAPSHOT_EVENT` to compare with (`last_snapshot`).
    contests, precincts
        Only these offices (4:071 Section 3) and precincts; default all.
    """
    election = tally.election
    wanted = list(contests) if contests else [c.id for c in election.contests]
    only = set(precincts) if precincts else None
    now, reported = totals_of(tally), snapshot.data.get("totals", {})
    out = []
    for cid in wanted:
        ct = tally.contest(cid)
        ps = tuple(p for p in ct.precinct_ids if only is None or p in only)
        diffs = _differences(cid, ps, now.get(cid, {}), reported.get(cid, {}))
        # The margin is the office's, county-wide, whatever precincts are recanvassed.
        out.append(RecanvassedContest(cid, ps, now.get(cid, {}), tuple(diffs), race_margin(ct.contest, ct.counts())))
    return Recanvass(election, str(snapshot.data.get("taken_at") or snapshot.at), tuple(out))
