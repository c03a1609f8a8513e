"""What the reader says about a page and a sheet, with its evidence: frozen dataclasses, JSON via ``to_dict``."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..kernels.points import FEATURES


def _r(v: float | None, nd: int = 4):
    return None if v is None else round(float(v), nd)


#: (name, index) of each feature a target's evidence lists (the score has its own field).
_EVIDENCE_FEATURES = tuple((k, i) for i, k in enumerate(FEATURES) if k != "score")


@dataclass(frozen=True)
class TargetReading:
    """One target: its fill score, features (named by `FEATURES`), scanner and hand-count classes."""

    contest_id: str
    option_id: str
    kind: str
    score: float
    features: tuple[float, ...]
    scan: str
    hand: str
    hand_clauses: tuple[str, ...] = ()

    def feature(self, name: str) -> float:
        return self.features[FEATURES.index(name)]

    def to_dict(self) -> dict:
        f = self.features
        return {
            "contest_id": self.contest_id,
            "option_id": self.option_id,
            "kind": self.kind,
            "score": _r(self.score),
            "scan": self.scan,
            "hand": self.hand,
            "hand_clauses": list(self.hand_clauses),
            # round() inline, not _r(): this runs for every target of every sheet (~8 % of a G4 sheet).
            "features": {k: round(float(f[i]), 4) for k, i in _EVIDENCE_FEATURES},
        }


@dataclass(frozen=True)
class PageReading:
    """One page image, read or rejected.

    A rejected page has ``reason_code`` (see `tabulate.detect.REASON_CODES`)
    and ``reason``; what was learnt before the rejection (for example the
    transform) is kept. ``index`` is the page's place in its file (multi-page
    TIFF), ``digest`` the sha256 of the file's bytes. ``transform`` is the
    affine map from page inches to image pixels, row-major
    ``(a, b, c, d, e, f)``: ``col = a x + b y + c``, ``row = d x + e y + f``.
    ``template_set`` is the sha256 of the template set a page was read with
    (``tabulate read/scan --templates``; None for our own ballots): with the
    style and page it names the layout the transform maps onto.
    """

    source: str
    index: int = 0
    digest: str = ""
    reason_code: str | None = None
    reason: str | None = None
    hash_prefix: str | None = None
    style_id: str | None = None
    precinct_id: str | None = None
    page: int | None = None
    width_px: int | None = None
    height_px: int | None = None
    dpi: float | None = None
    rotation: int | None = None
    skew_deg: float | None = None
    scale: tuple[float, float] | None = None
    residual_in: float | None = None
    transform: tuple[float, ...] | None = None
    paper: float | None = None
    ink: float | None = None
    targets: tuple[TargetReading, ...] = ()
    flags: tuple[str, ...] = ()
    timings_ms: tuple[tuple[str, float], ...] = field(default=(), compare=False)
    template_set: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason_code is None

    def to_dict(self) -> dict:
        # Our own ballots' evidence keeps its shape (no "template_set" key), byte for byte.
        return {**self._fields(), **({"template_set": self.template_set} if self.template_set else {})}

    def _fields(self) -> dict:
        return {
            **self.fields_head(),
            "targets": [t.to_dict() for t in self.targets],
            "flags": list(self.flags),
            "timings_ms": {k: _r(v, 3) for k, v in self.timings_ms},
        }

    def fields_head(self) -> dict:
        """The page's own fields of ``to_dict``, in order, up to its targets (`tabulate.store.evidence_reading`)."""
        return {
            "source": self.source,
            "index": self.index,
            "digest": self.digest,
            "ok": self.ok,
            "reason_code": self.reason_code,
            "reason": self.reason,
            "style_code": None
            if self.style_id is None
            else {
                "hash_prefix": self.hash_prefix,
                "style_id": self.style_id,
                "precinct_id": self.precinct_id,
                "page": self.page,
            },
            "size_px": None if self.width_px is None else [self.width_px, self.height_px],
            "dpi": _r(self.dpi, 1),
            "rotation": self.rotation,
            "skew_deg": _r(self.skew_deg, 3),
            "scale": None if self.scale is None else [_r(s) for s in self.scale],
            "residual_in": _r(self.residual_in, 5),
            "transform": None if self.transform is None else [_r(v, 6) for v in self.transform],
            "paper": _r(self.paper, 1),
            "ink": _r(self.ink, 1),
        }


@dataclass(frozen=True)
class SheetReading:
    """One sheet (front and back), read or rejected with a reason; ``pages`` front first when known.

    ``ballot_id`` is derived from the content hashes of the page images, so
    the same scan always gets the same id.
    """

    pages: tuple[PageReading, ...]
    ballot_id: str = ""
    reason_code: str | None = None
    reason: str | None = None
    style_id: str | None = None
    precinct_id: str | None = None
    flags: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.reason_code is None

    @property
    def targets(self) -> tuple[TargetReading, ...]:
        return tuple(t for p in self.pages for t in p.targets)

    def to_dict(self) -> dict:
        return {**self.to_dict_head(), "pages": [p.to_dict() for p in self.pages]}

    def to_dict_head(self) -> dict:
        """``to_dict`` without its pages (`tabulate.store.evidence_reading` packs those itself)."""
        return {
            "ballot_id": self.ballot_id,
            "ok": self.ok,
            "reason_code": self.reason_code,
            "reason": self.reason,
            "style_id": self.style_id,
            "precinct_id": self.precinct_id,
            "flags": list(self.flags),
        }
