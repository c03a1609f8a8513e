"""The fill-score picture of the progress page: `tabulate scores`'s histogram, per layout read with.

Issue #11, item 6: before trusting a new ballot design, a clerk looks at the
gap between blank targets (scores near 0) and marks (near 1), with the
marginal and definite thresholds drawn; every target between them goes to a
person. Sheets read with a template set are drawn with that set's thresholds
(the store's journal records the set, `tabulate.templates.recorded`); our own
ballots with the election's. Each picture has a table of the same numbers,
for a screen reader and for anyone who cannot read a log-scale histogram.

Reading every sheet's evidence is the cost, so the scores read are kept and
only sheets recorded since are read (a recorded reading never changes; a
decision changes no fill score).
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass, field

from ..report.scores import ScoreRow, histogram_png, score_rows, scores_by_reader
from .source import StoreSource

BY = ("template", "contest")


@dataclass(frozen=True)
class ScorePicture:
    """One histogram: the sheets read one way (``key``: a template set's digest prefix, or "ours")."""

    key: str
    label: str
    marginal: float
    definite: float
    groups: dict[str, list[float]]
    rows: tuple[ScoreRow, ...]

    @property
    def targets(self) -> int:
        return sum(r.targets for r in self.rows)

    @property
    def between(self) -> int:
        return sum(r.between for r in self.rows)

    def alt(self) -> str:
        """The picture in one sentence (its ``alt`` text); the table beside it has every group."""
        below = sum(r.below_marginal for r in self.rows)
        definite = sum(r.definite for r in self.rows)
        return (
            f"Histogram of {self.targets} fill scores, {self.label}, in {len(self.rows)} groups: {below} below the "
            f"marginal threshold {self.marginal:.3f}, {self.between} between the thresholds (a person looks), "
            f"{definite} at or above the definite threshold {self.definite:.3f}."
        )

    def png(self) -> bytes:
        return histogram_png(self.groups, self.marginal, self.definite, title=self._title())

    def _title(self) -> str:
        return f"{self.label}: {self.targets} targets; {self.between} between the thresholds go to a person"


@dataclass
class _Tally:
    """Every score read so far, per reader and group; a recorded sheet's evidence never changes, so
    only sheets not seen yet are read (a progress page during a 40,000-sheet scan reads the new ones)."""

    seen: set[int] = field(default_factory=set)
    readers: dict[str | None, dict[str, array]] = field(default_factory=dict)

    def add(self, store, by: str) -> None:
        new = [s.id for s in store.sheets() if s.id not in self.seen]
        for reader, groups in scores_by_reader((store.evidence(i) or {} for i in new), by).items():
            into = self.readers.setdefault(reader, {})
            for key, scores in groups.items():
                into.setdefault(key, array("d")).extend(scores)
        self.seen.update(new)


_lock = threading.Lock()
_tallies: dict[tuple[str, str], _Tally] = {}
#: The last PNG of each picture, until it holds more scores: matplotlib draws ~600 bars, ~0.5 s a picture.
_pngs: dict[tuple[str, str, str], tuple[int, bytes]] = {}


def picture_png(source: StoreSource, picture: ScorePicture, by: str) -> bytes:
    """``picture.png()``, drawn again only when the picture holds more scores than when last drawn."""
    key = (str(source.store.path), by, picture.key)
    with _lock:
        hit = _pngs.get(key)
    if hit is not None and hit[0] == picture.targets:
        return hit[1]
    png = picture.png()
    with _lock:
        _pngs[key] = (picture.targets, png)
    return png


def score_pictures(source: StoreSource, by: str = "template") -> list[ScorePicture]:
    """One picture per way the store's sheets were read (our layout; each template set), ours first."""
    key = (str(source.store.path), by)
    with _lock:  # one reader of the store at a time per picture; the lock also guards the tally
        tally = _tallies.setdefault(key, _Tally())
        tally.add(source.store, by)
        readers = {r: {k: list(v) for k, v in sorted(g.items())} for r, g in tally.readers.items()}
    return [_picture(source, r, readers[r]) for r in sorted(readers, key=lambda r: (r is not None, r or ""))]


def _picture(source: StoreSource, reader: str | None, groups: dict[str, list[float]]) -> ScorePicture:
    election = source.election()
    tset = source.template_set(reader) if reader else None
    if reader is None:
        label, th = "our own ballots", election.thresholds
        marginal, definite, k = th.marginal, th.definite, "ours"
    elif tset is not None:
        label, marginal, definite, k = f"template set {reader[:12]}", tset.marginal, tset.definite, reader[:12]
    else:  # a set the store does not record: its thresholds are unknown, the election's are drawn
        th = election.thresholds
        label = f"template set {reader[:12]} (not recorded in this store; the election's thresholds)"
        marginal, definite, k = th.marginal, th.definite, reader[:12]
    return ScorePicture(k, label, marginal, definite, groups, tuple(score_rows(groups, marginal, definite)))
