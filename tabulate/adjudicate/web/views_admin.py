"""The administrator's pages: accounts (unlock, disable) and the audit log with its verification."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from ...store import journal_signing
from .. import auditlog, users
from .context import Ctx, endpoint, forbidden


@endpoint("users")
def users_page(ctx: Ctx) -> Response:
    return ctx.render("users.html", rows=users.list_users(ctx.conn), message=ctx.request.query_params.get("m", ""))


def _change(ctx: Ctx, name: str, action) -> Response:
    if name.casefold() == ctx.user.name.casefold():
        return forbidden(ctx, "You cannot change your own account here.", 400)
    try:
        action()
    except users.UserError as e:
        return forbidden(ctx, str(e), 404)
    return RedirectResponse("/admin/users?m=Done.", status_code=303)


@endpoint("users")
def user_unlock(ctx: Ctx, name: str) -> Response:
    return _change(ctx, name, lambda: users.unlock(ctx.conn, name, actor=ctx.user.name))


@endpoint("users")
def user_disable(ctx: Ctx, name: str) -> Response:
    return _change(ctx, name, lambda: users.set_disabled(ctx.conn, name, True, actor=ctx.user.name))


@endpoint("users")
def user_enable(ctx: Ctx, name: str) -> Response:
    return _change(ctx, name, lambda: users.set_disabled(ctx.conn, name, False, actor=ctx.user.name))


@endpoint("log")
def log_page(ctx: Ctx) -> Response:
    check = auditlog.verify(ctx.conn)
    rows = list(auditlog.entries(ctx.conn, newest_first=True, limit=300))
    # Who signed each entry, by station name: the board reading what was added since a head sees which
    # machine wrote it (docs/security.md, signed journal entries).
    registry = journal_signing.registry(ctx.conn)
    signed_by = {e.seq: (registry.name(e.signer) or "unregistered key") if e.signer else "unsigned" for e in rows}
    return ctx.render("log.html", check=check, rows=rows, signed_by=signed_by)
