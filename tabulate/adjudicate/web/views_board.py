"""The county board's pages: decided ballots and reopening, ballots to enter by hand, decisions and export."""

from __future__ import annotations

import io

from starlette.responses import RedirectResponse, Response

from ...core.vocabulary import ballot_reference
from ...report.csvsafe import writer as csv_writer
from .. import auditlog, decisions, queue
from ..entries import DecisionError
from ..explain import contest_outcome
from ..hand_entry import hand_entry_candidates, set_aside_for_hand_entry
from ..records import votes_from_dict
from ..source import SourceError
from .context import Ctx, endpoint, forbidden
from .views_queue import refresh


def _summary(ctx: Ctx, d: decisions.Decision) -> list[dict]:
    """Per contest: the machine's outcome, the decided one, and whether they differ."""
    election = ctx.source.election()
    after = votes_from_dict(d.after)
    write_ins = {tuple(k.split("/", 1)): v for k, v in d.write_ins.items()}
    before = d.before.get("votes") or {}
    before_by = {c["contest_id"]: c for c in before.get("contests", [])}
    rows = []
    for cv in after.contests:
        contest = election.contest(cv.contest_id)
        b = before_by.get(cv.contest_id)
        was = ""
        if b is not None:
            was = contest_outcome(contest, votes_from_dict({**before, "contests": [b]}).contests[0], {})
        now = contest_outcome(contest, cv, write_ins)
        rows.append({"title": contest.title, "before": was, "after": now, "changed": bool(b) and was != now})
    return rows


def _places(ctx: Ctx) -> dict[str, str]:
    """Each queued ballot's reference "batch · position", by sheet id."""
    return {
        r[0]: ballot_reference(r[1], r[2])
        for r in ctx.conn.execute("SELECT sheet_id, batch, position FROM adj_ballots")
    }


@endpoint("queue")
def decided(ctx: Ctx, sheet_id: str) -> Response:
    """A decided ballot: who decided what, when and why; the board may reopen it."""
    row = queue.queue_row(ctx.conn, sheet_id)
    if row is None:
        return forbidden(ctx, f"Ballot {sheet_id} is not in the review queue.", 404)
    current = [d for d in decisions.decisions(ctx.conn, sheet_id=sheet_id) if d.reopened_at is None]
    if row.state != "decided" or not current:
        return RedirectResponse(f"/ballot/{sheet_id}", status_code=303)
    d = current[-1]
    if not ctx.user.may("board"):
        # A reviewer sees the decision their own team made, not another team's (its members, its
        # note, which may quote the voter's write-in): ballot ids are small numbers anyone can count.
        panel = ctx.panel()
        if panel is None or panel.key != d.panel:
            return forbidden(ctx, f"Ballot {sheet_id} was decided by another team; its decision is for the board.")
        return ctx.render("decided.html", row=row, decision=d, summary=[], history=[], may_reopen=False)
    history = list(auditlog.entries(ctx.conn, sheet_id=sheet_id))
    return ctx.render(
        "decided.html",
        row=row,
        decision=d,
        summary=_summary(ctx, d),
        history=history,
        earlier=[x for x in decisions.decisions(ctx.conn, sheet_id=sheet_id) if x.reopened_at],
        may_reopen=ctx.user.may("reopen"),
    )


@endpoint("reopen")
def reopen(ctx: Ctx, sheet_id: str) -> Response:
    try:
        new_round = decisions.reopen(ctx.conn, ctx.source, sheet_id, ctx.user, str(ctx.form.get("reason", "")))
    except DecisionError as e:
        return forbidden(ctx, "; ".join(e.problems), 400)
    return RedirectResponse(f"/board?m=Ballot+{sheet_id}+reopened+for+the+board+(round+{new_round}).", status_code=303)


@endpoint("board")
def board_page(ctx: Ctx) -> Response:
    refresh(ctx)
    election = ctx.source.election()
    recent = decisions.decisions(ctx.conn, current_only=True)[-50:][::-1]
    return ctx.render(
        "board.html",
        candidates=hand_entry_candidates(ctx.conn, ctx.source),
        recent=recent,
        progress=queue.progress(ctx.conn),
        message=ctx.request.query_params.get("m", ""),
        decided_by=election.adjudication.decided_by,
        places=_places(ctx),
    )


@endpoint("board")
def hand_entry(ctx: Ctx, sheet_id: str) -> Response:
    try:
        set_aside_for_hand_entry(
            ctx.conn, ctx.source, sheet_id, actor=ctx.user.name, attempts_confirmed=ctx.form.get("attempts") == "1"
        )
    except ValueError as e:
        return forbidden(ctx, str(e), 400)
    except SourceError as e:  # a sheet id the store does not hold: a page, not a server error
        return forbidden(ctx, str(e), 404)
    return RedirectResponse("/board?m=Ballot+set+aside+for+entry+by+hand.", status_code=303)


@endpoint("decisions")
def decisions_page(ctx: Ctx) -> Response:
    return ctx.render("decisions.html", rows=decisions.decisions(ctx.conn)[::-1], places=_places(ctx))


@endpoint("export")
def decisions_csv(ctx: Ctx) -> Response:
    """Every decision, reopened ones included, as CSV; the export is logged."""
    rows = decisions.decisions(ctx.conn)
    buf = io.StringIO()
    out = csv_writer(buf)
    places = _places(ctx)
    out.writerow(
        [
            "decision",
            "sheet_id",
            "reference",
            "ballot",
            "round",
            "decided_by",
            "members",
            "created_at",
            "manual",
            "note",
            "changed_contests",
            "write_ins",
            "reopened_at",
            "reopen_reason",
        ]
    )
    for d in rows:
        before = {c["contest_id"]: c for c in (d.before.get("votes") or {}).get("contests", [])}
        changed = [
            c["contest_id"]
            for c in d.after["contests"]
            if before.get(c["contest_id"], {}).get("selections") != c["selections"]
            or before.get(c["contest_id"], {}).get("status") != c["status"]
        ]
        out.writerow(
            [
                d.id,
                d.sheet_id,
                places.get(d.sheet_id, ""),
                d.after.get("ballot_id", ""),
                d.round,
                d.decided_by,
                " & ".join(d.members),
                d.created_at,
                d.entry.manual,
                d.entry.note,
                " ".join(changed),
                " ".join(f"{k}={v or 'not_counted'}" for k, v in d.write_ins.items()),
                d.reopened_at or "",
                d.reopen_reason or "",
            ]
        )
    auditlog.append(
        ctx.conn, ctx.user.name, "export", detail={"what": "decisions.csv", "rows": len(rows), "from": ctx.where()}
    )
    return Response(
        buf.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="decisions.csv"'},
    )
