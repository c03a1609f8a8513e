"""Issue 10's login attacks: parallel guesses, a flood of logins, /team/join as a password oracle,
look-alike names and parties spelled three ways. No sleeps: threads meet at barriers and the hashing
semaphore's gauge is read directly."""

from __future__ import annotations

import threading

import pytest
from argon2 import PasswordHasher
from test_adjudicate_support import FAST_HASHER, Browser, app, env, fast_passwords, password, template_store  # noqa: F401

from tabulate.adjudicate import panels, schema, users
from tabulate.adjudicate.users import LoginFailed, UserError


class CountingHasher(PasswordHasher):
    """The test-sized argon2id hasher, counting the password checks and able to hold them at a gate."""

    def __init__(self, gate: threading.Event | None = None):
        super().__init__(**FAST_HASHER)
        self.calls = 0
        self._lock = threading.Lock()
        self._gate = gate

    def verify(self, hash, password):
        with self._lock:
            self.calls += 1
        if self._gate is not None:
            assert self._gate.wait(timeout=30)
        return super().verify(hash, password)


@pytest.fixture
def db(tmp_path, fast_passwords):
    conn = schema.connect(tmp_path / "u.db")
    schema.migrate(conn)
    users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    conn.close()
    return tmp_path / "u.db"


def _in_parallel(db, n: int, attempt) -> list:
    """Run ``attempt(i)`` on n threads released together; return each outcome (a user or the exception)."""
    barrier, out = threading.Barrier(n), [None] * n

    def run(i):
        conn = schema.connect(db)
        try:
            barrier.wait(timeout=30)
            out[i] = attempt(conn, i)
        except Exception as e:
            out[i] = e
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return out


def test_twenty_parallel_guesses_get_only_the_free_attempts_checked(db, monkeypatch):
    """Issue 10: the lock was read outside the transaction, so all twenty guesses were checked."""
    hasher = CountingHasher()
    monkeypatch.setattr(users, "_hasher", hasher)
    out = _in_parallel(
        db,
        20,
        lambda conn, i: users.authenticate(conn, "alice", f"guess {i:04d} xx", where="10.6.6.6", clock=lambda: 5000.0),
    )
    assert all(isinstance(o, LoginFailed) for o in out)
    assert hasher.calls == users.FREE_FAILURES + 1
    assert sum("too many failed sign-ins" in str(o) for o in out) == 20 - hasher.calls


def test_a_flood_of_logins_hashes_at_most_hash_slots_passwords_at_once(db, monkeypatch):
    """Issue 10: sixty parallel logins grew the server to 1.7 GB (argon2id takes 64 MiB per hash)."""
    gate = threading.Event()
    monkeypatch.setattr(users, "_hasher", CountingHasher(gate))
    gauge = users.HashGauge(users.HASH_SLOTS)
    monkeypatch.setattr(users, "HASH_GAUGE", gauge)
    n = 12
    result: list = []
    runner = threading.Thread(
        target=lambda: result.extend(
            _in_parallel(db, n, lambda conn, i: users.authenticate(conn, "alice", "0123456789ab", where=f"10.0.0.{i}"))
        )
    )
    runner.start()
    # Every login is either hashing or queued for a slot; only then let the hashes finish.
    assert gauge.wait_until(lambda g: g.inside + g.waiting == n and g.inside == users.HASH_SLOTS)
    gate.set()
    runner.join(timeout=60)
    assert gauge.high_water == users.HASH_SLOTS
    assert [getattr(r, "name", r) for r in result] == ["alice"] * n


def test_team_join_gives_one_answer_for_every_failure(env, app):
    """Issue 10: /team/join confirmed a board member's correct password ("not an active reviewer")."""
    br = Browser(app)
    br.login("alice")
    answers = set()
    for name, pw in (
        ("bob", "not bob's password"),
        ("board1", password("board1")),  # a board member, right pw
        ("carol", password("carol")),  # the same party as alice
        ("nobody", "whatever whatever"),
    ):
        page = br.submit(br.get("/queue").text, "/team/join", {"name": name, "password": pw})
        answers.add([line for line in page.text.splitlines() if "Partner not signed in" in line][0].strip())
    assert len(answers) == 1


@pytest.fixture
def conn(tmp_path, fast_passwords):
    c = schema.connect(tmp_path / "n.db")
    schema.migrate(c)
    yield c
    c.close()


def _parties():
    from tabulate.commands.review_sample import SAMPLE_ELECTION
    from tabulate.election import load_election

    return load_election(SAMPLE_ELECTION).parties


@pytest.mark.parametrize("spelling", ["Republican", "REP\u200b", "\uff32\uff25\uff30", " rep ", "Republican Party"])
def test_a_party_spelled_another_way_is_the_same_party_and_no_team_forms(conn, spelling):
    """31 KAR 4:220 Section 7(1): "individuals registered of differing political party affiliations"."""
    parties = _parties()
    a = users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP", parties=parties)
    b = users.add_user(conn, "carol", "reviewer", "0123456789ab", party=spelling, parties=parties)
    assert a.party == b.party == "REP"
    with pytest.raises(panels.TeamError, match="differing"):
        panels.check_pair(a, b)


def test_without_an_election_unicode_spellings_of_a_party_still_compare_equal(conn):
    a = users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP\u200b")
    b = users.add_user(conn, "carol", "reviewer", "0123456789ab", party="\uff32\uff25\uff30")
    with pytest.raises(panels.TeamError, match="differing"):
        panels.check_pair(a, b)


def test_a_party_not_in_the_election_is_refused_with_the_list(conn):
    with pytest.raises(UserError, match="not one of the election's parties: REP"):
        users.add_user(conn, "alice", "reviewer", "0123456789ab", party="Whig", parties=_parties())


@pytest.mark.parametrize(
    "name, why",
    [
        ("\u0430lice", "letters A-Z"),  # Cyrillic a
        ("alice\u202e", "letters A-Z"),  # right-to-left override
        ("al\u200bice", "letters A-Z"),  # zero-width space
        ("a1ice", "looks like the existing user 'alice'"),
        ("Al.ice", "looks like the existing user 'alice'"),
        ("\uff21\uff2c\uff29\uff23\uff25", "already"),  # full-width ALICE is ALICE after NFKC
    ],
)
def test_look_alike_user_names_are_refused(conn, name, why):
    users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    with pytest.raises(UserError, match=why):
        users.add_user(conn, name, "reviewer", "0123456789ab", party="DEM")
