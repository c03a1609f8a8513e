"""The reader's evidence and the marks as the store keeps them: compact binary, one encoder, one decoder.

Every sheet read keeps the evidence a reviewer or a lawyer needs to see why
each vote counted: per target its fill score, its scanner and hand-count
classes with the 31 KAR 6:030 Section 3(1) clauses behind them, and the
features the classes came from; per page where it sat (the transform), its
style code and digest. Schema 2 kept that as zlib-compressed JSON (about
2 kB a sheet) and the marks as plain JSON (about 2.8 kB).

Evidence (schema 3) is ``MAGIC`` + zlib(msgpack(document)), where the
document is `SheetReading.to_dict` with two changes:

* each page's ``targets`` list becomes columns: the strings (contest, option,
  kind, classes, clauses) as indexes into one table of distinct strings, and
  each number (the score and every feature, all rounded to 4 decimals by the
  reader) as an integer count of 1/10,000 in the narrowest integer type that
  holds the column (a column that is not exactly such a count is kept as
  float64), so nothing is rounded again;
* ``timings_ms`` (how long each stage took) is not kept: it says nothing
  about a vote and differs on every run, so it would make two scans of the
  same paper differ.

`decode_evidence` turns either form back into the ``to_dict`` document
(``timings_ms`` empty), so the review app, ``tabulate explain``, the score
histograms and ``verify`` read one shape. Marks (schema 3) are the same JSON
text, zlib-compressed: they come back byte for byte, so their sealed SHA-256
and the re-read comparison of ``verify --images`` are unchanged.

The journal seals `evidence_digest`: the SHA-256 of the decompressed payload
(schema 2: the JSON text, as before; schema 3: the magic and the msgpack
bytes), so a store written by schema 2 still verifies, and any edit to a
stored blob changes the digest.
"""

from __future__ import annotations

import hashlib
import json
import math
import zlib
from typing import Any, Mapping

import msgpack

from ..core.errors import TabulateError
from .evidence_targets import election_targets, is_standard, pack_targets, unpack_targets

#: The first bytes of a schema-3 evidence blob (a zlib stream starts with 0x78, so the two cannot be confused).
MAGIC = b"TEV3"
#: A page's geometry (transform, scale, skew) is kept as whole counts of 1/MICRO where exact.
MICRO = 1_000_000
_HEX64 = frozenset("0123456789abcdef")
#: A page's keys in `PageReading.to_dict` order: a page with exactly these is kept as a positional record.
PAGE_KEYS = (
    "source", "index", "digest", "ok", "reason_code", "reason", "style_code", "size_px", "dpi", "rotation",
    "skew_deg", "scale", "residual_in", "transform", "paper", "ink", "targets", "flags", "timings_ms",
)  # fmt: skip
_PAGE = 1  # the msgpack extension type of a positional page record
_LEVEL = 6


class EvidenceError(TabulateError, ValueError):
    """A stored evidence blob that cannot be decoded (altered outside tabulate, or truncated)."""

    code = "store_evidence"


# -- pages and the sheet -------------------------------------------------------------------
def _to_micro(v: Any) -> int | None:
    """A float as whole millionths when that is exact (the reader rounds a page's geometry to at most 6 decimals)."""
    if type(v) is not float or not math.isfinite(v) or abs(v) >= 2**40:
        return None
    k = round(v * MICRO)
    return k if k / MICRO == v else None


def _scaled(values: list) -> list:
    """``[mask, *values]``: each float (or list of floats) in millionths where exact, bit i of mask saying so.

    A float is 9 bytes in msgpack; a page's transform, scale and skew in millionths take 3 to 5.
    """
    mask, out = 0, []
    for i, v in enumerate(values):
        items = v if type(v) is list and v else [v]
        micro = [_to_micro(x) for x in items]
        if all(k is not None for k in micro):
            mask |= 1 << i
            out.append(micro if type(v) is list else micro[0])
        else:
            out.append(v)
    return [mask, *out]


def _unscaled(record: list) -> list:
    mask, *values = record
    return [
        ([k / MICRO for k in v] if type(v) is list else v / MICRO) if mask >> i & 1 else v for i, v in enumerate(values)
    ]


def _pack_page(page: Any, pairs: tuple[tuple[str, str], ...]) -> Any:
    """A page of the reader's own shape as a positional record (`PAGE_KEYS`, no key names); any other kept as is."""
    if not isinstance(page, dict):
        return page
    out = dict(page)
    digest = out.get("digest")
    if isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX64:
        out["digest"] = bytes.fromhex(digest)  # 32 bytes, not 64 characters; hex again on the way out
    if is_standard(out.get("targets")):
        out["targets"] = pack_targets(out["targets"], pairs)
    if tuple(out) == PAGE_KEYS:
        values = [out[k] for k in PAGE_KEYS[:-1]]  # not ``timings_ms``
        return msgpack.ExtType(_PAGE, msgpack.packb(_scaled(values), use_bin_type=True))
    if "timings_ms" in out:
        out["timings_ms"] = None  # kept in its place, so the keys come back in their order
    return out


def _unpack_page(page: Any, pairs: tuple[tuple[str, str], ...]) -> Any:
    if isinstance(page, msgpack.ExtType):
        if page.code != _PAGE:
            raise EvidenceError(f"unknown record type {page.code} in the stored evidence")
        page = dict(zip(PAGE_KEYS, _unscaled(msgpack.unpackb(page.data, raw=False, strict_map_key=False))))
        page["timings_ms"] = None
    if not isinstance(page, dict):
        return page
    out = dict(page)
    if isinstance(out.get("digest"), bytes):
        out["digest"] = out["digest"].hex()
    if isinstance(out.get("targets"), dict):
        out["targets"] = unpack_targets(out["targets"], pairs)
    if "timings_ms" in out:
        out["timings_ms"] = {}
    return out


def encode_evidence(document: Mapping[str, Any], election: Any = None) -> bytes:
    """The reader's evidence (`SheetReading.to_dict`, or any JSON-like mapping) as a schema-3 blob.

    Deterministic: the same document and election give the same bytes.
    `decode_evidence` with the same election gives the document back exactly,
    except ``timings_ms``, which comes back empty. Targets are kept as their
    place in ``election`` (`election_targets`) when it names them all.
    """
    pairs = _pairs(election)
    doc = dict(document)
    if isinstance(doc.get("pages"), list):
        doc["pages"] = [_pack_page(p, pairs) for p in doc["pages"]]
    payload = msgpack.packb(doc, use_bin_type=True)
    return MAGIC + zlib.compress(payload, _LEVEL)


def _payload(blob: bytes) -> bytes:
    """What `evidence_digest` hashes: the schema-3 magic and msgpack bytes, or the schema-2 JSON text."""
    blob = bytes(blob)
    try:
        if blob.startswith(MAGIC):
            return MAGIC + zlib.decompress(blob[len(MAGIC) :])
        return zlib.decompress(blob)
    except zlib.error as e:
        raise EvidenceError(f"the stored evidence does not decompress: {e}") from None


def decode_evidence(blob: bytes | None, election: Any = None) -> dict | None:
    """A stored evidence blob (schema 2 or 3) as the reader's ``to_dict`` document; None for None.

    The one decoder: the review app, ``tabulate explain``, ``tabulate scores``
    and the hand-to-eye workbench all read evidence through `Store.evidence`,
    which calls this.
    """
    if blob is None:
        return None
    payload = _payload(blob)
    try:
        if payload.startswith(MAGIC):
            doc = msgpack.unpackb(payload[len(MAGIC) :], raw=False, strict_map_key=False)
            if isinstance(doc.get("pages"), list):
                doc["pages"] = [_unpack_page(p, _pairs(election)) for p in doc["pages"]]
            return doc
        return json.loads(payload)
    except (ValueError, TypeError, KeyError, IndexError, msgpack.UnpackException) as e:
        raise EvidenceError(f"the stored evidence cannot be read: {e}") from None


_PAIRS: dict[str, tuple[tuple[str, str], ...]] = {}


def _pairs(election: Any) -> tuple[tuple[str, str], ...]:
    """`election_targets`, computed once per election (by its hash) in a process."""
    if election is None:
        return ()
    if election.hash not in _PAIRS:
        _PAIRS[election.hash] = election_targets(election)
    return _PAIRS[election.hash]


def evidence_digest(blob: bytes | None) -> str | None:
    """The SHA-256 the journal seals for a stored evidence blob (see the module docstring)."""
    return None if blob is None else hashlib.sha256(_payload(blob)).hexdigest()


def to_stored_evidence(evidence: str | bytes | None, election: Any = None) -> bytes | None:
    """What a sheet's evidence is stored as: a schema-3 blob, from the worker's blob or from JSON text."""
    if evidence is None or isinstance(evidence, bytes):
        return evidence
    return encode_evidence(json.loads(evidence), election)


def marks_dictionary(election: Any) -> bytes:
    """The preset zlib dictionary marks are compressed with: the election's marks with nothing marked.

    Marks text (`tabulate.rules.marks_to_dict`) is mostly the election's ids
    and ``{"scan":"unmarked","hand":"unmarked","score":...}``; a dictionary
    holding them lets each sheet's marks refer to it instead of spelling them
    out. It is part of the stored format: derived from the store's own
    election (fixed by its hash), and never changed for a given election.
    """
    contests: dict[str, list[str]] = {}
    for cid, oid in _pairs(election):
        contests.setdefault(cid, []).append(oid)
    blank = '{"scan":"unmarked","hand":"unmarked","score":0.0}'
    body = ",".join(
        f'"{cid}":{{' + ",".join(f'"{oid}":{blank}' for oid in options) + "}" for cid, options in contests.items()
    )
    marked = '"scan":"marked","hand":"marked","score":0.'
    return f'{marked}"fwab":true,"write_in_ink":true,"write_in_name":"{{"marks":{{{body}}}}}'.encode()


def encode_marks(text: str | None, election: Any = None) -> bytes | None:
    """The marks' JSON text (docs/marks.md) as stored in schema 3: zlib-compressed, byte for byte.

    With the election, against `marks_dictionary` (the stream then names the
    dictionary by its Adler-32, so it cannot be read with another by mistake).
    """
    if text is None:
        return None
    if election is None:
        return zlib.compress(text.encode("utf-8"), 9)
    c = zlib.compressobj(9, zdict=_marks_dictionary(election))
    return c.compress(text.encode("utf-8")) + c.flush()


def decode_marks(packed: bytes | None, text: str | None = None, election: Any = None) -> str | None:
    """The marks' JSON text from a row: ``marks`` (schema 2, plain text) or ``marks_z`` (schema 3).

    A row never holds both: one that does was edited outside tabulate, and is refused
    (``verify`` then names the sheet as altered) rather than read one way or the other.
    """
    if packed is None:
        return text
    if text is not None:
        raise EvidenceError("the stored marks are in both columns (marks and marks_z)")
    try:
        d = zlib.decompressobj(zdict=_marks_dictionary(election)) if election is not None else zlib.decompressobj()
        return (d.decompress(bytes(packed)) + d.flush()).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as e:
        raise EvidenceError(f"the stored marks cannot be read: {e}") from None


_DICTIONARIES: dict[str, bytes] = {}


def _marks_dictionary(election: Any) -> bytes:
    if election.hash not in _DICTIONARIES:
        _DICTIONARIES[election.hash] = marks_dictionary(election)
    return _DICTIONARIES[election.hash]
