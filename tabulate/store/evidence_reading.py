"""The reader's evidence encoded straight from its `SheetReading`: the bytes `encode_evidence` gives, at less cost.

`encode_evidence(reading.to_dict(), election)` first builds a dict per
target (its features rounded to 4 decimals one Python ``round`` at a time),
then checks every dict's shape and takes it apart again into columns. This
module builds the same columns from the readings' tuples with numpy, and
leaves the per-page geometry to the same helpers, so the blob is byte for
byte the one `encode_evidence` writes (``tests/test_store_evidence_reading.py``
holds it to that). Anything it does not recognise as the reader's own
shape (a template set's pages, a feature that is not a finite number) goes
through `encode_evidence` unchanged.
"""

from __future__ import annotations

import zlib
from typing import Any

import msgpack
import numpy as np

from ..detect.reading import _EVIDENCE_FEATURES, PageReading, SheetReading
from .evidence import _HEX64, _LEVEL, _PAGE, MAGIC, _pairs, _scaled, encode_evidence
from .evidence_targets import SCALE, pack_columns, targets_block

_NAMES = [k for k, _ in _EVIDENCE_FEATURES]
_COLUMNS = [i for _, i in _EVIDENCE_FEATURES]
#: |x * SCALE - rint(x * SCALE)| above this may be a rounding tie: such a value is rounded by Python's ``round``.
_NEAR_TIE = 0.5 - 1e-6


def encode_reading(reading: SheetReading, election: Any = None) -> bytes:
    """``encode_evidence(reading.to_dict(), election)``, byte for byte, without the per-target dicts."""
    pairs = _pairs(election)
    pages = []
    for page in reading.pages:
        packed = _pack_page(page, pairs)
        if packed is None:
            return encode_evidence(reading.to_dict(), election)
        pages.append(packed)
    doc = {**reading.to_dict_head(), "pages": pages}
    return MAGIC + zlib.compress(msgpack.packb(doc, use_bin_type=True), _LEVEL)


def _pack_page(page: PageReading, pairs: tuple[tuple[str, str], ...]) -> msgpack.ExtType | None:
    """`evidence._pack_page` of ``page.to_dict()``, or None when the page is not of the reader's own shape."""
    if page.template_set:
        return None
    targets: Any = []
    if page.targets:
        targets = _pack_targets(page, pairs)
        if targets is None:
            return None
    fields = page.fields_head()
    digest = fields["digest"]
    if isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX64:
        fields["digest"] = bytes.fromhex(digest)
    values = [*fields.values(), targets, list(page.flags)]
    return msgpack.ExtType(_PAGE, msgpack.packb(_scaled(values), use_bin_type=True))


def _rounded(raw: np.ndarray) -> np.ndarray | None:
    """``round(v, 4)`` of every value, as Python rounds (None if any is not finite).

    ``rint(v * 10,000)`` is the count Python's correctly rounded ``round``
    gives unless ``v * 10,000`` lies within a hair of a half (where the
    product's own rounding could tip it): those few go through ``round``.
    """
    if not np.isfinite(raw).all():
        return None
    scaled = raw * SCALE
    counts = np.rint(scaled)
    for r, c in zip(*np.nonzero(np.abs(scaled - counts) > _NEAR_TIE)):
        counts[r, c] = np.rint(round(float(raw[r, c]), 4) * SCALE)
    return counts / SCALE


def _pack_targets(page: PageReading, pairs: tuple[tuple[str, str], ...]) -> dict | None:
    """`evidence_targets.pack_targets` of the page's ``to_dict`` targets; None if a value is not a finite number."""
    targets = page.targets
    try:
        raw = np.array([(t.score, *t.features) for t in targets], dtype=np.float64)
    except (TypeError, ValueError):  # a missing score, or rows of unequal length: not the reader's own shape
        return None
    matrix = _rounded(raw[:, [0, *(1 + i for i in _COLUMNS)]])
    if matrix is None:
        return None
    strings: dict[str, int] = {}
    where = {pair: n for n, pair in enumerate(pairs)}
    at = [where.get((t.contest_id, t.option_id)) for t in targets]
    named = all(n is not None for n in at) and len(pairs) < 2**15
    columns = {}
    if not named:
        columns["contest_id"] = [strings.setdefault(t.contest_id, len(strings)) for t in targets]
        columns["option_id"] = [strings.setdefault(t.option_id, len(strings)) for t in targets]
    columns["kind"] = [strings.setdefault(t.kind, len(strings)) for t in targets]
    columns["scan"] = [strings.setdefault(t.scan, len(strings)) for t in targets]
    columns["hand"] = [strings.setdefault(t.hand, len(strings)) for t in targets]
    clauses = [[strings.setdefault(c, len(strings)) for c in t.hand_clauses] for t in targets]
    return targets_block(strings, at if named else None, columns, clauses, list(_NAMES), pack_columns(matrix))
