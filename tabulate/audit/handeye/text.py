"""The prediction and the comparison in words, for the terminal."""

from __future__ import annotations

from .state import AuditState


def _short(state: AuditState, option_id: str) -> str:
    return state.label(option_id).split(" (")[0]


def _change(state: AuditState, note) -> str:
    parts = [f"{_short(state, o)} {d:+d}" for o, d in note.sure.items()]
    parts += [f"{_short(state, o)} {d:+d} if the faint mark counts" for o, d in note.possible.items()]
    return ", ".join(parts) or "no change expected"


def describe_prediction(state: AuditState) -> str:
    """ "The hand count should find 3 more votes for Caldwell: these ballots" for every option."""
    p, lines = state.prediction, []
    lines.append(
        f"Audit {state.audit.id}: scanner {state.audit.tabulator}, {state.contest.title}, "
        f"{state.pile} ballots with the race"
    )
    any_change = False
    for o in p.options:
        if not (o.sure or o.low or o.high):
            continue
        any_change = True
        more = "more" if o.sure >= 0 else "fewer"
        span = "" if o.low == o.high else f" (between {o.low:+d} and {o.high:+d} depending on faint marks)"
        labels = {b.sheet_id: b.label for b in p.ballots}
        where = ", ".join(labels[sid] for sid in o.ballots + o.maybe)
        lines.append(
            f"  the hand count should find {abs(o.sure)} {more} votes for {_short(state, o.option_id)}{span}: {where}"
        )
    if not any_change:
        lines.append("  the hand count should find the same numbers as the machine")
    lines.append("Ballots to pull (batch #position):")
    for b in p.ballots:
        lines.append(f"  {b.label:<28} {_change(state, b):<36} {'; '.join(b.why)}  [{'; '.join(b.clauses)}]")
    for b in p.set_aside:
        lines.append(f"  {b.label:<28} {'set aside, not read':<36} {b.detail}")
    if not p.ballots and not p.set_aside:
        lines.append("  none")
    return "\n".join(lines)


def describe_comparison(state: AuditState) -> str:
    lines = [f"Audit {state.audit.id}: scanner {state.audit.tabulator}, {state.contest.title}"]
    for a in state.attempts:
        verdict = "match" if a.matched else (f"differ on {', '.join(a.differences)}" if a.complete else "incomplete")
        lines.append(
            f"  attempt {a.number}: " + "; ".join(f"{e.counter} ({e.party})" for e in a.entries) + f": {verdict}"
        )
    if state.comparison is None:
        lines.append("  the two tallies have not matched yet")
        return "\n".join(lines)
    tape = state.tape is not None
    lines.append(f"  {'option':<34}{'hand':>7}{'machine':>9}{'diff':>6}" + (f"{'tape':>7}{'diff':>6}" if tape else ""))
    for r in state.comparison:
        line = f"  {r.label[:33]:<34}{r.hand:>7}{r.machine:>9}{r.difference:>+6d}"
        if tape:
            line += f"{r.tape:>7}{r.tape_difference:>+6d}"
        lines.append(line)
    x = state.explanation
    lines.append(
        f"  difference {x.total_difference} votes, unexplained {x.total_unexplained} "
        f"({100 * x.share_explained:.1f} % explained by the listed ballots)"
    )
    for o in x.options:
        if o.difference or o.predicted.sure:
            labels = {b.sheet_id: b.label for b in state.prediction.ballots}
            who = ", ".join(labels[s] for s in o.predicted.ballots + o.predicted.maybe) or "none"
            lines.append(
                f"    {_short(state, o.option_id)}: {o.difference:+d}, predicted {o.predicted.sure:+d}"
                f", explained {o.explained:+d}, unexplained {o.unexplained:+d}; ballots {who}"
            )
    lines.append(
        "  the ballots named before the count are "
        + ("the same" if state.same_ballots_as_predicted else "NOT the same as now")
    )
    return "\n".join(lines)
