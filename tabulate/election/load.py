"""Load ``election.json``: JSON Schema first, then the cross-references a schema cannot see.

Every problem is collected and reported at once, each with its JSON path and a
plain reason, so a clerk fixes the file in one pass instead of one error a run.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from ..core.errors import TabulateError
from .model import (
    DEFAULT_ADJUDICATION_REASONS,
    SLATE_OFFICES,
    Adjudication,
    BallotStyle,
    Candidate,
    Contest,
    DeclaredWriteIn,
    Election,
    Party,
    Precinct,
    Thresholds,
    election_hash,
)


@dataclass(frozen=True)
class Problem:
    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class ElectionError(TabulateError, ValueError):
    """An election definition that cannot be used; ``problems`` lists every reason."""

    code = "election"

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s) in the election definition:\n{lines}")


@lru_cache(maxsize=1)
def election_schema() -> dict:
    text = resources.files(__package__).joinpath("election.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def _json_path(parts: Iterable[Any]) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _schema_problems(doc: Any) -> list[Problem]:
    import jsonschema  # here, not at the top: the scan's readers never validate (0.06 s of their start-up)

    validator = jsonschema.Draft202012Validator(election_schema())
    problems = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message)):
        if err.validator == "oneOf" and isinstance(err.instance, dict):
            kind = err.instance.get("type")
            need = "candidates and vote_for" if kind == "candidate" else "text"
            reason = f"a {kind} contest needs {need}" if kind in ("candidate", "question") else err.message
        elif err.validator == "pattern":
            reason = (
                f"{err.instance!r} is not a valid id (letters, digits, '_', '.', '-', at most 40)"
                if "A-Za-z0-9" in str(err.validator_value)
                else f"{err.instance!r} should look like YYYY-MM-DD"
            )
        elif err.validator == "additionalProperties":
            reason = err.message.replace("Additional properties are not allowed", "unknown field(s)")
        else:
            reason = err.message
        problems.append(Problem(_json_path(err.absolute_path), reason))
    return problems


def _duplicates(items: list[dict], path: str) -> list[Problem]:
    counts = Counter(i.get("id") for i in items)
    return [
        Problem(f"{path}[{n}].id", f"id {i['id']!r} is used more than once")
        for n, i in enumerate(items)
        if counts[i.get("id")] > 1
    ]


def _reference_problems(doc: dict) -> list[Problem]:
    """Checks that need the whole document: ids unique and every reference resolved."""
    problems: list[Problem] = []
    parties = {p["id"] for p in doc["parties"]}
    contests = {c["id"]: c for c in doc["contests"]}
    precincts = {p["id"] for p in doc["precincts"]}
    problems += _duplicates(doc["parties"], "$.parties")
    problems += _duplicates(doc["contests"], "$.contests")
    problems += _duplicates(doc["precincts"], "$.precincts")
    problems += _duplicates(doc["ballot_styles"], "$.ballot_styles")

    for n, c in enumerate(doc["contests"]):
        at = f"$.contests[{n}]"
        if c["type"] != "candidate":
            continue
        problems += _duplicates(c["candidates"], f"{at}.candidates")
        for k, cand in enumerate(c["candidates"]):
            if "party" in cand and cand["party"] not in parties:
                problems.append(Problem(f"{at}.candidates[{k}].party", f"no party with id {cand['party']!r}"))
            if c.get("slate") and "running_mate" not in cand:
                problems.append(
                    Problem(f"{at}.candidates[{k}]", "a slate contest needs a running_mate for every candidate")
                )
        if c.get("slate") and c.get("office") not in SLATE_OFFICES:
            # The write-in slate clause follows the office: 31 KAR 6:030 Section 4(10) Governor, 4(11) President.
            problems.append(
                Problem(
                    f"{at}.office",
                    'a slate contest needs office "president" (31 KAR 6:030 '
                    'Section 4(11)) or "governor" (Section 4(10))',
                )
            )
        options = len(c["candidates"]) + c.get("write_ins", 0)
        if c["vote_for"] > max(options, 1):
            problems.append(
                Problem(
                    f"{at}.vote_for", f"vote_for {c['vote_for']} is more than the {options} option(s) on the ballot"
                )
            )
        if c.get("declared_write_ins") and c.get("write_ins", 0) == 0:
            problems.append(
                Problem(
                    f"{at}.declared_write_ins",
                    "declared write-in candidates need at least one write-in line (write_ins)",
                )
            )
        problems += _duplicates(c.get("declared_write_ins", []), f"{at}.declared_write_ins")

    seen_precincts: Counter = Counter()
    for n, s in enumerate(doc["ballot_styles"]):
        at = f"$.ballot_styles[{n}]"
        for k, pid in enumerate(s["precincts"]):
            if pid not in precincts:
                problems.append(Problem(f"{at}.precincts[{k}]", f"no precinct with id {pid!r}"))
        for k, cid in enumerate(s["contests"]):
            if cid not in contests:
                problems.append(Problem(f"{at}.contests[{k}]", f"no contest with id {cid!r}"))
        for cid, count in Counter(s["contests"]).items():
            if count > 1:
                problems.append(Problem(f"{at}.contests", f"contest {cid!r} appears {count} times"))
        if "party" in s and s["party"] not in parties:
            problems.append(Problem(f"{at}.party", f"no party with id {s['party']!r}"))
        if "party" in s and doc["type"] != "primary":
            problems.append(Problem(f"{at}.party", "only a primary's styles belong to a party"))
        seen_precincts.update((pid, s.get("party")) for pid in s["precincts"])
    for (pid, party), count in seen_precincts.items():
        if count > 1:
            problems.append(
                Problem(
                    "$.ballot_styles",
                    f"precinct {pid!r} has {count} styles" + (f" for party {party!r}" if party else ""),
                )
            )

    if doc.get("straight_party") and doc["type"] != "general":
        problems.append(
            Problem("$.straight_party", "the straight-party option appears only on a general-election ballot")
        )
    th = doc.get("thresholds", {})
    if "marginal" in th and "definite" in th and th["marginal"] > th["definite"]:
        problems.append(
            Problem("$.thresholds", f"marginal ({th['marginal']}) must not exceed definite ({th['definite']})")
        )
    return problems


def normalise(doc: dict) -> dict:
    """The document with every default written out: the canonical form that is hashed."""
    d = copy.deepcopy(doc)
    d.pop("$schema", None)
    d.setdefault("straight_party", False)
    d.setdefault("target_shape", "oval")
    d.setdefault("paper_size", "letter")
    th = Thresholds()
    d["thresholds"] = {"marginal": th.marginal, "definite": th.definite, **d.get("thresholds", {})}
    d["adjudication"] = {
        "reasons": list(DEFAULT_ADJUDICATION_REASONS),
        "decided_by": "team",
        **d.get("adjudication", {}),
    }
    for c in d["contests"]:
        c.setdefault("level", "other")
        if c["type"] == "candidate":
            c.setdefault("write_ins", 0)
            c.setdefault("partisan", True)
            c.setdefault("slate", False)
            c.setdefault("declared_write_ins", [])
            for w in c["declared_write_ins"]:
                w.setdefault("variations", [])
        else:
            c.setdefault("yes_label", "YES")
            c.setdefault("no_label", "NO")
    return d


def _build(d: dict, digest: str) -> Election:
    def contest(c: dict) -> Contest:
        if c["type"] == "question":
            return Contest(
                c["id"],
                "question",
                c["title"],
                level=c["level"],
                vote_for=1,
                partisan=False,
                text=c["text"],
                yes_label=c["yes_label"],
                no_label=c["no_label"],
            )
        return Contest(
            c["id"],
            "candidate",
            c["title"],
            level=c["level"],
            vote_for=c["vote_for"],
            candidates=tuple(
                Candidate(x["id"], x["name"], x.get("party"), x.get("running_mate")) for x in c["candidates"]
            ),
            write_ins=c["write_ins"],
            partisan=c["partisan"],
            slate=c["slate"],
            office=c.get("office"),
            declared_write_ins=tuple(
                DeclaredWriteIn(w["id"], w["name"], tuple(w["variations"]), w.get("running_mate"))
                for w in c["declared_write_ins"]
            ),
        )

    return Election(
        title=d["title"],
        date=d["date"],
        type=d["type"],
        jurisdiction=d["jurisdiction"],
        parties=tuple(Party(p["id"], p["name"], p["abbreviation"]) for p in d["parties"]),
        contests=tuple(contest(c) for c in d["contests"]),
        precincts=tuple(Precinct(p["id"], p["name"]) for p in d["precincts"]),
        ballot_styles=tuple(
            BallotStyle(s["id"], tuple(s["precincts"]), tuple(s["contests"]), s.get("party"))
            for s in d["ballot_styles"]
        ),
        straight_party=d["straight_party"],
        target_shape=d["target_shape"],
        paper_size=d["paper_size"],
        thresholds=Thresholds(**d["thresholds"]),
        adjudication=Adjudication(
            tuple(d["adjudication"]["reasons"]), d["adjudication"]["decided_by"], d["adjudication"].get("board_members")
        ),
        hash=digest,
    )


def parse_election(doc: Any, source: str = "election") -> Election:
    """Validate a parsed election document and build the model; raise `ElectionError` with every problem."""
    problems = _schema_problems(doc)
    try:
        problems += _reference_problems(doc)
    except (KeyError, TypeError, AttributeError):
        # The document's shape is too broken for cross-reference checks;
        # the schema problems above already say why.
        if not problems:
            raise
    if problems:
        raise ElectionError(source, problems)
    d = normalise(doc)
    return _build(d, election_hash(d))


def load_election(path: str | Path) -> Election:
    """Read and validate ``election.json``.

    Raises
    ------
    ElectionError
        The file is missing, not JSON, or breaks the schema; the message lists every problem.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ElectionError(str(path), [Problem("$", f"cannot read the file ({e.strerror or e})")]) from None
    except UnicodeDecodeError:
        raise ElectionError(str(path), [Problem("$", "the file is not UTF-8 text")]) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ElectionError(
            str(path), [Problem("$", f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}")]
        ) from None
    return parse_election(doc, str(path))
