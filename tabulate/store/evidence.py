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
import numpy as np

from ..core.errors import TabulateError

#: The first bytes of a schema-3 evidence blob (a zlib stream starts with 0x78, so the two cannot be confused).
MAGIC = b"TEV3"
#: Numbers are kept as whole counts of 1/SCALE (the reader rounds scores and features to 4 decimals).
SCALE = 10_000
#: A page's geometry (transform, scale, skew) is kept as whole counts of 1/MICRO where exact.
MICRO = 1_000_000
_TARGET_KEYS = ("contest_id", "option_id", "kind", "score", "scan", "hand", "hand_clauses", "features")
_STRING_KEYS = ("contest_id", "option_id", "kind", "scan", "hand")
_HEX64 = frozenset("0123456789abcdef")
#: A page's keys in `PageReading.to_dict` order: a page with exactly these is kept as a positional record.
PAGE_KEYS = (
    "source", "index", "digest", "ok", "reason_code", "reason", "style_code", "size_px", "dpi", "rotation",
    "skew_deg", "scale", "residual_in", "transform", "paper", "ink", "targets", "flags", "timings_ms",
)  # fmt: skip
_PAGE = 1  # the msgpack extension type of a positional page record
#: The reader's feature names when schema 3 was written (`tabulate.kernels.FEATURES` but the score): a page
#: whose features are these, in this order, stores 0 instead of the names. Part of the format: never edit it.
FEATURES_V3 = (
    "dark", "erasure", "ring", "crossings", "marking", "write_in", "dx_px", "dy_px", "match", "paper", "deep",
)  # fmt: skip
_LEVEL = 6


class EvidenceError(TabulateError, ValueError):
    """A stored evidence blob that cannot be decoded (altered outside tabulate, or truncated)."""

    code = "store_evidence"


# -- numbers -----------------------------------------------------------------------------
#: The integer types a column may take, narrowest first, with the range each holds.
_INTS = ("<i1", "<i2", "<i4", "<i8")


def _pack_columns(matrix: np.ndarray) -> list[list]:
    """Each column of a (targets x numbers) matrix as ``[dtype, bytes]``, never rounded again.

    Whole counts of 1/SCALE in the narrowest integer type that holds them, or
    their running differences (``"d"`` + dtype) when those fit a narrower type
    (neighbouring targets share a paper grey). A column that is not all such
    counts is kept as float64. Vectorised over the whole matrix: a page has
    a few dozen targets, so per-column numpy calls would cost more than the data.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        counts = np.rint(matrix * SCALE)
        exact = np.all((counts / SCALE == matrix) & (np.abs(counts) < 2**31), axis=0)
    whole = np.where(exact, counts, 0).astype(np.int64)
    deltas = whole.copy()  # np.diff(whole, axis=0, prepend=0), without its per-call overhead
    deltas[1:] -= whole[:-1]
    widths, dwidths = _narrowest(whole), _narrowest(deltas)
    out = []
    for j, (ok, width, dwidth) in enumerate(zip(exact.tolist(), widths, dwidths)):
        if not ok:
            out.append(["<f8", matrix[:, j].astype("<f8").tobytes()])
        elif dwidth < width:
            out.append(["d" + _INTS[dwidth], deltas[:, j].astype(_INTS[dwidth]).tobytes()])
        else:
            out.append([_INTS[width], whole[:, j].astype(_INTS[width]).tobytes()])
    return out


def _narrowest(counts: np.ndarray) -> list[int]:
    """Per column, the index in `_INTS` of the narrowest type that holds it."""
    lo, hi = counts.min(axis=0), counts.max(axis=0)
    return sum(((lo < -(2**b)) | (hi >= 2**b)).astype(int) for b in (7, 15, 31)).tolist()


def _unpack_column(packed: list) -> list[float]:
    dtype, data = packed
    if dtype.startswith("d"):
        counts = np.cumsum(np.frombuffer(data, dtype=dtype[1:]).astype(np.int64))
    else:
        counts = np.frombuffer(data, dtype=dtype)
    if dtype == "<f8":
        return counts.tolist()
    return [k / SCALE for k in counts.tolist()]


# -- targets -------------------------------------------------------------------------------
def _is_standard(targets: Any) -> bool:
    """The reader's own target list (`TargetReading.to_dict`), which is kept as columns."""
    if not isinstance(targets, list) or not targets or set(map(type, targets)) != {dict}:
        return False
    names = tuple(targets[0].get("features") or ())
    if any(tuple(t) != _TARGET_KEYS or tuple(t["features"]) != names for t in targets):
        return False
    strings = [t[k] for t in targets for k in _STRING_KEYS]
    strings += [c for t in targets for c in t["hand_clauses"]]
    numbers = [v for t in targets for v in (t["score"], *t["features"].values())]
    # Only floats become columns: an int or None elsewhere would not come back as it was.
    return set(map(type, strings)) == {str} and set(map(type, numbers)) == {float}


def election_targets(election: Any) -> tuple[tuple[str, str], ...]:
    """Every ``(contest id, option id)`` of the election, in the definition's order: what a target's index means.

    The store holds one election, checked against its hash on every open, so
    a target kept as its index here reads back the same for as long as the store exists.
    """
    if election is None:
        return ()
    contests = [election.straight_party_contest] if election.straight_party_contest else []
    pairs = {(c.id, o.id): None for c in [*contests, *election.contests] for o in c.options}
    return tuple(pairs)


def _pack_targets(targets: list[dict], pairs: tuple[tuple[str, str], ...]) -> dict:
    strings: dict[str, int] = {}
    index = lambda s: strings.setdefault(s, len(strings))
    where = {pair: n for n, pair in enumerate(pairs)}
    at = [where.get((t["contest_id"], t["option_id"])) for t in targets]
    # A target the election names is kept as its place in the election (2 bytes, not two ids).
    named = all(n is not None for n in at) and len(pairs) < 2**15
    keys = _STRING_KEYS[2:] if named else _STRING_KEYS
    columns = {k: [index(t[k]) for t in targets] for k in keys}
    clauses = [[index(c) for c in t["hand_clauses"]] for t in targets]
    names = list(targets[0]["features"])
    matrix = np.array([[t["score"], *t["features"].values()] for t in targets], dtype=np.float64)
    return targets_block(strings, at if named else None, columns, clauses, names, _pack_columns(matrix))


def targets_block(
    strings: dict[str, int],
    at: list | None,
    columns: dict[str, list[int]],
    clauses: list[list[int]],
    names: list[str],
    values: Any,
) -> dict:
    """A page's stored targets: ``strings`` every text once, ``at`` each target's place in the
    election (None: by its ids in ``columns``), ``values`` the packed score and feature columns.
    Both encoders build it (from the reader's document here, from the reading itself in
    `tabulate.store.evidence_reading`), so the two write the same bytes."""
    wide = "<u1" if len(strings) <= 256 else "<u2"
    return {
        "n": len(clauses),
        "strings": list(strings),
        "index": wide,
        # A page's targets run in ballot order, so their places step by small amounts.
        **(
            {"targets": np.diff(np.asarray(at, dtype=np.int64), prepend=0).astype("<i2").tobytes()}
            if at is not None
            else {}
        ),
        **{k: np.asarray(v, dtype=wide).tobytes() for k, v in columns.items()},
        "clauses": clauses,
        "features": 0 if tuple(names) == FEATURES_V3 else names,
        # One column per number: the score, then each feature (``features`` names them).
        "values": values,
    }


def _unpack_targets(block: dict, pairs: tuple[tuple[str, str], ...]) -> list[dict]:
    strings, n = block["strings"], block["n"]
    keys = [k for k in _STRING_KEYS if k in block]
    columns = {k: [strings[i] for i in np.frombuffer(block[k], dtype=block["index"]).tolist()] for k in keys}
    if "targets" in block:
        if not pairs:
            raise EvidenceError("this evidence names its targets by the election's order: decode it with the election")
        named = [pairs[i] for i in np.cumsum(np.frombuffer(block["targets"], dtype="<i2").astype(np.int64)).tolist()]
        columns["contest_id"] = [c for c, _ in named]
        columns["option_id"] = [o for _, o in named]
    scores, *values = [_unpack_column(v) for v in block["values"]]
    names = FEATURES_V3 if block["features"] == 0 else block["features"]
    return [
        {
            "contest_id": columns["contest_id"][i],
            "option_id": columns["option_id"][i],
            "kind": columns["kind"][i],
            "score": scores[i],
            "scan": columns["scan"][i],
            "hand": columns["hand"][i],
            "hand_clauses": [strings[c] for c in block["clauses"][i]],
            "features": {name: values[j][i] for j, name in enumerate(names)},
        }
        for i in range(n)
    ]


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
    if _is_standard(out.get("targets")):
        out["targets"] = _pack_targets(out["targets"], pairs)
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
        out["targets"] = _unpack_targets(out["targets"], pairs)
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
