"""Server-side sessions: a random token in an HttpOnly cookie, its sha256 in the database.

Only the hash is stored, so a copy of the database does not let anyone take
over a session. A session ends after `IDLE_S` without a request or `MAX_AGE_S`
after login, whichever comes first. Each session has its own CSRF token, which
every form carries and every POST must echo.

A session may hold a *partner*: the second reviewer of a team working at the
same screen, who signed in on it with their own password (see
`tabulate.adjudicate.panels`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from ..store.sqldb import Connection
from .schema import transaction
from .sealing import USER, seal_user
from .users import User, get_user

IDLE_S = 30 * 60
MAX_AGE_S = 12 * 60 * 60


@dataclass(frozen=True)
class Session:
    token_hash: str
    user: User
    partner: User | None
    csrf: str
    created_at: float

    @property
    def members(self) -> tuple[User, ...]:
        """The people signed in on this screen: the user, then the partner if any."""
        return (self.user,) + ((self.partner,) if self.partner else ())


def _account(conn: Connection, user_id: int) -> str:
    """The seal of the signed-in account as it is now (`tabulate.adjudicate.sealing`).

    Kept with the session at sign-in and compared on every request: an account
    whose row is edited in the store file while signed in (made ``board``, say)
    loses its session instead of gaining the role. (A partner at a shared
    screen signs in with their own password, which checks their seal then.)
    """
    return seal_user(conn, user_id)[f"{USER}{user_id}"]


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_session(conn: Connection, user: User) -> tuple[str, Session]:
    """Start a session; returns the token for the cookie (never stored) and the session."""
    token = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    now = time.time()
    with transaction(conn):
        conn.execute("DELETE FROM adj_sessions WHERE last_seen < ? OR created_at < ?", (now - IDLE_S, now - MAX_AGE_S))
        conn.execute(
            "INSERT INTO adj_sessions (token_hash, user_id, csrf, created_at, last_seen, accounts) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (_hash(token), user.id, csrf, now, now, _account(conn, user.id)),
        )
    return token, Session(_hash(token), user, None, csrf, now)


def load_session(conn: Connection, token: str | None, *, touch: bool = True) -> Session | None:
    """The live session for a cookie token, or None (unknown, expired, or its user disabled)."""
    if not token or len(token) > 128:
        return None
    row = conn.execute("SELECT * FROM adj_sessions WHERE token_hash = ?", (_hash(token),)).fetchone()
    if row is None:
        return None
    now = time.time()
    if row["last_seen"] < now - IDLE_S or row["created_at"] < now - MAX_AGE_S:
        end_session(conn, token)
        return None
    user = get_user(conn, row["user_id"])
    partner = get_user(conn, row["partner_id"]) if row["partner_id"] else None
    if user is None or user.disabled or (partner is not None and partner.disabled):
        return None
    if row["accounts"] != _account(conn, user.id):
        end_session(conn, token)
        return None
    # Touch at most once a minute: a write per page view would contend with decisions.
    if touch and now - row["last_seen"] > 60:
        conn.execute("UPDATE adj_sessions SET last_seen = ? WHERE token_hash = ?", (now, row["token_hash"]))
    return Session(row["token_hash"], user, partner, row["csrf"], row["created_at"])


def end_session(conn: Connection, token: str) -> None:
    conn.execute("DELETE FROM adj_sessions WHERE token_hash = ?", (_hash(token),))


def set_partner(conn: Connection, session: Session, partner: User | None) -> None:
    conn.execute(
        "UPDATE adj_sessions SET partner_id = ? WHERE token_hash = ?",
        (partner.id if partner else None, session.token_hash),
    )


def signed_in_user_ids(conn: Connection) -> set[int]:
    """Users with a live session (as the user or as a partner at a shared screen)."""
    cutoff = time.time() - IDLE_S
    ids = set()
    for row in conn.execute("SELECT user_id, partner_id FROM adj_sessions WHERE last_seen >= ?", (cutoff,)):
        ids.add(row[0])
        if row[1]:
            ids.add(row[1])
    return ids


def csrf_ok(session: Session, submitted: str | None) -> bool:
    """Constant-time comparison of a form's CSRF token with the session's."""
    return bool(submitted) and hmac.compare_digest(session.csrf.encode(), str(submitted).encode())
