"""The queue page (counts by reason, progress, filters, the ballots waiting), teams, and taking a ballot."""

from __future__ import annotations

import time
from urllib.parse import urlencode

from starlette.responses import RedirectResponse, Response

from ...core.vocabulary import REASON_WORDS
from .. import decisions, leases, panels, queue
from ..panels import TeamError
from ..queue import QueueFilter
from ..sessions import signed_in_user_ids
from ..users import LoginFailed, find_user, get_user
from .context import Ctx, endpoint, forbidden

SYNC_EVERY_S = 3.0


def refresh(ctx: Ctx, *, force: bool = False) -> None:
    """Bring new ballots from the store into the queue and retry unapplied decisions (at most every few s)."""
    state = ctx.state
    if not force and time.time() - state.last_sync < SYNC_EVERY_S:
        return
    with state.sync_lock:
        if not force and time.time() - state.last_sync < SYNC_EVERY_S:
            return
        queue.sync(ctx.conn, ctx.source)
        decisions.apply_pending(ctx.conn, ctx.source)
        state.last_sync = time.time()


def _labels(ctx: Ctx) -> dict:
    election = ctx.source.election()
    contests = {c.id: c.title for c in election.contests}
    if election.straight_party:
        contests["straight-party"] = "Straight party"
    return {
        "reason_labels": REASON_WORDS,
        "contest_titles": contests,
        "precinct_names": {p.id: p.name for p in election.precincts},
    }


@endpoint("progress")
def progress_page(ctx: Ctx) -> Response:
    refresh(ctx)
    from ..scores import score_pictures
    from .views_scores import by_of

    by = by_of(ctx)
    return ctx.render(
        "progress.html",
        progress=queue.progress(ctx.conn),
        scores=score_pictures(ctx.source, by),
        scores_by=by,
        **_labels(ctx),
    )


def _team_panel(ctx: Ctx) -> dict:
    """What the queue page shows a reviewer about forming a team."""
    if ctx.user.role != "reviewer":
        return {}
    team = panels.team_of(ctx.conn, ctx.user)
    if team is not None:
        return {"team": team}
    online = signed_in_user_ids(ctx.conn)
    candidates = []
    for uid in sorted(online - {ctx.user.id}):
        other = get_user(ctx.conn, uid)
        if other is None or other.role != "reviewer" or panels.team_of(ctx.conn, other) is not None:
            continue
        try:
            panels.check_pair(ctx.user, other)
        except TeamError:
            continue
        candidates.append(other)
    return {"team": None, "candidates": candidates, "invitations": panels.invitations_for(ctx.conn, ctx.user)}


#: Rows per page of the queue.
PAGE_ROWS = 100


@endpoint("queue")
def queue_page(ctx: Ctx) -> Response:
    refresh(ctx, force=ctx.request.query_params.get("refresh") == "1")
    flt = QueueFilter.from_params(ctx.request.query_params)
    panel = ctx.panel()
    states = ("board",) if ctx.user.role == "board" else ("open",)
    try:
        page = max(1, int(ctx.request.query_params.get("page", "1")))
    except ValueError:
        page = 1
    total = queue.count_queue(ctx.conn, states=states, flt=flt)
    page = min(page, max(1, -(-total // PAGE_ROWS)))
    rows = queue.list_queue(ctx.conn, states=states, flt=flt, limit=PAGE_ROWS, offset=(page - 1) * PAGE_ROWS)
    held = leases.current_lease(ctx.conn, panel) if panel else None
    election = ctx.source.election()
    return ctx.render(
        "queue.html",
        progress=queue.progress(ctx.conn),
        rows=rows,
        flt=flt,
        panel=panel,
        held=held,
        filters=[(k, v) for k, v in vars(flt).items() if v],
        total=total,
        page=page,
        first=(page - 1) * PAGE_ROWS + 1 if rows else 0,
        last=(page - 1) * PAGE_ROWS + len(rows),
        pages=-(-total // PAGE_ROWS),
        decided_by=election.adjudication.decided_by,
        query=urlencode({k: v for k, v in vars(flt).items() if v}),
        message=ctx.request.query_params.get("m", ""),
        **_team_panel(ctx),
        **_labels(ctx),
    )


@endpoint("decide")
def next_ballot(ctx: Ctx) -> Response:
    panel = ctx.panel()
    if panel is None:
        return RedirectResponse("/queue?m=" + "Form a team first.", status_code=303)
    refresh(ctx)
    flt = QueueFilter.from_params(ctx.form)
    sheet_id = leases.lease_next(ctx.conn, panel, ctx.user.id, flt)
    if sheet_id is None:
        return RedirectResponse(
            "/queue?m=" + "No ballot is waiting" + (" for this filter." if any(vars(flt).values()) else "."),
            status_code=303,
        )
    return RedirectResponse(f"/ballot/{sheet_id}", status_code=303)


JOIN_FAILED = (
    "Partner not signed in: the name or password is wrong, the address is waiting after failed "
    "sign-ins, or the two of you may not form a team."
)


def _back(message: str) -> Response:
    return RedirectResponse("/queue?" + urlencode({"m": message}), status_code=303)


@endpoint("team")
def team_invite(ctx: Ctx) -> Response:
    other = find_user(ctx.conn, str(ctx.form.get("name", "")))
    if other is None:
        return _back("No such reviewer.")
    try:
        panels.invite(ctx.conn, ctx.user, other)
    except TeamError as e:
        return _back(str(e))
    return _back(f"Invitation sent to {other.name}; the team is formed when they accept on their screen.")


@endpoint("team")
def team_accept(ctx: Ctx) -> Response:
    other = find_user(ctx.conn, str(ctx.form.get("name", "")))
    if other is None:
        return _back("No such reviewer.")
    try:
        team = panels.accept(ctx.conn, ctx.user, other)
    except TeamError as e:
        return _back(str(e))
    return _back("Team formed: " + " & ".join(m.label for m in team.members) + ".")


@endpoint("team")
def team_join(ctx: Ctx) -> Response:
    """The partner signs in on this screen (one screen for the team)."""
    if ctx.session.partner is not None:
        return _back("This screen already has two people signed in.")
    try:
        team = panels.join_at_screen(
            ctx.conn,
            ctx.session,
            str(ctx.form.get("name", ""))[:64],
            str(ctx.form.get("password", ""))[:1024],
            where=ctx.where(),
        )
    except (LoginFailed, TeamError):
        # One answer for every failure: a distinct one would confirm a board member's
        # password ("not an active reviewer") to whoever is at this screen. The journal
        # keeps the real reason.
        return _back(JOIN_FAILED)
    return _back(
        "Team formed at this screen: "
        + " & ".join(m.label for m in team.members)
        + ". Each of you records your own entry for every ballot."
    )


@endpoint("team")
def team_leave(ctx: Ctx) -> Response:
    team = panels.leave(ctx.conn, ctx.user)
    if team is None:
        return forbidden(ctx, "You are not in a team.", 400)
    return _back("You left the team; its ballot went back to the queue.")
