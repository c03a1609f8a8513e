"""Signing in and out.

The login form has its own CSRF token before any session exists: a random
value in a SameSite=Strict, HttpOnly cookie that the form must echo, so
another site cannot sign a browser in to an account of its choosing.
"""

from __future__ import annotations

import secrets

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import auditlog, panels
from ..sessions import create_session, end_session, load_session
from ..users import LoginFailed, User, authenticate
from .context import COOKIE, PRELOGIN_COOKIE, TEMPLATES, AppState, Ctx, endpoint, read_form


def home_for(user: User) -> str:
    if user.may("queue"):
        return "/queue"
    if user.may("users"):
        return "/admin/users"
    if user.may("audit_count"):
        return "/audit"
    return "/progress"


def _safe_next(target: str | None) -> str | None:
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return None


def _cookie(response: Response, state: AppState, name: str, value: str, max_age: int | None = None) -> None:
    response.set_cookie(
        name, value, max_age=max_age, httponly=True, samesite="strict", secure=state.secure_cookies, path="/"
    )


def _login_page(request: Request, state: AppState, message: str = "", status: int = 200) -> Response:
    token = secrets.token_urlsafe(32)
    response = TEMPLATES.TemplateResponse(
        request,
        "login.html",
        {"csrf": token, "message": message, "next": _safe_next(request.query_params.get("next")) or "", "user": None},
        status_code=status,
    )
    _cookie(response, state, PRELOGIN_COOKIE, token, max_age=3600)
    return response


async def login(request: Request) -> Response:
    state: AppState = request.app.state.review
    if request.method == "GET":

        def check():
            return load_session(state.conn(), request.cookies.get(COOKIE), touch=False)

        session = await run_in_threadpool(check)
        if session is not None:
            return RedirectResponse(home_for(session.user), status_code=303)
        return _login_page(request, state)
    form = await read_form(request)
    expected = request.cookies.get(PRELOGIN_COOKIE)
    if not expected or not secrets.compare_digest(expected, str(form.get("csrf", ""))):
        return _login_page(request, state, "The sign-in form expired. Please sign in again.", 403)
    where = request.client.host if request.client else ""

    def attempt():
        conn = state.conn()
        user = authenticate(conn, str(form.get("name", ""))[:64], str(form.get("password", ""))[:1024], where=where)
        token, _ = create_session(conn, user)
        auditlog.append(conn, user.name, "login", detail={"from": where, "role": user.role})
        return user, token

    try:
        user, token = await run_in_threadpool(attempt)
    except LoginFailed as e:
        return _login_page(request, state, str(e), 401)
    response = RedirectResponse(_safe_next(str(form.get("next", ""))) or home_for(user), status_code=303)
    _cookie(response, state, COOKIE, token)
    response.delete_cookie(PRELOGIN_COOKIE, path="/")
    return response


@endpoint(None)
def logout(ctx: Ctx) -> Response:
    for member in ctx.session.members:
        if member.role == "reviewer":
            panels.leave(ctx.conn, member)
    end_session(ctx.conn, ctx.request.cookies.get(COOKIE, ""))
    auditlog.append(ctx.conn, ctx.user.name, "logout", detail={"from": ctx.where()})
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


@endpoint(None)
def home(ctx: Ctx) -> Response:
    return RedirectResponse(home_for(ctx.user), status_code=303)
