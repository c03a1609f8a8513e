"""The hand-to-eye audit's pages (31 KAR 4:230): counters enter their tallies, the board compares and finds.

- ``auditor`` (a poll worker who counts): sees the audits and enters their own
  tally of the current attempt. They never see the other counter's numbers:
  once both are in, the page says whether they match and, if not, on which
  options they differ (not by how much), and both count again.
- ``board``: sees the attempts, the comparison with the machine and the
  tape, the ballots behind each difference, and records determinations,
  signatures and annotations.

The rules (different parties, attempts, signing closes the audit) are those of
`tabulate.audit.handeye.workflow`, shared with the command line.
"""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ...audit.handeye import book, workflow
from ...audit.handeye.state import audit_state
from ...audit.handeye.tallies import TallyError, current_attempt, group_attempts, matched_tally
from ...store import sqldb
from ..source import SourceError
from .context import Ctx, endpoint, forbidden


def _may_see(ctx: Ctx) -> bool:
    return ctx.user.may("audit_count") or ctx.user.may("audit_board")


def _migrated(ctx: Ctx) -> None:
    # Creating the tables takes the write lock: only when they are missing, not on every page.
    if not sqldb.has_table(ctx.conn, "he_findings"):
        book.migrate(ctx.conn)


@endpoint(None)
def audit_list(ctx: Ctx) -> Response:
    if not _may_see(ctx):
        return forbidden(ctx, "Your role does not allow this page.")
    _migrated(ctx)
    election = ctx.source.election()
    rows = [
        {
            "id": a.id,
            "tabulator": a.tabulator,
            "race": election.contest(a.contest_id).title,
            "signed": book.signed(ctx.conn, a.id),
            "matched": matched_tally(book.tallies(ctx.conn, a.id)) is not None,
        }
        for a in book.audits(ctx.conn)
    ]
    return ctx.render("audit_list.html", audits=rows)


def _counter_view(ctx: Ctx, audit_id: int, message: str = "", problem: str = "") -> Response:
    audit = book.get_audit(ctx.conn, audit_id)
    contest = ctx.source.election().contest(audit.contest_id)
    entries = book.tallies(ctx.conn, audit_id)
    attempts = group_attempts(entries)
    matched = matched_tally(entries)
    current = current_attempt(entries)
    mine = any(e.counter.casefold() == ctx.user.name.casefold() for e in current.entries)
    last = attempts[-1] if attempts else None
    differ = (
        []
        if last is None or not last.complete or last.matched
        else [o.label for o in contest.options if o.id in last.differences]
    )
    return ctx.render(
        "audit_count.html",
        audit=audit,
        contest=contest,
        attempt=current.number,
        entered=mine,
        matched=matched,
        differ=differ,
        last=last,
        signed=book.signed(ctx.conn, audit_id),
        message=message,
        problem=problem,
    )


@endpoint(None)
def audit_page(ctx: Ctx, audit_id: int) -> Response:
    if not _may_see(ctx):
        return forbidden(ctx, "Your role does not allow this page.")
    _migrated(ctx)
    try:
        if ctx.user.may("audit_board"):
            state = audit_state(ctx.source.store, ctx.conn, audit_id)
            return ctx.render("audit_board.html", s=state, message=ctx.request.query_params.get("m", ""))
        return _counter_view(ctx, audit_id, message=ctx.request.query_params.get("m", ""))
    except book.AuditError as e:
        return forbidden(ctx, str(e), 404)


@endpoint("audit_count")
def enter(ctx: Ctx, audit_id: int) -> Response:
    """One counter's tally for the current attempt; the counter is the signed-in poll worker."""
    _migrated(ctx)
    try:
        audit = book.get_audit(ctx.conn, audit_id)
    except book.AuditError as e:  # no such audit: a page, not a server error
        return forbidden(ctx, str(e), 404)
    contest = ctx.source.election().contest(audit.contest_id)
    counts = [(o.id, str(ctx.form.get(f"c|{o.id}", "")).strip()) for o in contest.options]
    try:
        attempt = workflow.enter_tally(
            ctx.source.store,
            ctx.conn,
            audit_id,
            counter=ctx.user.name,
            party=ctx.user.party or "",
            counts=counts,
            actor=ctx.user.name,
        )
    except (TallyError, book.AuditError) as e:
        return _counter_view(ctx, audit_id, problem=str(e))
    m = "Your tally is recorded." + ("" if attempt.complete else " Waiting for the other counter.")
    return RedirectResponse(f"/audit/{audit_id}?m={m.replace(' ', '+')}", status_code=303)


@endpoint("audit_board")
def finding(ctx: Ctx, audit_id: int) -> Response:
    """A determination, the signed-in board member's signature, or an annotation."""
    _migrated(ctx)
    kind = str(ctx.form.get("kind", ""))
    text = str(ctx.form.get("text", ""))
    try:
        if kind == "signature":
            workflow.sign(
                ctx.source.store,
                ctx.conn,
                audit_id,
                member=ctx.user.name,
                party=ctx.user.party or "",
                actor=ctx.user.name,
            )
        elif kind in ("determination", "annotation"):
            book.add_finding(
                ctx.conn, audit_id, kind, ctx.user.name, text, party=ctx.user.party or "", actor=ctx.user.name
            )
        else:
            return forbidden(ctx, "Unknown kind of finding.", 400)
    except book.AuditError as e:
        return forbidden(ctx, str(e), 400)
    return RedirectResponse(f"/audit/{audit_id}?m=Recorded.", status_code=303)


@endpoint("audit_board")
def race_image(ctx: Ctx, audit_id: int, sheet_id: str) -> Response:
    """The audited race on one ballot the audit lists, as scanned (board only; no other ballot is served)."""
    from ...audit.handeye.crops import race_image as image

    sheet_id = int(sheet_id)  # the app hands every sheet id over as text
    _migrated(ctx)
    try:
        state = audit_state(ctx.source.store, ctx.conn, audit_id)
    except book.AuditError as e:
        return forbidden(ctx, str(e), 404)
    if sheet_id not in {b.sheet_id for b in state.prediction.ballots}:
        return forbidden(ctx, "This ballot is not listed by the audit.", 404)
    try:
        png = image(ctx.source, sheet_id, state.contest.id)
    except (SourceError, OSError) as e:
        return forbidden(ctx, f"No image: {e}", 410)
    if png is None:
        return forbidden(ctx, "No registered image of this race on the ballot.", 404)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, no-store"})


ROUTES = [
    Route("/audit", audit_list),
    Route("/audit/{audit_id:int}", audit_page),
    Route("/audit/{audit_id:int}/tally", enter, methods=["POST"]),
    Route("/audit/{audit_id:int}/finding", finding, methods=["POST"]),
    Route("/audit/{audit_id:int}/ballot/{sheet_id:int}.png", race_image),
]
