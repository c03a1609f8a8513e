"""``tabulate votes``: apply 31 KAR 6:030 to ballots given as marks, and explain every vote."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..election import Election, load_election
from ..rules import BallotVotes, MarksError, apply_rules, cite, parse_marks, votes_to_dict
from .errors import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "votes", help="apply the uniform definition of a vote to ballots given as marks (JSON)",
        description="Read ballots given as marks (docs/marks.md), apply 31 KAR 6:030 and print each ballot's "
                    "votes, contest statuses, the clauses that decided them and the reasons a person must look.")
    p.add_argument("--election", required=True, metavar="ELECTION.json", help="the election definition")
    p.add_argument("--marks", required=True, metavar="MARKS.json", help="the ballots' marks (docs/marks.md)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run)


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
    results = [apply_rules(election, b) for b in ballots]
    if args.json:
        print(json.dumps({"election": election.hash, "ballots": [votes_to_dict(v) for v in results]},
                         indent=1, ensure_ascii=False))
        return 0
    for votes in results:
        print(format_ballot(election, votes))
    review = sum(v.needs_review for v in results)
    print(f"{len(results)} ballot(s); {review} need(s) a person")
    return 0


def format_ballot(election: Election, votes: BallotVotes) -> str:
    """A ballot's votes as text a clerk can read."""
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
        chosen = ", ".join(f"{labels[s]} [{s}]" if s.startswith("write-in") else labels.get(s, s)
                           for s in cv.selections) or "-"
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
    return "\n".join(lines)
