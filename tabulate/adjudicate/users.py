"""Accounts, roles and passwords of the people who review ballots.

Roles (what each may do is in `PERMISSIONS`):

- ``reviewer``: a member of an adjudication team (31 KAR 4:220 §7(1): "recount
  teams of two (2) so that each team contains individuals registered of
  differing political party affiliations"), so a reviewer must have a party;
- ``board``: a member of the county board of elections, which decides
  escalated ballots by majority (4:220 §9(12)(a)) and alone may reopen a
  decided ballot;
- ``operator``: the clerk's staff who scan; sees progress, never ballots;
- ``admin``: manages accounts and reads the audit log; decides nothing;
- ``auditor``: a poll worker who hand-tallies in a hand-to-eye audit (31 KAR
  4:230 §2(1)); enters their own tally and sees nothing else. The two
  counters must not be of the same party, so an auditor must have a party.

Passwords are hashed with argon2id (argon2-cffi's defaults: 64 MiB, 3 passes),
a memory-hard function, so a stolen database does not yield passwords cheaply.
Failed sign-ins are throttled per client address with growing delays
(`delay_after`), never by locking the account (which let anyone who could
reach the port lock every account); at most `HASH_SLOTS` passwords are hashed
at once. Every failure and throttle is in the journal.
"""

from __future__ import annotations

import threading
import time
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ..core.errors import TabulateError
from ..store.sqldb import Connection, IntegrityError, Row
from . import auditlog
from .names import NameRefused, election_party, normal_name, party_key, skeleton
from .schema import ROLES, transaction
from .sealing import seal_user, user_seal_problem

#: Failed sign-ins from one address before any delay; then `BASE_DELAY_S`, doubling, up to `MAX_DELAY_S`.
FREE_FAILURES = 3
BASE_DELAY_S = 2.0
MAX_DELAY_S = 15 * 60
#: An address's failures are forgotten after this long without one.
THROTTLE_WINDOW_S = 60 * 60
#: Password hashes computed at once (argon2id takes 64 MiB each: 60 parallel logins took 1.7 GB).
HASH_SLOTS = 2
#: How long a sign-in waits for a hashing slot before the server says it is busy.
HASH_WAIT_S = 30.0
MIN_PASSWORD_CHARS = 10

#: What each role may do. The web app checks these, never the role names.
PERMISSIONS: dict[str, frozenset[str]] = {
    "operator": frozenset({"progress"}),
    "reviewer": frozenset({"progress", "queue", "decide", "team"}),
    "board": frozenset(
        {"progress", "queue", "decide", "board", "reopen", "decisions", "export", "audit_board", "explain"}
    ),
    "admin": frozenset({"progress", "users", "log", "decisions", "export", "explain"}),
    "auditor": frozenset({"audit_count", "explain"}),
}

#: argon2-cffi's defaults are RFC 9106's second recommended option (argon2id, 64 MiB, 3 passes):
#: about 0.4 s per hash on a 2-core machine, paid once per login.
_hasher = PasswordHasher()
_dummy: dict[str, str] = {}


class HashGauge:
    """A bounded semaphore for password hashing that also counts, so tests can see how many hashed at once."""

    def __init__(self, slots: int):
        self._slots = threading.BoundedSemaphore(slots)
        self._lock = threading.Condition()
        self.waiting = self.inside = self.high_water = 0

    def acquire(self, timeout: float) -> bool:
        with self._lock:
            self.waiting += 1
            self._lock.notify_all()
        got = self._slots.acquire(timeout=timeout)
        with self._lock:
            self.waiting -= 1
            if got:
                self.inside += 1
                self.high_water = max(self.high_water, self.inside)
            self._lock.notify_all()
        return got

    def release(self) -> None:
        with self._lock:
            self.inside -= 1
            self._lock.notify_all()
        self._slots.release()

    def wait_until(self, predicate, timeout: float = 30.0) -> bool:
        """Block until ``predicate(gauge)`` holds (a deterministic hook for tests)."""
        with self._lock:
            return self._lock.wait_for(lambda: predicate(self), timeout=timeout)


HASH_GAUGE = HashGauge(HASH_SLOTS)


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


def _user(row: Row | None) -> User | None:
    if row is None:
        return None
    return User(row["id"], row["name"], row["role"], row["party"], bool(row["disabled"]))


def add_user(
    conn: Connection,
    name: str,
    role: str,
    password: str,
    *,
    party: str | None = None,
    actor: str = "cli",
    parties: Sequence | None = None,
) -> User:
    """Create an account.

    ``parties`` are the election's parties: given, ``party`` must name one of
    them and the account keeps its id (`tabulate.adjudicate.names`).

    Raises
    ------
    UserError
        Unknown role, a reviewer without a party, a party not in the election, a short password, a name
        outside the safe character set, or a name in use or looking like one in use.
    """
    try:
        name = normal_name(name)
        party = (
            (election_party(party, parties) if parties is not None else party_key(party).upper())
            if party and party.strip()
            else None
        )
    except NameRefused as e:
        raise UserError(str(e)) from None
    look = skeleton(name)
    for (other,) in conn.execute("SELECT name FROM adj_users"):
        if skeleton(other) == look and other.casefold() != name.casefold():
            raise UserError(f"{name!r} looks like the existing user {other!r}: choose a name no one can confuse")
    if role not in ROLES:
        raise UserError(f"role {role!r} is not one of {', '.join(ROLES)}")
    if role == "reviewer" and not party:
        raise UserError(
            "a reviewer needs --party: teams pair reviewers of differing parties (31 KAR 4:220 Section 7(1))"
        )
    if role == "auditor" and not party:
        raise UserError("an auditor needs --party: the two hand-to-eye counters must not be of the same party")
    if len(password) < MIN_PASSWORD_CHARS:
        raise UserError(f"a password needs at least {MIN_PASSWORD_CHARS} characters")
    digest = _hasher.hash(password)
    with transaction(conn):
        try:
            cur = conn.execute(
                "INSERT INTO adj_users (name, role, party, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                (name, role, party, digest, auditlog._now()),
            )
        except IntegrityError:
            raise UserError(f"there is already a user named {name!r}") from None
        auditlog.append(
            conn,
            actor,
            "user_added",
            detail={"user": name, "role": role, "party": party},
            facts=seal_user(conn, cur.lastrowid),
        )
    return User(cur.lastrowid, name, role, party)


def get_user(conn: Connection, user_id: int) -> User | None:
    return _user(conn.execute("SELECT * FROM adj_users WHERE id = ?", (user_id,)).fetchone())


def find_user(conn: Connection, name: str) -> User | None:
    return _user(
        conn.execute(
            "SELECT * FROM adj_users WHERE name = ?", (unicodedata.normalize("NFKC", name).strip(),)
        ).fetchone()
    )


def list_users(conn: Connection) -> list[tuple[User, bool]]:
    """Every account with whether it is locked now."""
    now = time.time()
    rows = conn.execute("SELECT * FROM adj_users ORDER BY role, name").fetchall()
    return [(_user(r), bool(r["locked_until"] and r["locked_until"] > now)) for r in rows]


def board_members(conn: Connection) -> list[User]:
    """The enabled board accounts: the full county board whose majority decides (4:220 §9(12)(a))."""
    rows = conn.execute("SELECT * FROM adj_users WHERE role = 'board' AND disabled = 0 ORDER BY name")
    return [_user(r) for r in rows]


def delay_after(failures: int) -> float:
    """Seconds an address waits after ``failures`` failed sign-ins in a row: none for the first few, then doubling."""
    if failures <= FREE_FAILURES:
        return 0.0
    return min(MAX_DELAY_S, BASE_DELAY_S * 2 ** (failures - FREE_FAILURES - 1))


def _reserve(conn: Connection, address: str, now: float) -> int:
    """Check the address's throttle and count this attempt as a failure, in one transaction.

    Counting *before* the password is checked is what makes the throttle
    hold under parallel guesses: each guess that gets through has already
    moved ``next_allowed`` for the next one (issue 10: twenty parallel
    guesses were all checked because the lock was read outside the
    transaction). A correct password gives its reservation back.
    """
    with transaction(conn):
        row = conn.execute(
            "SELECT failures, next_allowed, last_at FROM adj_throttle WHERE address = ?", (address,)
        ).fetchone()
        failures = 0 if row is None or now - row["last_at"] > THROTTLE_WINDOW_S else row["failures"]
        if row is not None and failures and now < row["next_allowed"]:
            raise LoginFailed(
                f"too many failed sign-ins from this address: try again in {max(1, round(row['next_allowed'] - now))} s"
            )
        failures += 1
        conn.execute(
            "INSERT INTO adj_throttle (address, failures, next_allowed, last_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (address) DO UPDATE SET failures = excluded.failures, "
            "next_allowed = excluded.next_allowed, last_at = excluded.last_at",
            (address, failures, now + delay_after(failures), now),
        )
    return failures


def _password_matches(stored: str, password: str) -> bool:
    """argon2 verification, at most `HASH_SLOTS` at once (64 MiB each: a flood must not exhaust memory)."""
    if not HASH_GAUGE.acquire(timeout=HASH_WAIT_S):
        raise LoginFailed("the server is busy signing people in: try again in a moment")
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
    finally:
        HASH_GAUGE.release()


def authenticate(conn: Connection, name: str, password: str, *, where: str = "", clock=time.time) -> User:
    """Check a name and password; throttle the client address (not the account) after repeated failures.

    Failures are counted per address (`delay_after`), so a stranger who can
    reach the port cannot lock a real user out, and counted atomically with
    the check (`_reserve`). Hashing is bounded by a semaphore. The password is
    verified outside any transaction (argon2 would hold the write lock).

    Raises
    ------
    LoginFailed
        With a message that does not say whether the name exists or the password was right,
        except to someone who gave the right password of a disabled account.
    """
    address = where or "local"
    failures = _reserve(conn, address, clock())
    row = conn.execute(
        "SELECT * FROM adj_users WHERE name = ?", (unicodedata.normalize("NFKC", name).strip(),)
    ).fetchone()
    ok = _password_matches(row["password_hash"] if row else _dummy_hash(), password) and row is not None
    with transaction(conn):
        if not ok:
            why = "unknown user" if row is None else "wrong password"
            auditlog.append(
                conn,
                (row["name"] if row else name.strip()[:64]) or "?",
                "login_failed",
                detail={"why": why, "failures": failures, "from": address},
            )
            if delay_after(failures) > 0:
                auditlog.append(
                    conn,
                    "system",
                    "throttled",
                    detail={"from": address, "failures": failures, "seconds": delay_after(failures)},
                )
        else:
            # Give back this attempt's reservation (not the earlier failures: a guesser holding one
            # valid account must not reset their own throttle by signing in).
            conn.execute(
                "UPDATE adj_throttle SET failures = CASE WHEN failures > 0 THEN failures - 1 ELSE 0 END, next_allowed = ? WHERE address = ?",
                (clock() + delay_after(failures - 1), address),
            )
            if row["disabled"]:
                auditlog.append(conn, row["name"], "login_failed", detail={"why": "account disabled", "from": address})
            elif _hasher.check_needs_rehash(row["password_hash"]):
                conn.execute("UPDATE adj_users SET password_hash = ? WHERE id = ?", (_hasher.hash(password), row["id"]))
                auditlog.append(
                    conn,
                    row["name"],
                    "password_rehashed",
                    detail={"user": row["name"]},
                    facts=seal_user(conn, row["id"]),
                )
    if not ok:
        raise LoginFailed("wrong name or password")
    if row["disabled"]:
        raise LoginFailed("this account is disabled; ask an administrator")
    tampered = user_seal_problem(conn, row["id"])
    if tampered is not None:
        # Someone with the store file made an account (or its role, party or password) by hand.
        auditlog.append(conn, row["name"], "login_failed", detail={"why": tampered, "from": address})
        raise LoginFailed(f"{tampered}; ask an administrator to run `tabulate verify`")
    return _user(row)


def unlock(conn: Connection, name: str, *, actor: str) -> User:
    """Lift the sign-in waits for a user who is stuck behind them (an administrator's job).

    Accounts are no longer locked; this clears every address's throttle (the
    user's desk among them) and any lock left by an older tabulate.
    """
    with transaction(conn):
        row = conn.execute(
            "UPDATE adj_users SET locked_until = NULL, failed_logins = 0 WHERE name = ? RETURNING *", (name,)
        ).fetchone()
        if row is None:
            raise UserError(f"no user named {name!r}")
        conn.execute("DELETE FROM adj_throttle")
        auditlog.append(conn, actor, "user_unlocked", detail={"user": row["name"], "throttles_cleared": True})
    return _user(row)


def set_disabled(conn: Connection, name: str, disabled: bool, *, actor: str) -> User:
    """Disable (or enable) an account; a disabled account's sessions end."""
    with transaction(conn):
        row = conn.execute(
            "UPDATE adj_users SET disabled = ? WHERE name = ? RETURNING *", (int(disabled), name)
        ).fetchone()
        if row is None:
            raise UserError(f"no user named {name!r}")
        if disabled:
            conn.execute("DELETE FROM adj_sessions WHERE user_id = ? OR partner_id = ?", (row["id"], row["id"]))
        auditlog.append(
            conn,
            actor,
            "user_disabled" if disabled else "user_enabled",
            detail={"user": row["name"]},
            facts=seal_user(conn, row["id"]),
        )
    return _user(row)
