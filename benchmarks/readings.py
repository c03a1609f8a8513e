"""Every reading of a fixed batch, written out so two versions of the reader can be compared.

    python benchmarks/readings.py --sheets 120 --out after.jsonl
    python benchmarks/readings.py --sheets 120 --out after.jsonl --compare before.jsonl

Simulates ``--sheets`` sheets (seed ``--seed``, the accuracy benchmark's mix of
populations and scan profiles, a quarter bitonal), encodes each page as the
scanner would send it (grayscale JPEG, quality 85, and CCITT G4 TIFF), reads
every sheet through `tabulate.central.interpret_sheet` (decode, register,
identify, score, rules) and writes one JSON line per sheet and format: the
sheet's evidence without its timings, its marks and its status. A speed-up
that is meant to change nothing must leave this file byte-identical;
``--compare`` prints every target whose reading differs (and exits 1).

Run a copy of the old tree with this script copied into its ``benchmarks/``
to get the "before" file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.accuracy import sheet_options  # noqa: E402
from benchmarks.profile_stages import encode  # noqa: E402
from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.central import interpret as _interpret  # noqa: E402
from tabulate.central import interpret_sheet  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.store.evidence import decode_evidence  # noqa: E402
from tabulate.store.evidence import encode_evidence as _encode_evidence  # noqa: E402

if hasattr(_interpret, "encode_reading"):  # the worker encodes from the reading itself

    def _capture_reading(reading, election=None):
        _documents.append(reading.to_dict())
        return _encode_reading(reading, election)

    _encode_reading = _interpret.encode_reading
    _interpret.encode_reading = _capture_reading
else:
    _interpret.encode_evidence = lambda document, election=None: _capture(document, election)

SAMPLE = ROOT / "samples" / "general" / "election.json"


_documents: list = []


def _capture(document, election=None):
    """`encode_evidence` that keeps the reader's full-precision document (the store rounds to 1/10,000)."""
    _documents.append(document)
    return _encode_evidence(document, election)


def _full_digest(document) -> str:
    pages = [{k: v for k, v in page.items() if k != "timings_ms"} for page in document["pages"]]
    text = json.dumps({**document, "pages": pages}, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def sheet_lines(election, k: int, seed: int) -> list[str]:
    """Sheet ``k`` read from JPEG and from G4: one JSON line each (timings dropped: they are wall clock)."""
    sim = simulate_sheet(election, k, seed, **sheet_options(k))
    lines = []
    for fmt in ("jpeg", "g4"):
        _documents.clear()
        result = interpret_sheet(election, [encode(img, fmt) for img in sim.pages])
        # The stored form (compact msgpack, `tabulate.store.evidence`) is what must not change: its
        # digest byte for byte, and its decoded document for a readable --compare.
        blob = result.evidence
        evidence = decode_evidence(blob, election) if isinstance(blob, bytes) else json.loads(blob)
        for page in evidence["pages"]:
            page.pop("timings_ms", None)
        record = {"sheet": k, "format": fmt, "status": result.status, "evidence": evidence}
        # Every feature to the last bit, not only to the store's 1/10,000.
        record["full_sha256"] = _full_digest(_documents[0]) if _documents else None
        record["evidence_sha256"] = hashlib.sha256(blob if isinstance(blob, bytes) else blob.encode()).hexdigest()
        record["marks"] = json.loads(result.marks) if result.marks else None
        lines.append(json.dumps(record, sort_keys=True, separators=(",", ":")))
    return lines


def _targets(line: str) -> dict:
    rec = json.loads(line)
    out = {}
    for page in rec["evidence"]["pages"]:
        for t in page["targets"]:
            out[(t["contest_id"], t["option_id"])] = (t["scan"], t["hand"], t["score"])
        out[("page", page["index"], page.get("source"))] = (page["reason_code"], tuple(page["flags"]))
    return out


def _moved(line: str) -> dict:
    """Each target's features and clauses, by (format, contest, option)."""
    rec = json.loads(line)
    return {
        (t["contest_id"], t["option_id"]): (t["features"], tuple(t["hand_clauses"]))
        for page in rec["evidence"]["pages"]
        for t in page["targets"]
    }


def what_moved(new: list[str], old: list[str]) -> Counter:
    """How many targets changed each feature or clause (where the classes may all stay the same).

    A feature that went to -1 (`tabulate.kernels.AREA_NOT_READ`) is counted as "<name> not read"; a
    clause as "- <clause>" (dropped) or "+ <clause>" (added).
    """
    counts: Counter = Counter()
    for a, b in zip(new, old):
        if a == b:
            continue
        ma, mb = _moved(a), _moved(b)
        for key in set(ma) & set(mb):
            (fa, ca), (fb, cb) = ma[key], mb[key]
            for name in fa:
                if fa[name] != fb.get(name):
                    counts[f"{name} not read" if fa[name] == -1 else f"{name} changed"] += 1
            counts.update(f"- {c}" for c in set(cb) - set(ca))
            counts.update(f"+ {c}" for c in set(ca) - set(cb))
            counts["targets with any change"] += fa != fb or ca != cb
    return counts


def compare(new: list[str], old: list[str]) -> int:
    """Print each sheet and target whose reading differs; the number of differing sheets."""
    differing = 0
    for a, b in zip(new, old):
        if a == b:
            continue
        differing += 1
        ra, rb = json.loads(a), json.loads(b)
        ta, tb = _targets(a), _targets(b)
        changed = [
            (key, tb.get(key), ta.get(key)) for key in sorted(set(ta) | set(tb), key=str) if ta.get(key) != tb.get(key)
        ]
        print(
            f"sheet {ra['sheet']} {ra['format']}: status {rb['status']} -> {ra['status']}; {len(changed)} readings differ"
        )
        for key, before, after in changed[:10]:
            print(f"    {key}: {before} -> {after}")
    if len(new) != len(old):
        print(f"{len(new)} lines against {len(old)}")
        differing += 1
    return differing


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=120)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--compare", type=Path, help="a file written by an earlier run: print what differs")
    a = ap.parse_args(argv)
    election = load_election(SAMPLE)
    lines = [line for k in range(a.sheets) for line in sheet_lines(election, k, a.seed)]
    text = "\n".join(lines) + "\n"
    a.out.write_text(text)
    print(f"{len(lines)} sheet readings, sha256 {hashlib.sha256(text.encode()).hexdigest()}")
    if a.compare:
        before = a.compare.read_text().splitlines()
        differing = compare(lines, before)
        print(f"{differing} of {len(lines)} sheet readings differ from {a.compare}")
        for what, n in sorted(what_moved(lines, before).items()):
            print(f"  targets: {what}: {n}")
        return 1 if differing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
