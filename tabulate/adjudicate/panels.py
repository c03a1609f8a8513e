"""Who decides a ballot: a team of two reviewers of differing parties, or the county board.

31 KAR 4:220 §7(1): "The county board of elections or the county clerk shall
split the recount officials into recount teams of two (2) so that each team
contains individuals registered of differing political party affiliations."
31 KAR 4:220 §9(12)(a): "Each adjudicated ballot, shall, by majority vote of
the county board of elections, result in a vote for either ...".

A *panel* is the body a ballot is leased to: ``team:<id>`` or ``board``.
Teams form in one of two ways, both recorded in the audit log:

- two screens: a reviewer invites another (of a different party) who is
  signed in elsewhere; the team exists once the invitee accepts;
- one screen: a signed-in reviewer's partner types their own name and
  password on the same screen; the session then holds both people.

A reviewer is in at most one team at a time; leaving dissolves the team and
gives its ballot back to the queue.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..core.errors import TabulateError
from ..store.sqldb import Connection
from . import auditlog
from .names import party_key
from .schema import transaction
from .sessions import Session, set_partner
from .users import LoginFailed, User, authenticate, board_members, get_user

INVITE_TTL_S = 15 * 60
BOARD = "board"


class TeamError(TabulateError, ValueError):
    """A team that may not be formed (same party, not a reviewer, already in a team ...)."""

    code = "team"


@dataclass(frozen=True)
class Panel:
    """The body that holds a lease and whose members' entries decide a ballot."""

    key: str
    kind: str  # "team" | "board"
    members: tuple[User, ...]
    #: Entries that must agree: both of a team; for the board, a majority of the board as
    #: configured (`board_quorum`), never of the accounts enabled at the moment.
    quorum: int | None = None

    @property
    def needed(self) -> int:
        if self.quorum is not None:
            return self.quorum
        return len(self.members) if self.kind != BOARD else len(self.members) // 2 + 1

    @property
    def label(self) -> str:
        if self.kind == BOARD:
            return "County board of elections"
        return "Team " + " & ".join(m.label for m in self.members)


@dataclass(frozen=True)
class Team:
    id: int
    members: tuple[User, User]

    @property
    def key(self) -> str:
        return f"team:{self.id}"

    def partner_of(self, user: User) -> User:
        return self.members[1] if self.members[0].id == user.id else self.members[0]


def _same_party(a: User, b: User) -> bool:
    # Compared as `party_key`s: a zero-width space or full-width letters do not make another party.
    return party_key(a.party or "") == party_key(b.party or "")


def check_pair(a: User, b: User) -> None:
    """Raise `TeamError` unless ``a`` and ``b`` may form a team (4:220 §7(1))."""
    if a.id == b.id:
        raise TeamError("a team needs two different people")
    for u in (a, b):
        if u.role != "reviewer" or u.disabled:
            raise TeamError(f"{u.name} is not an active reviewer")
        if not u.party:
            raise TeamError(f"{u.name} has no party on record")
    if _same_party(a, b):
        raise TeamError(
            f"{a.name} and {b.name} are both {a.party}: a team needs differing political "
            "party affiliations (31 KAR 4:220 Section 7(1))"
        )


def team_of(conn: Connection, user: User) -> Team | None:
    row = conn.execute(
        "SELECT * FROM adj_teams WHERE dissolved_at IS NULL AND (member_a = ? OR member_b = ?)", (user.id, user.id)
    ).fetchone()
    if row is None:
        return None
    return Team(row["id"], (get_user(conn, row["member_a"]), get_user(conn, row["member_b"])))


def _form(conn: Connection, a: User, b: User, how: str) -> Team:
    check_pair(a, b)
    with transaction(conn):
        for u in (a, b):
            if team_of(conn, u) is not None:
                raise TeamError(f"{u.name} is already in a team")
        cur = conn.execute(
            "INSERT INTO adj_teams (member_a, member_b, formed_at) VALUES (?, ?, ?)", (a.id, b.id, auditlog._now())
        )
        conn.execute("DELETE FROM adj_invites WHERE from_user IN (?, ?) OR to_user IN (?, ?)", (a.id, b.id, a.id, b.id))
        team = Team(cur.lastrowid, (a, b))
        auditlog.append(
            conn, a.name, "team_formed", detail={"team": team.key, "members": [a.label, b.label], "how": how}
        )
    return team


def invite(conn: Connection, inviter: User, invitee: User) -> None:
    """Ask another signed-in reviewer to form a team (they accept on their own screen)."""
    check_pair(inviter, invitee)
    with transaction(conn):
        conn.execute(
            "INSERT INTO adj_invites (from_user, to_user, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT (from_user, to_user) DO UPDATE SET created_at = excluded.created_at",
            (inviter.id, invitee.id, time.time()),
        )
        auditlog.append(conn, inviter.name, "team_invite", detail={"to": invitee.label})


def invitations_for(conn: Connection, user: User) -> list[User]:
    """Reviewers who invited ``user`` in the last `INVITE_TTL_S` seconds."""
    rows = conn.execute(
        "SELECT from_user FROM adj_invites WHERE to_user = ? AND created_at > ? ORDER BY id",
        (user.id, time.time() - INVITE_TTL_S),
    ).fetchall()
    return [u for u in (get_user(conn, r[0]) for r in rows) if u is not None and not u.disabled]


def accept(conn: Connection, user: User, inviter: User) -> Team:
    """Accept an invitation: the team is formed, across two screens."""
    row = conn.execute(
        "SELECT 1 FROM adj_invites WHERE from_user = ? AND to_user = ? AND created_at > ?",
        (inviter.id, user.id, time.time() - INVITE_TTL_S),
    ).fetchone()
    if row is None:
        raise TeamError(f"there is no current invitation from {inviter.name}")
    return _form(conn, inviter, user, "two screens: invitation accepted")


def join_at_screen(
    conn: Connection, session: Session, partner_name: str, partner_password: str, *, where: str = ""
) -> Team:
    """The partner signs in on the signed-in reviewer's screen; both then work at that screen.

    Raises
    ------
    LoginFailed
        The partner's name or password is wrong (counted toward this address's throttle).
    TeamError
        The two may not form a team.
    """
    partner = authenticate(conn, partner_name, partner_password, where=where)
    try:
        check_pair(session.user, partner)
    except TeamError as e:
        auditlog.append(
            conn, session.user.name, "team_join_refused", detail={"partner": partner.name, "why": str(e), "from": where}
        )
        raise
    auditlog.append(conn, partner.name, "login", detail={"from": where, "as": "partner at shared screen"})
    team = _form(conn, session.user, partner, "one screen: partner signed in")
    set_partner(conn, session, partner)
    return team


def leave(conn: Connection, user: User) -> Team | None:
    """Dissolve ``user``'s team; its lease is released so the ballot goes back to the queue."""
    with transaction(conn):
        team = team_of(conn, user)
        if team is None:
            return None
        conn.execute("UPDATE adj_teams SET dissolved_at = ? WHERE id = ?", (auditlog._now(), team.id))
        conn.execute(
            "UPDATE adj_ballots SET lease_panel = NULL, lease_user = NULL, lease_expires = NULL WHERE lease_panel = ?",
            (team.key,),
        )
        conn.execute(
            "UPDATE adj_sessions SET partner_id = NULL WHERE user_id IN (?, ?)",
            (team.members[0].id, team.members[1].id),
        )
        auditlog.append(conn, user.name, "team_dissolved", detail={"team": team.key})
    return team


def board_quorum(conn: Connection, board_members: int | None = None) -> int:
    """How many board members must agree: a majority of the county board as configured.

    31 KAR 4:220 Section 9(12)(a): "Each adjudicated ballot, shall, by majority
    vote of the county board of elections, result in a vote ...". The board is
    its members, fixed in the election (``adjudication.board_members``); without
    that setting, every board account ever created, enabled or not. Issue 10:
    counting only the *enabled* accounts let an administrator disable members
    until one board member decided a disputed ballot alone.
    """
    size = board_members or conn.execute("SELECT COUNT(*) FROM adj_users WHERE role = 'board'").fetchone()[0]
    return max(1, size) // 2 + 1


def panel_for(conn: Connection, user: User, *, board_size: int | None = None) -> Panel | None:
    """The panel ``user`` decides in: the board for a board member, their team for a reviewer."""
    if user.role == "board" and not user.disabled:
        return board_panel(conn, board_size=board_size)
    if user.role == "reviewer":
        team = team_of(conn, user)
        if team is not None:
            return Panel(team.key, "team", team.members)
    return None


def board_panel(conn: Connection, *, board_size: int | None = None) -> Panel:
    """The board's enabled members, who may enter, and its fixed quorum (`board_quorum`)."""
    return Panel(BOARD, BOARD, tuple(board_members(conn)), board_quorum(conn, board_size))


__all__ = [
    "BOARD",
    "INVITE_TTL_S",
    "LoginFailed",
    "Panel",
    "Team",
    "TeamError",
    "accept",
    "board_panel",
    "board_quorum",
    "check_pair",
    "invitations_for",
    "invite",
    "join_at_screen",
    "leave",
    "panel_for",
    "team_of",
]
