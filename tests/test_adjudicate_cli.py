"""The commands: ``tabulate review serve|sample``, ``tabulate users add|list|unlock``, ``tabulate log verify``."""

from __future__ import annotations

import contextlib
import io
import shutil

import pytest
from test_adjudicate_support import fast_passwords  # noqa: F401

from tabulate.cli import main


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    db = tmp_path_factory.mktemp("cli") / "try.db"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["review", "sample", "--db", str(db), "--scripted"]) == 0
    assert "6 needs review" in out.getvalue()
    return db


@pytest.fixture
def sample_db(built, tmp_path, fast_passwords):
    db = tmp_path / "try.db"
    shutil.copy(built, db)
    return db


def test_review_serve_listens_on_loopback_unless_told_otherwise(sample_db, monkeypatch, capsys):
    import uvicorn

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    assert main(["review", "serve", "--db", str(sample_db)]) == 0
    assert (calls[0]["host"], calls[0]["port"]) == ("127.0.0.1", 8080)
    assert "other computers can reach" not in capsys.readouterr().err
    assert main(["review", "serve", "--db", str(sample_db), "--host", "0.0.0.0", "--port", "9000"]) == 0
    assert (calls[1]["host"], calls[1]["port"]) == ("0.0.0.0", 9000)
    assert "other computers can reach the app" in capsys.readouterr().err


def test_review_serve_refuses_a_missing_store(tmp_path, capsys):
    assert main(["review", "serve", "--db", str(tmp_path / "none.db")]) == 2
    assert "no store at" in capsys.readouterr().err


def test_review_sample_refuses_to_overwrite(sample_db, capsys):
    assert main(["review", "sample", "--db", str(sample_db), "--scripted"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_users_list_and_unlock(sample_db, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("a long enough password\n"))
    assert (
        main(
            [
                "users",
                "add",
                "alice",
                "--role",
                "reviewer",
                "--party",
                "REP",
                "--password-stdin",
                "--db",
                str(sample_db),
            ]
        )
        == 0
    )
    from tabulate.adjudicate import schema, users

    conn = schema.connect(sample_db)
    for _ in range(users.FREE_FAILURES + 1):
        with pytest.raises(users.LoginFailed):
            users.authenticate(conn, "alice", "wrong wrong wrong")
    with pytest.raises(users.LoginFailed, match="too many failed sign-ins from this address"):
        users.authenticate(conn, "alice", "a long enough password")
    capsys.readouterr()
    assert main(["users", "list", "--db", str(sample_db)]) == 0
    assert "alice\treviewer\tREP\tactive" in capsys.readouterr().out  # the account itself is never locked
    assert main(["users", "unlock", "alice", "--db", str(sample_db)]) == 0  # lifts the waits
    assert users.authenticate(conn, "alice", "a long enough password").name == "alice"
    conn.close()
