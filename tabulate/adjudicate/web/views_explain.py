"""``/ballot/<id>/explain``: one ballot explained end to end, for the board and the administrator.

The page reads the same model as ``tabulate explain`` (`tabulate.adjudicate.explanation`),
so the screen and the terminal tell a lawyer the same story.
"""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from ...store import sqldb
from ..explanation import BallotNotFound, explain_ballot, find_sheet
from .context import Ctx, endpoint, forbidden


def _zoom_url(sheet_id: str, images, page: int | None, contest_id: str) -> str | None:
    side = next((i["side"] for i in images if i["page"] == {1: "front", 2: "back"}.get(page)), None)
    return f"/img/{sheet_id}/{side}/contest/{contest_id}.png" if side is not None else None


@endpoint("explain")
def explain_page(ctx: Ctx, sheet_id: str) -> Response:
    try:
        exp = explain_ballot(ctx.source.store, ctx.conn, int(sheet_id))
    except (KeyError, ValueError, *sqldb.database_errors()):
        return forbidden(ctx, f"There is no sheet {sheet_id} in the store.", 404)
    zooms = {c.contest_id: _zoom_url(sheet_id, exp.images, c.page, c.contest_id) for c in exp.contests}
    return ctx.render("explain.html", exp=exp, zooms=zooms)


@endpoint("explain")
def find_page(ctx: Ctx) -> Response:
    """Find a ballot by what is written on the paper's tub (batch · position), its sheet id or its hash."""
    typed = str(ctx.request.query_params.get("ballot", "")).strip()[:200]
    if not typed:
        return ctx.render("explain_find.html", typed="", problem="")
    try:
        sheet_id = find_sheet(ctx.source.store, typed)
    except BallotNotFound as e:
        return ctx.render("explain_find.html", typed=typed, problem=str(e), status_code=404)
    return RedirectResponse(f"/ballot/{sheet_id}/explain", status_code=303)
