"""Shared fixtures for the adjudication tests (imported by tests/test_adjudicate_*.py and test_review_*.py).

The sample store (`tabulate.commands.review_sample`) is drawn once per session and
copied for each test, so every test starts from the same six flagged ballots:

====  =====================================================================
sheet what the scanner found
====  =====================================================================
1     a light pencil mark for Brennan (U.S. Senate): marginal
2     the President write-in line marked, "Al Monroe" written
3     Stiles and King both marked (U.S. House): overvote
4     "Jenna Foster" written on the Senate write-in line, target not marked
5     an X beside Adeyemi's name (State Senate), not in the target
6     Hale marked and "Hale" written on the marked President write-in line
7     rejected: the style code could not be read (for entry by hand)
8-11  clean ballots, counted
====  =====================================================================
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from tabulate.adjudicate import schema, users
from tabulate.adjudicate.entries import Entry, WriteInReading
from tabulate.adjudicate.source import StoreSource
from tabulate.commands.review_sample import build_sample_store
from tabulate.store import open_store

MARGINAL, WRITE_IN, OVERVOTE, NAME_NO_MARK, BESIDE_NAME, SAME_NAME, DAMAGED = "1", "2", "3", "4", "5", "6", "7"

PEOPLE = (
    ("alice", "reviewer", "REP"),
    ("bob", "reviewer", "DEM"),
    ("carol", "reviewer", "REP"),
    ("dave", "reviewer", "DEM"),
    ("erin", "reviewer", "REP"),
    ("board1", "board", "REP"),
    ("board2", "board", "DEM"),
    ("board3", "board", "IND"),
    ("admin", "admin", None),
    ("oscar", "operator", None),
)


def password(name: str) -> str:
    return f"pw-{name}-0123456789"


FAST_HASHER = dict(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture(scope="session")
def template_store(tmp_path_factory) -> Path:
    """The sample store with adjudication's tables and the people of `PEOPLE`, built once per session."""
    root = tmp_path_factory.mktemp("adjudicate-template")
    store = build_sample_store(root / "store.db", root / "images")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(users, "_hasher", PasswordHasher(**FAST_HASHER))
        Env(root / "store.db", create_users=True).close()
    conn = sqlite3.connect(root / "store.db")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return root / "store.db"


@pytest.fixture
def fast_passwords(monkeypatch):
    """Still argon2id, with test-sized cost: the production cost (64 MiB, 3 passes) is ~0.4 s a hash."""
    monkeypatch.setattr(users, "_hasher", PasswordHasher(**FAST_HASHER))


class Env:
    """One test's store copy, with adjudication's tables and the people of `PEOPLE`."""

    def __init__(self, db: Path, *, create_users: bool = True):
        self.db = db
        self.conn = schema.connect(db)
        schema.migrate(self.conn)
        self.store = open_store(db, create=False)
        self.source = StoreSource(self.store)
        self.election = self.source.election()
        if create_users:
            self.users = {
                name: users.add_user(self.conn, name, role, password(name), party=party, actor="test")
                for name, role, party in PEOPLE
            }
        else:
            self.users = {name: users.find_user(self.conn, name) for name, _, _ in PEOPLE}

    def connect(self):
        """A second, independent connection and source (another process or thread)."""
        conn = schema.connect(self.db)
        return conn, StoreSource(open_store(self.db, create=False))

    def close(self):
        self.conn.close()
        self.store.close()


@pytest.fixture(scope="session")
def pg_template(tmp_path_factory) -> str:
    """The same sample store and people on PostgreSQL: a database each test copies (``CREATE DATABASE ... TEMPLATE``)."""
    from pg_server import new_database

    root = tmp_path_factory.mktemp("adjudicate-pg-template")
    url = new_database()
    build_sample_store(url, root / "images").close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(users, "_hasher", PasswordHasher(**FAST_HASHER))
        Env(url, create_users=True).close()
    return url


def pg_copy(template_url: str) -> str:
    """A new database holding a copy of the template's (no connection may be open to the template)."""
    import psycopg
    from pg_server import new_database

    url = new_database()
    name, template = (u.split("@/", 1)[1].split("?", 1)[0] for u in (url, template_url))
    admin = url.replace(f"/{name}?", "/postgres?")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}"')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return url


@pytest.fixture
def env(request, tmp_path, fast_passwords) -> Env:
    """The sample store with its people; ``sqlite`` unless a test asks for ``postgresql`` (indirect parametrize)."""
    if getattr(request, "param", "sqlite") == "postgresql":
        e = Env(pg_copy(request.getfixturevalue("pg_template")), create_users=False)
    else:
        db = tmp_path / "store.db"
        shutil.copy(request.getfixturevalue("template_store"), db)
        e = Env(db, create_users=False)
    yield e
    e.close()


#: Put on a test to run it on both backends: ``@BOTH`` (the test takes the ``env`` fixture).
BOTH = pytest.mark.parametrize("env", ["sqlite", "postgresql"], indirect=True)


def machine_entry(
    env: Env,
    sheet_id: str,
    *,
    round_: int = 1,
    mark=(),
    unmark=(),
    write_ins=(),
    note="",
    style_id=None,
    precinct_id=None,
    manual=False,
) -> Entry:
    """The scanner's marks as an entry (marginal read as unmarked), with some options changed."""
    sheet = env.source.sheet(sheet_id)
    style = style_id or sheet.style_id
    marked = {}
    for contest in env.election.style_contests(style):
        ms = sheet.marks.marks.get(contest.id, {}) if (sheet.marks and not manual) else {}
        chosen = [o.id for o in contest.options if ms.get(o.id) is not None and ms[o.id].scan == "marked"]
        chosen += [oid for cid, oid in mark if cid == contest.id and oid not in chosen]
        marked[contest.id] = tuple(o for o in chosen if (contest.id, o) not in set(unmark))
    readings = tuple(WriteInReading(c, o, name, False, outcome) for c, o, name, outcome in write_ins)
    return Entry(sheet_id, round_, style, precinct_id if manual else sheet.precinct_id, marked, readings, manual, note)


def team(env: Env, a: str, b: str):
    """Form a team of two reviewers (by invitation) and return its panel."""
    from tabulate.adjudicate import panels

    panels.invite(env.conn, env.users[a], env.users[b])
    panels.accept(env.conn, env.users[b], env.users[a])
    return panels.panel_for(env.conn, env.users[a])


def board(env: Env):
    from tabulate.adjudicate import panels

    return panels.board_panel(env.conn)


# -- the web app -----------------------------------------------------------------------------------------


class _Forms(HTMLParser):
    """The forms of a page: for each, its action and the values a browser would submit as they stand."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []
        self._select = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append(
                {"action": a.get("action", ""), "method": a.get("method", "get"), "fields": {}, "radios": set()}
            )
        elif not self.forms:
            return
        elif tag == "input":
            fields = self.forms[-1]["fields"]
            kind = a.get("type", "text")
            if kind == "radio":
                self.forms[-1]["radios"].add(a["name"])
            if kind in ("radio", "checkbox"):
                if "checked" in a:
                    fields[a["name"]] = a.get("value", "on")
            elif kind not in ("submit", "button") and a.get("name"):
                fields[a["name"]] = a.get("value", "")
        elif tag == "textarea" and a.get("name"):
            self.forms[-1]["fields"][a["name"]] = ""
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select and "selected" in a:
            self.forms[-1]["fields"][self._select] = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None


def page_forms(html: str) -> list[dict]:
    p = _Forms()
    p.feed(html)
    return p.forms


def form(html: str, action_part: str) -> dict:
    """The first form whose action contains ``action_part``: ``{"action", "fields"}``."""
    for f in page_forms(html):
        if action_part in f["action"]:
            return f
    raise AssertionError(f"no form with action {action_part!r} on the page")


class Browser:
    """A TestClient with a person behind it: sign in, follow forms."""

    def __init__(self, app):
        with warnings.catch_warnings():  # starlette 1.x suggests httpx2 for its test client; httpx works
            warnings.simplefilter("ignore")
            from starlette.testclient import TestClient

        self.client = TestClient(app, base_url="http://127.0.0.1")

    def get(self, url, **kw):
        return self.client.get(url, **kw)

    def post(self, url, data, **kw):
        return self.client.post(url, data=data, **kw)

    def login(self, name, pw=None):
        page = self.get("/login")
        csrf = form(page.text, "/login")["fields"]["csrf"]
        return self.post("/login", {"name": name, "password": pw or password(name), "csrf": csrf})

    def csrf(self, url="/progress") -> str:
        return re.search(r'name="csrf" value="([^"]+)"', self.get(url).text).group(1)

    def submit(self, page_html, action_part, changes=None, drop=(), follow=True, undecided=None):
        """Submit a form as it stands with ``changes``; ``undecided`` answers every radio group left open."""
        f = form(page_html, action_part)
        data = {**f["fields"], **(changes or {})}
        if undecided is not None:
            data.update({name: undecided for name in f["radios"] if name not in data})
        for key in drop:
            data.pop(key, None)
        return self.post(f["action"], data, follow_redirects=follow)


@pytest.fixture
def app(env):
    from tabulate.adjudicate.web.app import create_app

    return create_app(env.db)
