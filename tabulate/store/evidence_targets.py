"""A page's targets as the store keeps them: columns of string indexes and of whole counts (evidence schema 3).

The reader's own target list (`TargetReading.to_dict`: ids, kind, score,
classes, the 31 KAR 6:030 Section 3(1) clauses behind the hand-count class,
features) becomes one table of distinct strings, each target's strings as
indexes into it, its place in the election instead of its two ids, and each
number as a whole count of 1/`SCALE` in the narrowest integer type that
holds its column. `tabulate.store.evidence` wraps the block into a page
record; `tabulate.store.evidence_reading` builds the same block from a
`SheetReading` without the per-target dicts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Numbers are kept as whole counts of 1/SCALE (the reader rounds scores and features to 4 decimals).
SCALE = 10_000
_TARGET_KEYS = ("contest_id", "option_id", "kind", "score", "scan", "hand", "hand_clauses", "features")
_STRING_KEYS = ("contest_id", "option_id", "kind", "scan", "hand")
#: The reader's feature names when schema 3 was written (`tabulate.kernels.FEATURES` but the score): a page
#: whose features are these, in this order, stores 0 instead of the names. Part of the format: never edit it.
FEATURES_V3 = (
    "dark", "erasure", "ring", "crossings", "marking", "write_in", "dx_px", "dy_px", "match", "paper", "deep",
)  # fmt: skip


# -- numbers -----------------------------------------------------------------------------
#: The integer types a column may take, narrowest first, with the range each holds.
_INTS = ("<i1", "<i2", "<i4", "<i8")


def pack_columns(matrix: np.ndarray) -> list[list]:
    """Each column of a (targets x numbers) matrix as ``[dtype, bytes]``, never rounded again.

    Whole counts of 1/SCALE in the narrowest integer type that holds them, or
    their running differences (``"d"`` + dtype) when those fit a narrower type
    (neighbouring targets share a paper grey). A column that is not all such
    counts is kept as float64. Vectorised over the whole matrix: a page has
    a few dozen targets, so per-column numpy calls would cost more than the data
    (the widths are chosen in plain Python from each column's least and greatest).
    """
    with np.errstate(invalid="ignore", over="ignore"):
        counts = np.rint(matrix * SCALE)
        exact = np.all((counts / SCALE == matrix) & (np.abs(counts) < 2**31), axis=0)
    whole = np.where(exact, counts, 0).astype(np.int64)
    deltas = whole.copy()  # np.diff(whole, axis=0, prepend=0), without its per-call overhead
    deltas[1:] -= whole[:-1]
    both = np.concatenate((whole, deltas), axis=1)
    lo, hi = both.min(axis=0).tolist(), both.max(axis=0).tolist()
    n = matrix.shape[1]
    out = []
    for j, ok in enumerate(exact.tolist()):
        width, dwidth = _narrowest(lo[j], hi[j]), _narrowest(lo[n + j], hi[n + j])
        if not ok:
            out.append(["<f8", matrix[:, j].astype("<f8").tobytes()])
        elif dwidth < width:
            out.append(["d" + _INTS[dwidth], deltas[:, j].astype(_INTS[dwidth]).tobytes()])
        else:
            out.append([_INTS[width], whole[:, j].astype(_INTS[width]).tobytes()])
    return out


def _narrowest(lo: int, hi: int) -> int:
    """The index in `_INTS` of the narrowest type that holds every count from ``lo`` to ``hi``."""
    for i, bits in enumerate((7, 15, 31)):
        if -(2**bits) <= lo and hi < 2**bits:
            return i
    return len(_INTS) - 1


def unpack_column(packed: list) -> list[float]:
    dtype, data = packed
    if dtype.startswith("d"):
        counts = np.cumsum(np.frombuffer(data, dtype=dtype[1:]).astype(np.int64))
    else:
        counts = np.frombuffer(data, dtype=dtype)
    if dtype == "<f8":
        return counts.tolist()
    return [k / SCALE for k in counts.tolist()]


# -- targets -------------------------------------------------------------------------------
def is_standard(targets: Any) -> bool:
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


def pack_targets(targets: list[dict], pairs: tuple[tuple[str, str], ...]) -> dict:
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
    return targets_block(strings, at if named else None, columns, clauses, names, pack_columns(matrix))


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


def unpack_targets(block: dict, pairs: tuple[tuple[str, str], ...]) -> list[dict]:
    strings, n = block["strings"], block["n"]
    keys = [k for k in _STRING_KEYS if k in block]
    columns = {k: [strings[i] for i in np.frombuffer(block[k], dtype=block["index"]).tolist()] for k in keys}
    if "targets" in block:
        if not pairs:
            # A ValueError: `decode_evidence` reports it as an EvidenceError ("the stored evidence cannot be read: ...").
            raise ValueError("this evidence names its targets by the election's order: decode it with the election")
        named = [pairs[i] for i in np.cumsum(np.frombuffer(block["targets"], dtype="<i2").astype(np.int64)).tolist()]
        columns["contest_id"] = [c for c, _ in named]
        columns["option_id"] = [o for _, o in named]
    scores, *values = [unpack_column(v) for v in block["values"]]
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
