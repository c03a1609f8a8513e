"""Accounts, roles and passwords of the people who review ballots.

Roles (what each may do is in `PERMISSIONS`):

- ``reviewer``: a member of an adjudication team (31 KAR 4:220 §7(1): "recount
  teams of two (2) so that each team contains individuals registered of
  differing political party affiliations"), so a reviewer must have a party;
- ``board``: a member of the county board of elections, which decides
  escalated ballots by majority (4:220 §9(12)(a)) and alone may reopen a
  decided ballot;
- ``operator``: the clerk's staff who scan; sees progress, never ballots;
- ``admin``: manages accounts and reads the audit log; decides nothing.

Passwords are hashed with argon2id (argon2-cffi's defaults: 64 MiB, 3 passes),
a memory-hard function, so a stolen database does not yield passwords cheaply.
After `MAX_FAILURES` failed logins in a row an account is locked for
`LOCKOUT_S` seconds; every failure and lockout is in the audit log.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ..core.errors import TabulateError
from . import auditlog
from .schema import ROLES, transaction

MAX_FAILURES = 5
LOCKOUT_S = 15 * 60
MIN_PASSWORD_CHARS = 10

#: What each role may do. The web app checks these, never the role names.
PERMISSIONS: dict[str, frozenset[str]] = {
    "operator": frozenset({"progress"}),
    "reviewer": frozenset({"progress", "queue", "decide", "team"}),
    "board": frozenset({"progress", "queue", "decide", "board", "reopen", "decisions", "export", "explain"}),
    "admin": frozenset({"progress", "users", "log", "decisions", "export", "explain"}),
}

#: argon2-cffi's defaults are RFC 9106's second recommended option (argon2id, 64 MiB, 3 passes):
#: about 0.4 s per hash on a 2-core machine, paid once per login.
_hasher = PasswordHasher()
_dummy: dict[str, str] = {}


def _dummy_hash() -> str:
    """Verified against when the name is unknown, so a wrong name costs as long as a wrong password."""
    key = f"{_hasher.time_cost}/{_hasher.memory_cost}/{_hasher.parallelism}"
    if key not in _dummy:
        _dummy[key] = _hasher.hash("not a password of anyone")
    return _dummy[key]


class UserError(TabulateError, ValueError):
    """A request about accounts that cannot be done (a duplicate name, a missing party ...)."""

    code = "user"


class LoginFailed(TabulateError):
    """Wrong name or password, or a locked or disabled account. The message is safe to show."""

    code = "login_failed"


@dataclass(frozen=True)
class User:
    id: int
    name: str
    role: str
    party: str | None
    disabled: bool = False

    def may(self, permission: str) -> bool:
        return not self.disabled and permission in PERMISSIONS.get(self.role, frozenset())

    @property
    def label(self) -> str:
        """Name with party, as the log and the pages show a person."""
        return f"{self.name} ({self.party})" if self.party else self.name


def _user(row: sqlite3.Row | None) -> User | None:
    if row is None:
        return None
    return User(row["id"], row["name"], row["role"], row["party"], bool(row["disabled"]))


def add_user(conn: sqlite3.Connection, name: str, role: str, password: str, *, party: str | None = None,
             actor: str = "cli") -> User:
    """Create an account.

    Raises
    ------
    UserError
        Unknown role, a reviewer without a party, a short password, or a name in use.
    """
    name = name.strip()
    party = party.strip() if party else None
    if not name or len(name) > 64 or any(c in name for c in "\r\n\t/\\"):
        raise UserError("a user name must be 1 to 64 characters on one line, without / or \\")
    if role not in ROLES:
        raise UserError(f"role {role!r} is not one of {', '.join(ROLES)}")
    if role == "reviewer" and not party:
        raise UserError("a reviewer needs --party: teams pair reviewers of differing parties "
                        "(31 KAR 4:220 Section 7(1))")
    if len(password) < MIN_PASSWORD_CHARS:
        raise UserError(f"a password needs at least {MIN_PASSWORD_CHARS} characters")
    digest = _hasher.hash(password)
    with transaction(conn):
        try:
            cur = conn.execute(
                "INSERT INTO adj_users (name, role, party, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                (name, role, party, digest, auditlog._now()))
        except sqlite3.IntegrityError:
            raise UserError(f"there is already a user named {name!r}") from None
        auditlog.append(conn, actor, "user_added", detail={"user": name, "role": role, "party": party})
    return User(cur.lastrowid, name, role, party)


def get_user(conn: sqlite3.Connection, user_id: int) -> User | None:
    return _user(conn.execute("SELECT * FROM adj_users WHERE id = ?", (user_id,)).fetchone())


def find_user(conn: sqlite3.Connection, name: str) -> User | None:
    return _user(conn.execute("SELECT * FROM adj_users WHERE name = ?", (name.strip(),)).fetchone())


def list_users(conn: sqlite3.Connection) -> list[tuple[User, bool]]:
    """Every account with whether it is locked now."""
    now = time.time()
    rows = conn.execute("SELECT * FROM adj_users ORDER BY role, name").fetchall()
    return [(_user(r), bool(r["locked_until"] and r["locked_until"] > now)) for r in rows]


def board_members(conn: sqlite3.Connection) -> list[User]:
    """The enabled board accounts: the full county board whose majority decides (4:220 §9(12)(a))."""
    rows = conn.execute("SELECT * FROM adj_users WHERE role = 'board' AND disabled = 0 ORDER BY name")
    return [_user(r) for r in rows]


def authenticate(conn: sqlite3.Connection, name: str, password: str, *, where: str = "") -> User:
    """Check a name and password; count failures and lock the account after `MAX_FAILURES`.

    The password is verified outside any transaction (argon2 takes tens of
    milliseconds and would hold the write lock); only the bookkeeping is
    written in one.

    Raises
    ------
    LoginFailed
        With a message that does not say whether the name exists.
    """
    row = conn.execute("SELECT * FROM adj_users WHERE name = ?", (name.strip(),)).fetchone()
    now = time.time()
    ok = False
    try:
        ok = _hasher.verify(row["password_hash"] if row else _dummy_hash(), password) and row is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        ok = False
    if row is None:
        auditlog.append(conn, name.strip()[:64] or "?", "login_failed", detail={"why": "unknown user", "from": where})
        raise LoginFailed("wrong name or password")
    if row["disabled"]:
        auditlog.append(conn, row["name"], "login_failed", detail={"why": "account disabled", "from": where})
        raise LoginFailed("this account is disabled; ask an administrator")
    if row["locked_until"] and row["locked_until"] > now:
        auditlog.append(conn, row["name"], "login_failed", detail={"why": "account locked", "from": where})
        minutes = max(1, round((row["locked_until"] - now) / 60))
        raise LoginFailed(f"too many failed logins: this account is locked for {minutes} more minute(s)")
    with transaction(conn):
        if not ok:
            failures = conn.execute("UPDATE adj_users SET failed_logins = failed_logins + 1 WHERE id = ? "
                                    "RETURNING failed_logins", (row["id"],)).fetchone()[0]
            auditlog.append(conn, row["name"], "login_failed",
                            detail={"why": "wrong password", "failures": failures, "from": where})
            if failures >= MAX_FAILURES:
                conn.execute("UPDATE adj_users SET locked_until = ?, failed_logins = 0 WHERE id = ?",
                             (now + LOCKOUT_S, row["id"]))
                auditlog.append(conn, row["name"], "lockout", detail={"seconds": LOCKOUT_S, "from": where})
        else:
            conn.execute("UPDATE adj_users SET failed_logins = 0, locked_until = NULL WHERE id = ?", (row["id"],))
            if _hasher.check_needs_rehash(row["password_hash"]):
                conn.execute("UPDATE adj_users SET password_hash = ? WHERE id = ?",
                             (_hasher.hash(password), row["id"]))
    if not ok:
        raise LoginFailed("wrong name or password")
    return _user(row)


def unlock(conn: sqlite3.Connection, name: str, *, actor: str) -> User:
    """Clear a lockout (an administrator's job)."""
    with transaction(conn):
        row = conn.execute("UPDATE adj_users SET locked_until = NULL, failed_logins = 0 WHERE name = ? "
                           "RETURNING *", (name,)).fetchone()
        if row is None:
            raise UserError(f"no user named {name!r}")
        auditlog.append(conn, actor, "user_unlocked", detail={"user": row["name"]})
    return _user(row)


def set_disabled(conn: sqlite3.Connection, name: str, disabled: bool, *, actor: str) -> User:
    """Disable (or enable) an account; a disabled account's sessions end."""
    with transaction(conn):
        row = conn.execute("UPDATE adj_users SET disabled = ? WHERE name = ? RETURNING *",
                           (int(disabled), name)).fetchone()
        if row is None:
            raise UserError(f"no user named {name!r}")
        if disabled:
            conn.execute("DELETE FROM adj_sessions WHERE user_id = ? OR partner_id = ?", (row["id"], row["id"]))
        auditlog.append(conn, actor, "user_disabled" if disabled else "user_enabled", detail={"user": row["name"]})
    return _user(row)
