"""The review web app: Starlette routes, security headers, and the app factory.

Why Starlette (with Jinja2) rather than FastAPI: the app is a handful of
server-rendered HTML forms, not a JSON API; FastAPI would add pydantic and
an OpenAPI schema we would not use. Starlette gives routing, form parsing,
static files and a test client, and little else to audit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import schema
from . import (
    views_admin,
    views_audit,
    views_auth,
    views_board,
    views_explain,
    views_images,
    views_queue,
    views_review,
    views_scores,
)
from .context import AppState

#: The largest request body accepted: a review form is a few kB.
MAX_BODY_BYTES = 1_000_000

#: No inline script or style anywhere, so the policy can forbid both.
CSP = (
    "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)


class SecurityHeaders:
    """Add the same protective headers to every response; pages are never cached."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        static = scope.get("path", "").startswith("/static/")

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                extra = {
                    b"content-security-policy": CSP.encode(),
                    b"x-content-type-options": b"nosniff",
                    b"referrer-policy": b"no-referrer",
                    b"x-frame-options": b"DENY",
                    b"cross-origin-opener-policy": b"same-origin",
                }
                if not static:
                    extra[b"cache-control"] = b"no-store"
                names = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in extra.items() if k not in names]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


ROUTES = [
    Route("/", views_auth.home),
    Route("/login", views_auth.login, methods=["GET", "POST"]),
    Route("/logout", views_auth.logout, methods=["POST"]),
    Route("/progress", views_queue.progress_page),
    Route("/progress/scores/{key}.png", views_scores.scores_png),
    Route("/queue", views_queue.queue_page),
    Route("/queue/next", views_queue.next_ballot, methods=["POST"]),
    Route("/team/invite", views_queue.team_invite, methods=["POST"]),
    Route("/team/accept", views_queue.team_accept, methods=["POST"]),
    Route("/team/join", views_queue.team_join, methods=["POST"]),
    Route("/team/leave", views_queue.team_leave, methods=["POST"]),
    Route("/ballot/{sheet_id:int}", views_review.ballot_page),
    Route("/ballot/{sheet_id:int}/preview", views_review.preview, methods=["POST"]),
    Route("/ballot/{sheet_id:int}/edit", views_review.edit, methods=["POST"]),
    Route("/ballot/{sheet_id:int}/record", views_review.record, methods=["POST"]),
    Route("/ballot/{sheet_id:int}/done", views_review.done),
    Route("/ballot/{sheet_id:int}/release", views_review.release, methods=["POST"]),
    Route("/ballot/{sheet_id:int}/decided", views_board.decided),
    Route("/ballot/{sheet_id:int}/explain", views_explain.explain_page),
    Route("/explain", views_explain.find_page),
    Route("/ballot/{sheet_id:int}/reopen", views_board.reopen, methods=["POST"]),
    Route("/board", views_board.board_page),
    Route("/board/hand-entry/{sheet_id:int}", views_board.hand_entry, methods=["POST"]),
    Route("/decisions", views_board.decisions_page),
    Route("/decisions.csv", views_board.decisions_csv),
    Route("/admin/users", views_admin.users_page),
    Route("/admin/users/{name}/unlock", views_admin.user_unlock, methods=["POST"]),
    Route("/admin/users/{name}/disable", views_admin.user_disable, methods=["POST"]),
    Route("/admin/users/{name}/enable", views_admin.user_enable, methods=["POST"]),
    Route("/admin/log", views_admin.log_page),
    *views_audit.ROUTES,
    Route("/img/{sheet_id:int}/{side:int}.png", views_images.page_image),
    Route("/img/{sheet_id:int}/{side:int}/contest/{contest_id}.png", views_images.contest_image),
    Route("/img/{sheet_id:int}/{side:int}/area/{contest_id}/{option_id}/{area}.png", views_images.area_image),
    Mount("/static", StaticFiles(directory=str(Path(__file__).with_name("static"))), name="static"),
]


async def _http_error(request, exc):
    """404 and 405 as a page of the app (the user is not looked up: these pages show no data)."""
    from .context import TEMPLATES

    status = getattr(exc, "status_code", 500)
    message = {
        404: "There is no such page.",
        405: "This address takes a form sent from the app's own pages, not a visit: go back and use the "
        "button on the page.",
    }.get(status, "The request could not be answered.")
    headers = getattr(exc, "headers", None) or {}
    return TEMPLATES.TemplateResponse(
        request, "error.html", {"message": message, "status": status, "user": None}, status_code=status, headers=headers
    )


def create_app(
    db_path: str | Path, *, allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost"), secure_cookies: bool = False
) -> Starlette:
    """The review app over one store file.

    Parameters
    ----------
    db_path
        The store (a SQLite file or a postgresql:// URL); adjudication's tables are created in it if missing.
    allowed_hosts
        Host names the app answers to (the Host header); anything else gets 400,
        which stops DNS-rebinding pages from reaching a server on 127.0.0.1.
    secure_cookies
        Mark cookies Secure (set when served over HTTPS).
    """
    conn = schema.connect(db_path)
    try:
        schema.migrate(conn)
    finally:
        conn.close()
    app = Starlette(
        routes=ROUTES,
        max_body_size=MAX_BODY_BYTES,
        exception_handlers={404: _http_error, 405: _http_error},
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
            Middleware(SecurityHeaders),
        ],
    )
    app.state.review = AppState(db_path, secure_cookies=secure_cookies)
    return app
