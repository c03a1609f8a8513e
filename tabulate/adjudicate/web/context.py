"""Per-request plumbing: the database, the signed-in people, permission and CSRF checks.

Every endpoint is wrapped by `endpoint`, which

- opens (per worker thread) the adjudication connection and the store;
- loads the session from its cookie, and refuses an anonymous request (a
  page redirects to the login, anything else gets 401);
- refuses a user whose role lacks the endpoint's permission (403);
- on POST, reads the form and refuses it unless its ``csrf`` field equals
  the session's token (403);
- runs the handler in a worker thread (SQLite and argon2 block).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.templating import Jinja2Templates

from ...core.text import visible_text
from ...store.sqldb import Connection
from .. import panels, schema
from ..explain import when_words
from ..panels import Panel
from ..sessions import Session, csrf_ok, load_session
from ..source import StoreSource
from ..users import User

COOKIE = "tabulate_session"
PRELOGIN_COOKIE = "tabulate_prelogin"
MAX_FORM_FIELDS = 2000

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))


def _when_tag(ts: str | None) -> Markup:
    """A stored UTC time as ``<time>``: local time to the second (review.js shows the browser's zone)."""
    if not ts:
        return Markup("")
    return Markup('<time datetime="{}">{}</time>').format(ts, when_words(ts))


def _shown(value: Any) -> Any:
    """Every ``{{ value }}`` a page prints: no bidi override or invisible character reaches the screen.

    Names come from many hands (batch names typed at the scanner, write-in names and notes typed by
    one party and read by the other, the election file): a right-to-left override in any of them would
    show one thing and mean another. Autoescaping already stops markup; this stops the spoof.
    """
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return visible_text(value)
    return value


TEMPLATES.env.finalize = _shown
TEMPLATES.env.filters["when_tag"] = _when_tag
TEMPLATES.env.filters["when"] = when_words


class AppState:
    """What the app holds between requests: where the database is, one connection per thread."""

    def __init__(self, db_path: str | Path, *, secure_cookies: bool = False):
        self.db_path = str(db_path)
        self.secure_cookies = secure_cookies
        self._local = threading.local()
        self.election = None
        self.last_sync = 0.0
        self.sync_lock = threading.Lock()

    def conn(self) -> Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = schema.connect(self.db_path)
        return conn

    def source(self) -> StoreSource:
        src = getattr(self._local, "source", None)
        if src is None:
            from ...store import open_store

            src = StoreSource(open_store(self.db_path, create=False))
            if self.election is not None:
                src._election = self.election
            else:
                self.election = src.election()
            self._local.source = src
        return src


@dataclass
class Ctx:
    """One request's view of who is asking."""

    request: Request
    state: AppState
    conn: Connection
    session: Session
    form: dict[str, Any]

    @property
    def user(self) -> User:
        return self.session.user

    @property
    def source(self) -> StoreSource:
        return self.state.source()

    def panel(self) -> Panel | None:
        board_size = self.source.election().adjudication.board_members if self.user.role == "board" else None
        return panels.panel_for(self.conn, self.user, board_size=board_size)

    def render(self, template: str, status_code: int = 200, **values) -> Response:
        values.setdefault("user", self.user)
        values.setdefault("session", self.session)
        values.setdefault("csrf", self.session.csrf)
        return TEMPLATES.TemplateResponse(self.request, template, values, status_code=status_code)

    def where(self) -> str:
        client = self.request.client
        return client.host if client else ""


def forbidden(ctx_or_request, message: str, status: int = 403) -> Response:
    request = ctx_or_request.request if isinstance(ctx_or_request, Ctx) else ctx_or_request
    return TEMPLATES.TemplateResponse(
        request,
        "error.html",
        {"message": message, "status": status, "user": getattr(ctx_or_request, "user", None)},
        status_code=status,
    )


#: Fields kept exactly as typed: a password is compared, never shown.
VERBATIM_FIELDS = frozenset({"password"})


async def read_form(request: Request) -> dict[str, Any]:
    """The form as a dict; a repeated field becomes a list.

    Every value but a password loses its invisible and direction-changing characters
    (`tabulate.core.text.visible_text`) before anything reads it: a write-in name, a note or a
    reason is stored as the person saw it, and shown to the other party the same way.
    """
    form = await request.form(max_files=0, max_fields=MAX_FORM_FIELDS)
    out: dict[str, Any] = {}
    for key, value in form.multi_items():
        if not isinstance(value, str):
            continue
        if key not in VERBATIM_FIELDS:
            value = visible_text(value)
        if key in out:
            out[key] = (out[key] if isinstance(out[key], list) else [out[key]]) + [value]
        else:
            out[key] = value
    return out


def endpoint(permission: str | None) -> Callable:
    """Wrap a handler ``fn(ctx, **path_params) -> Response`` with the checks in the module docstring."""

    def wrap(fn: Callable[..., Response]) -> Callable:
        async def handle(request: Request) -> Response:
            state: AppState = request.app.state.review
            form = await read_form(request) if request.method == "POST" else {}

            def run() -> Response:
                conn = state.conn()
                session = load_session(conn, request.cookies.get(COOKIE))
                if session is None:
                    if request.method == "GET":
                        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                        return RedirectResponse(f"/login?next={quote(target)}", status_code=303)
                    return PlainTextResponse("Sign in first.", status_code=401)
                ctx = Ctx(request, state, conn, session, form)
                if permission is not None and not session.user.may(permission):
                    return forbidden(ctx, "Your role does not allow this page.")
                if request.method == "POST" and not csrf_ok(session, form.get("csrf")):
                    return forbidden(
                        ctx,
                        "This form has expired or did not come from this site "
                        "(its CSRF token is missing or wrong). Go back, reload and try again.",
                    )
                params = {k: (str(v) if k == "sheet_id" else v) for k, v in request.path_params.items()}
                return fn(ctx, **params)

            return await run_in_threadpool(run)

        handle.__name__ = fn.__name__
        return handle

    return wrap
