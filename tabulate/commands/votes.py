"""``tabulate votes`` and ``tabulate write-in``: apply 31 KAR 6:030 to marks or to a written name, and explain."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..election import Election, load_election
from ..rules import (
    CLAUSE_TEXT,
    MarksError,
    NamedVotes,
    apply_write_in_names,
    cite,
    parse_marks,
    resolve_write_in,
    votes_to_dict,
)
from .errors import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "votes",
        help="apply the uniform definition of a vote to ballots given as marks (JSON)",
        description="Read ballots given as marks (docs/marks.md), apply 31 KAR 6:030 and print each ballot's "
        "votes, contest statuses, the clauses that decided them and the reasons a person must look.",
    )
    p.add_argument("--election", required=True, metavar="ELECTION.json", help="the election definition")
    p.add_argument("--marks", required=True, metavar="MARKS.json", help="the ballots' marks (docs/marks.md)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run)

    w = subparsers.add_parser(
        "write-in",
        help="whose write-in vote a written name is (31 KAR 6:030 Section 4), with its clause",
        description="Ask the write-in resolver what a name written on a contest's write-in line is worth: a vote "
        "for a filed candidate, not counted, or a question for a person, citing the clause.",
    )
    w.add_argument("name", metavar="NAME", help="the name as written (quote it in the shell)")
    w.add_argument("--election", required=True, metavar="ELECTION.json", help="the election definition")
    w.add_argument("--contest", required=True, metavar="ID", help="the contest whose write-in line holds the name")
    w.add_argument("--fwab", action="store_true", help="a federal write-in absentee ballot (31 KAR 5:011 Section 2)")
    w.set_defaults(func=run_write_in)


def read_marks_file(election: Election, path: str | Path) -> list:
    """Read and check a marks file; every problem becomes one `UsageError` line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError(f"{path}: cannot read the marks file ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: the marks file is not UTF-8 text") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}: not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    try:
        return parse_marks(election, doc, str(path))
    except MarksError as e:
        raise UsageError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    election = load_election(args.election)
    ballots = read_marks_file(election, args.marks)
    results = [apply_write_in_names(election, b) for b in ballots]
    if args.json:
        print(
            json.dumps(
                {"election": election.hash, "ballots": [_named_dict(r) for r in results]}, indent=1, ensure_ascii=False
            )
        )
        return 0
    for named in results:
        print(format_ballot(election, named))
    review = sum(r.votes.needs_review for r in results)
    print(f"{len(results)} ballot(s); {review} need(s) a person")
    return 0


def _named_dict(named: NamedVotes) -> dict:
    out = votes_to_dict(named.votes)
    out["write_ins"] = [
        {
            "contest_id": n.contest_id,
            "option_id": n.option_id,
            "name": n.name,
            "outcome": n.decision.outcome,
            "candidate_id": n.decision.candidate_id,
            "clause": n.decision.clause,
            "explanation": n.decision.explanation,
            "effect": n.effect,
        }
        for n in named.named
    ]
    return out


def run_write_in(args: argparse.Namespace) -> int:
    election = load_election(args.election)
    try:
        contest = election.contest(args.contest)
    except KeyError:
        raise UsageError(f"no contest {args.contest!r} in {args.election}") from None
    if contest.type != "candidate":
        raise UsageError(f"contest {args.contest!r} is a question: it has no write-in line")
    d = resolve_write_in(args.name, contest, election, fwab=args.fwab)
    names = {c.id: c.name for c in contest.candidates} | {w.id: w.name for w in contest.declared_write_ins}
    outcome = {
        "candidate": f"a vote for {names.get(d.candidate_id, d.candidate_id)} [{d.candidate_id}]",
        "not_counted": "not counted",
        "person_must_decide": "a person must decide",
    }[d.outcome]
    print(f"{args.name!r} in {contest.title}: {outcome}")
    print(f"  why: {d.explanation}")
    if d.candidates and d.outcome != "candidate":
        print("  candidates in question: " + ", ".join(f"{names.get(c, c)} [{c}]" for c in d.candidates))
    for clause in d.clauses:
        print(f'  {clause}: "{CLAUSE_TEXT[clause]}"')
    return 0


def format_ballot(election: Election, named: NamedVotes) -> str:
    """A ballot's votes, and any write-in names it carried, as text a clerk can read."""
    votes = named.votes
    head = f"ballot {votes.ballot_id}  style {votes.style_id}"
    if votes.precinct_id:
        head += f"  precinct {votes.precinct_id}"
    if votes.fwab:
        head += "  FWAB"
    if votes.blank:
        head += "  BLANK"
    lines = [head + ("  NEEDS REVIEW" if votes.needs_review else "")]
    if votes.straight_party:
        lines.append(f"  straight party: {election.party(votes.straight_party).name}")
    for cv in votes.contests:
        contest = election.contest(cv.contest_id)
        labels = {o.id: o.label for o in contest.options}
        chosen = (
            ", ".join(f"{labels[s]} [{s}]" if s.startswith("write-in") else labels.get(s, s) for s in cv.selections)
            or "-"
        )
        extra = []
        if cv.from_straight_party:
            extra.append("straight party")
        if cv.undervotes:
            extra.append(f"{cv.undervotes} undervote(s)")
        if cv.overvotes:
            extra.append(f"{cv.overvotes} overvote(s)")
        note = f" ({'; '.join(extra)})" if extra else ""
        lines.append(f"  {contest.title}: {cv.status}: {chosen}{note}  [{cite(cv.clauses)}]")
    queued = set(election.adjudication.reasons)
    for r in votes.reasons:
        if r.code not in queued and r.code == "undervote":
            continue  # shown on the contest's line; listed only where the county queues undervotes
        where = "/".join(x for x in (r.contest_id, r.option_id) if x)
        lines.append(f"  ! {r.code}" + (f" at {where}" if where else "") + (f": {r.detail}" if r.detail else ""))
    for n in named.named:
        lines.append(
            f"  write-in {n.contest_id}/{n.option_id} {n.name!r}: {n.effect}  [{n.decision.clause}: "
            f"{n.decision.explanation}]"
        )
    return "\n".join(lines)
