"""A small store with a review queue in it: one ballot for each kind of question a team decides.

Used by the tests, the screenshots in docs/adjudication.md, and ``tabulate
review sample`` for trying the review app without scanning anything. The
ballots are drawn with the simulator's pens (`tabulate.ballots.marks`) on the
sample election's real layout; their readings (marks, scores, the page
transform) are written as the reader would write them, so the review pages
show exactly what they show for scanned ballots. Everything is seeded.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..ballots import Pen, draw_mark
from ..ballots.handwriting import handwriting_strokes
from ..ballots.marks import draw_strokes
from ..election import Election, load_election
from ..election.layout import layout_style
from ..election.render import png_bytes, render_page
from ..rules import BallotMarks, OptionMark, apply_rules, marks_to_dict
from ..store import PageImage, SheetOutcome, SheetReason, open_store, sheet_identity
from ..store.base import Store

SAMPLE_ELECTION = Path(__file__).resolve().parents[2] / "samples" / "general" / "election.json"

#: Nominal fill scores written for each drawn mark kind (the reader's would be close).
_SCORES = {
    "full_fill": 0.86,
    "partial_fill": 0.58,
    "light_pencil": 0.14,
    "dot": 0.09,
    "beside_name": 0.01,
    "x_mark": 0.21,
    "none": 0.0,
}
_SCAN = {
    "full_fill": "marked",
    "partial_fill": "marked",
    "light_pencil": "marginal",
    "dot": "marginal",
    "beside_name": "unmarked",
    "x_mark": "marginal",
    "none": "unmarked",
}
_HAND = {
    "beside_name": ("marked", ["6:030 s3(1)(e) mark beside the name"]),
    "x_mark": ("marked", ["6:030 s3(1)(e) mark in the target"]),
}


@dataclass(frozen=True)
class SampleBallot:
    """One scripted ballot: ``marks`` maps (contest, option) to a mark kind; ``names`` write-in text."""

    label: str
    marks: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)
    style_id: str = "1"
    precinct_id: str = "A101"
    rejected: str | None = None


#: The scripted ballots, in the order they are fed (the queue reorders them).
SCRIPT: tuple[SampleBallot, ...] = (
    SampleBallot(
        "marginal mark", {("us-senate", "sen-brennan"): "light_pencil", ("president", "pres-okafor"): "full_fill"}
    ),
    SampleBallot(
        "write-in",
        {("president", "write-in-1"): "full_fill", ("us-senate", "sen-caldwell"): "full_fill"},
        {("president", "write-in-1"): "Al Monroe"},
    ),
    SampleBallot(
        "overvote",
        {
            ("us-house-6", "house-barr"): "full_fill",
            ("us-house-6", "house-king"): "full_fill",
            ("president", "pres-hale"): "full_fill",
        },
    ),
    SampleBallot(
        "name, no mark", {("president", "pres-lindqvist"): "full_fill"}, {("us-senate", "write-in-1"): "Jenna Foster"}
    ),
    SampleBallot(
        "mark beside the name",
        {("state-senate-7", "ss-adeyemi"): "beside_name", ("president", "pres-hale"): "full_fill"},
    ),
    SampleBallot(
        "write-in of a printed name",
        {("president", "pres-hale"): "full_fill", ("president", "write-in-1"): "full_fill"},
        {("president", "write-in-1"): "Hale"},
    ),
    SampleBallot("damaged", {("president", "pres-okafor"): "full_fill"}, rejected="style_code_unreadable"),
)


def _pen(kind: str) -> Pen:
    return Pen("pen", 35.0, 0.016) if kind != "light_pencil" else Pen("pencil", 150.0, 0.02, grain=0.5)


@lru_cache(maxsize=32)
def _blank(election: Election, style_id: str, precinct_id: str, page: int, dpi: int) -> np.ndarray:
    return render_page(election, layout_style(election, style_id).pages[page - 1], precinct_id, dpi=dpi)


def _draw(election: Election, ballot: SampleBallot, dpi: int, rng: np.random.Generator) -> list[np.ndarray]:
    layout = layout_style(election, ballot.style_id)
    pages = [_blank(election, ballot.style_id, ballot.precinct_id, p.page, dpi).copy() for p in layout.pages]
    where = {(t.contest_id, t.option_id): (n, t) for n, p in enumerate(layout.pages) for t in p.targets}
    # A script names the sample election's contests; on another election, marks it cannot place are left out.
    for key, kind in ballot.marks.items():
        if key not in where:
            continue
        n, target = where[key]
        draw_mark(pages[n], kind, target, dpi=dpi, pen=_pen(kind), rng=rng)
    for key, text in ballot.names.items():
        if key not in where:
            continue
        n, target = where[key]
        strokes, _ = handwriting_strokes(text, target.write_in_area, rng, hand="futural")
        draw_strokes(pages[n], strokes, dpi=dpi, pen=Pen("pen", 40.0, 0.012), rng=rng)
    for page in pages:  # scanner speckle: no two scans of paper are byte-identical
        rows = rng.integers(0, page.shape[0], 40)
        cols = rng.integers(0, page.shape[1], 40)
        page[rows, cols] = np.minimum(page[rows, cols], 235)
    if ballot.rejected:  # a torn, stained corner over the style code
        h, w = pages[0].shape
        pages[0][int(h * 0.86) :, int(w * 0.70) :] = 90
    return pages


def _marks(election: Election, ballot: SampleBallot, ballot_id: str) -> BallotMarks:
    marks: dict[str, dict[str, OptionMark]] = {}
    for contest in election.style_contests(ballot.style_id):
        for option in contest.options:
            kind = ballot.marks.get((contest.id, option.id), "none")
            hand, _ = _HAND.get(kind, (None, []))
            ink = (contest.id, option.id) in ballot.names
            marks.setdefault(contest.id, {})[option.id] = OptionMark(
                _SCAN[kind], hand, ink, _SCORES[kind] + (0.0 if kind != "none" else 0.004 * (len(option.id) % 3))
            )
    return BallotMarks(ballot_id, ballot.style_id, marks, precinct_id=ballot.precinct_id)


def _evidence(election: Election, ballot: SampleBallot, digests: list[str], dpi: int, marks: BallotMarks) -> dict:
    layout = layout_style(election, ballot.style_id)
    pages = []
    for n, (page, digest) in enumerate(zip(layout.pages, digests), 1):
        targets = []
        for t in page.targets:
            m = marks.marks[t.contest_id][t.option_id]
            kind = ballot.marks.get((t.contest_id, t.option_id), "none")
            targets.append(
                {
                    "contest_id": t.contest_id,
                    "option_id": t.option_id,
                    "kind": t.kind,
                    "score": m.score,
                    "scan": m.scan,
                    "hand": m.hand or m.scan,
                    "hand_clauses": _HAND.get(kind, (None, []))[1],
                    "features": {},
                }
            )
        pages.append(
            {
                "source": f"page{n}",
                "index": 0,
                "digest": digest,
                "ok": True,
                "style_code": {"style_id": ballot.style_id, "precinct_id": ballot.precinct_id, "page": n},
                "dpi": float(dpi),
                "transform": [float(dpi), 0.0, 0.0, 0.0, float(dpi), 0.0],
                "targets": targets,
            }
        )
    return {"ballot_id": "", "ok": True, "style_id": ballot.style_id, "precinct_id": ballot.precinct_id, "pages": pages}


def _clean(election: Election, rng: np.random.Generator, k: int) -> SampleBallot:
    style = election.ballot_styles[k % len(election.ballot_styles)]
    marks = {}
    for cid in style.contests:
        contest = election.contest(cid)
        options = [o for o in contest.options if o.kind != "write_in"]
        for o in rng.choice(len(options), size=min(contest.vote_for, len(options)), replace=False):
            marks[(cid, options[int(o)].id)] = "full_fill"
    return SampleBallot(f"clean {k + 1}", marks, style_id=style.id, precinct_id=style.precincts[0])


def sample_outcomes(
    election: Election,
    images_dir: Path,
    *,
    clean: int = 4,
    dpi: int = 100,
    seed: int = 2028,
    script: tuple[SampleBallot, ...] = SCRIPT,
    batch: str = "sample",
    read: bool = False,
) -> list[SheetOutcome]:
    """Draw the scripted ballots (then ``clean`` ballots no one need see), write their PNGs, read them.

    With ``read`` the real reader (`tabulate.central.interpret_sheet`) reads
    each sheet, as ``tabulate scan`` would; otherwise the readings are written
    from the script (fast, and exactly as scripted).
    """
    rng = np.random.default_rng(seed)
    ballots = list(script) + [_clean(election, rng, k) for k in range(clean)]
    images_dir.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for position, ballot in enumerate(ballots, 1):
        pngs = [png_bytes(p, dpi) for p in _draw(election, ballot, dpi, rng)]
        digests = [hashlib.sha256(data).hexdigest() for data in pngs]
        images = []
        for n, data in enumerate(pngs, 1):
            path = images_dir / f"{batch}-{position:03d}-{n}.png"
            path.write_bytes(data)
            images.append(PageImage(str(path), digests[n - 1]))
        identity = sheet_identity(digests)
        if read:
            from ..central import interpret_sheet

            r = interpret_sheet(election, pngs)
            outcomes.append(
                SheetOutcome(
                    position,
                    identity,
                    tuple(images),
                    r.status,
                    reasons=r.reasons,
                    style_id=r.style_id,
                    precinct_id=r.precinct_id,
                    evidence=r.evidence,
                    marks=r.marks,
                    votes=r.votes,
                )
            )
            continue
        if ballot.rejected:
            outcomes.append(
                SheetOutcome(
                    position,
                    identity,
                    tuple(images),
                    "rejected",
                    reasons=(SheetReason(ballot.rejected, "the style code (QR symbol) could not be read"),),
                )
            )
            continue
        marks = _marks(election, ballot, f"{batch}-{position:05d}")
        votes = apply_rules(election, marks)
        reasons = tuple(SheetReason(r.code, r.detail, r.contest_id, r.option_id) for r in votes.reasons)
        outcomes.append(
            SheetOutcome(
                position,
                identity,
                tuple(images),
                "needs_review" if votes.needs_review else "counted",
                reasons=reasons,
                style_id=ballot.style_id,
                precinct_id=ballot.precinct_id,
                evidence=json.dumps(_evidence(election, ballot, digests, dpi, marks)),
                marks=json.dumps(marks_to_dict(marks)),
                votes=votes,
            )
        )
    return outcomes


def build_sample_store(
    db: str | Path,
    images_dir: str | Path,
    *,
    election_path: str | Path = SAMPLE_ELECTION,
    clean: int = 4,
    dpi: int = 100,
    seed: int = 2028,
    batch: str = "sample",
    script: tuple[SampleBallot, ...] = SCRIPT,
    read: bool = False,
) -> Store:
    """Create (or extend) a store holding the scripted ballots in one batch; return it open."""
    election = load_election(election_path)
    document = json.loads(Path(election_path).read_text(encoding="utf-8"))
    store = open_store(db)
    store.bind_election(election, document)
    b = store.open_batch(batch, "election_day", operator="sample")
    store.record_sheets(
        b.id,
        sample_outcomes(
            election, Path(images_dir), clean=clean, dpi=dpi, seed=seed, script=script, batch=batch, read=read
        ),
    )
    store.close_batch(b.id)
    return store
