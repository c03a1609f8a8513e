"""Synthetic ballot records for tests, benchmarks and demos of the reports (no images, no rules).

`synthetic_records` invents a plausible, internally consistent set of
`BallotRecord` for an election: marks that agree with the votes, overvotes,
blank contests, straight-party marks, write-ins awaiting or resolved,
adjudicated sheets and sheets still awaiting review. Seeded, so a test can
rely on it.
"""

from __future__ import annotations

import hashlib
import random

from ..core.marks import BallotMarks, OptionMark
from ..core.records import BallotRecord
from ..core.votes import BallotVotes, ContestVotes
from ..election.model import STRAIGHT_PARTY_CONTEST_ID, VOTE_TYPES, Contest, Election


def _contest_votes(rng: random.Random, contest: Contest) -> tuple[ContestVotes, dict[str, OptionMark]]:
    ids = [o.id for o in contest.options]
    roll = rng.random()
    if roll < 0.06 and len(ids) > contest.vote_for:  # overvote: more marks than vote_for, no option credited
        marked = rng.sample(ids, contest.vote_for + 1)
        cv = ContestVotes(contest.id, "overvote", (), contest.vote_for, 0)
    elif roll < 0.14:  # left blank
        marked = []
        cv = ContestVotes(contest.id, "blank", (), 0, contest.vote_for)
    else:
        k = rng.randint(1, contest.vote_for)
        # Weighted toward the first options so that contests have winners.
        weights = [1.0 / (i + 1) for i in range(len(ids))]
        marked = []
        while len(marked) < k:
            pick = rng.choices(ids, weights)[0]
            if pick not in marked:
                marked.append(pick)
        marked = [i for i in ids if i in marked]
        status = (
            "write_in_pending"
            if any(i.startswith("write-in") for i in marked)
            else ("valid" if k == contest.vote_for else "undervote")
        )
        cv = ContestVotes(contest.id, status, tuple(marked), 0, contest.vote_for - k)
    marks = {}
    for i in ids:
        if i in marked:
            marks[i] = OptionMark(
                "marked", score=round(rng.uniform(0.3, 0.95), 4), write_in_ink=i.startswith("write-in")
            )
        elif rng.random() < 0.03:
            marks[i] = OptionMark("marginal", score=round(rng.uniform(0.07, 0.25), 4))
        else:
            marks[i] = OptionMark("unmarked", score=round(rng.uniform(0.0, 0.05), 4))
    return cv, marks


def synthetic_record(
    rng: random.Random,
    election: Election,
    ballot_id: str,
    *,
    batch: str,
    position: int,
    vote_type: str,
    style_id: str | None = None,
    precinct_id: str | None = None,
) -> BallotRecord:
    """One invented sheet of the election (a random style and precinct unless given)."""
    style = election.style(style_id) if style_id else rng.choice(election.ballot_styles)
    precinct = precinct_id or rng.choice(style.precincts)
    contests, marks, write_ins = [], {}, {}
    for cid in style.contests:
        contest = election.contest(cid)
        cv, m = _contest_votes(rng, contest)
        contests.append(cv)
        marks[cid] = m
        for s in cv.selections:
            if s.startswith("write-in") and rng.random() < 0.7:
                choices = [w.id for w in contest.declared_write_ins] + [None]
                write_ins[(cid, s)] = rng.choice(choices)
    if election.straight_party:
        parties = [c.id for c in election.straight_party_contest.candidates]
        marks[STRAIGHT_PARTY_CONTEST_ID] = {p: OptionMark("unmarked", score=0.01) for p in parties}
    blank = all(not cv.selections and not cv.overvotes for cv in contests)
    interpreted = BallotVotes(ballot_id, style.id, tuple(contests), precinct, blank=blank, needs_review=bool(write_ins))
    modified = None
    status = "counted"
    if rng.random() < 0.05:
        status = "needs_review"
        write_ins = {}
    elif rng.random() < 0.05:
        modified = BallotVotes(ballot_id, style.id, tuple(contests), precinct, blank=blank)
    digest = lambda page: hashlib.sha256(f"{ballot_id}-{page}".encode()).hexdigest()
    return BallotRecord(
        ballot_id=ballot_id,
        batch=batch,
        position=position,
        vote_type=vote_type,
        precinct_id=precinct,
        style_id=style.id,
        marks=BallotMarks(ballot_id, style.id, marks, precinct),
        interpreted=interpreted,
        modified=modified,
        images=((f"{ballot_id}-1.png", digest(1)), (f"{ballot_id}-2.png", digest(2))),
        write_ins=write_ins,
        status=status,
    )


def synthetic_records(election: Election, n: int, *, seed: int = 0, batch_size: int = 50) -> list[BallotRecord]:
    """``n`` invented sheets, in batches of ``batch_size`` sheets of one vote type each."""
    rng = random.Random(seed)
    records = []
    batch_no = 0
    while len(records) < n:
        batch_no += 1
        vote_type = rng.choices(VOTE_TYPES, (3, 2, 3, 10, 1))[0]
        batch = f"{vote_type}-{batch_no:03d}"
        for pos in range(1, min(batch_size, n - len(records)) + 1):
            records.append(
                synthetic_record(
                    rng, election, f"b{len(records) + 1:06d}", batch=batch, position=pos, vote_type=vote_type
                )
            )
    return records


def make_record(
    election: Election,
    ballot_id: str,
    choices: dict,
    *,
    style_id: str,
    precinct_id: str,
    vote_type: str = "election_day",
    batch: str = "batch-1",
    position: int = 1,
    write_ins: dict | None = None,
    status: str = "counted",
    modified: dict | None = None,
    straight_party: str | None = None,
    images: tuple = (),
    tabulator: str = "1",
) -> BallotRecord:
    """A record whose votes are spelled out: ``choices[contest_id]`` is a tuple of option ids or ``"overvote"``.

    Contests of the style missing from ``choices`` are blank. Marks agree with
    the votes (an overvote marks the first ``vote_for + 1`` options). With
    ``modified``, people's decision replaces the contests it names.
    """
    style = election.style(style_id)

    def votes(spec: dict) -> tuple[BallotVotes, dict]:
        contests, marks = [], {}
        for cid in style.contests:
            contest = election.contest(cid)
            want = spec.get(cid, ())
            ids = [o.id for o in contest.options]
            if want == "overvote":
                marked = ids[: contest.vote_for + 1]
                cv = ContestVotes(cid, "overvote", (), contest.vote_for, 0)
            else:
                marked = list(want)
                status_ = (
                    "blank"
                    if not marked
                    else "write_in_pending"
                    if any(m.startswith("write-in") for m in marked)
                    else "valid"
                    if len(marked) == contest.vote_for
                    else "undervote"
                )
                cv = ContestVotes(cid, status_, tuple(marked), 0, contest.vote_for - len(marked))
            contests.append(cv)
            marks[cid] = {
                i: OptionMark(
                    "marked" if i in marked else "unmarked",
                    score=0.6 if i in marked else 0.01,
                    write_in_ink=i in marked and i.startswith("write-in"),
                )
                for i in ids
            }
        if election.straight_party:
            marks[STRAIGHT_PARTY_CONTEST_ID] = {
                p.id: OptionMark(
                    "marked" if p.id == straight_party else "unmarked", score=0.5 if p.id == straight_party else 0.0
                )
                for p in election.straight_party_contest.options
            }
        blank = all(not c.selections and not c.overvotes for c in contests)
        return BallotVotes(
            ballot_id, style_id, tuple(contests), precinct_id, straight_party=straight_party, blank=blank
        ), marks

    interpreted, marks = votes(choices)
    decided = votes({**choices, **modified})[0] if modified is not None else None
    return BallotRecord(
        ballot_id=ballot_id,
        batch=batch,
        position=position,
        vote_type=vote_type,
        precinct_id=precinct_id,
        style_id=style_id,
        marks=BallotMarks(ballot_id, style_id, marks, precinct_id),
        interpreted=interpreted,
        modified=decided,
        images=tuple(images),
        write_ins=dict(write_ins or {}),
        status=status,
        tabulator=tabulator,
    )
