"""``tabulate users add`` checks its arguments before anyone types a password, and never prints a traceback."""

from __future__ import annotations

import io

import pytest
from test_adjudicate_support import fast_passwords  # noqa: F401

from tabulate.cli import main


class NeverRead(io.StringIO):
    """Standard input that fails the test if the command reads a password from it."""

    def readline(self, *a):
        raise AssertionError("the password was asked for before the arguments were checked")

    def isatty(self):
        return True


@pytest.fixture
def db(tmp_path, fast_passwords):
    return str(tmp_path / "users.db")


def _add(db, *args, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", stdin)
    return main(["users", "add", *args, "--db", db])


def test_a_reviewer_without_a_party_is_refused_before_the_password(db, monkeypatch, capsys):
    """31 KAR 4:220 §7(1): "teams of two (2) so that each team contains individuals registered of differing
    political party affiliations" -- so a reviewer's party is required, and checked first."""
    assert _add(db, "carl", "--role", "reviewer", stdin=NeverRead(), monkeypatch=monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a reviewer needs --party" in err


def test_a_name_in_use_is_refused_before_the_password(db, monkeypatch, capsys):
    assert (
        _add(
            db,
            "ann",
            "--role",
            "admin",
            "--password-stdin",
            stdin=io.StringIO("a long enough password\n"),
            monkeypatch=monkeypatch,
        )
        == 0
    )
    assert _add(db, "ann", "--role", "admin", stdin=NeverRead(), monkeypatch=monkeypatch) == 2
    assert "already a user named 'ann'" in capsys.readouterr().err


def test_a_piped_password_without_password_stdin_is_a_one_line_error(db, monkeypatch, capsys):
    assert (
        _add(db, "dora", "--role", "admin", stdin=io.StringIO("a long enough password\n"), monkeypatch=monkeypatch) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pipe the password with --password-stdin" in err
    assert "Traceback" not in err


def test_a_closed_stdin_is_a_one_line_error(db, monkeypatch, capsys):
    assert _add(db, "dora", "--role", "admin", "--password-stdin", stdin=io.StringIO(""), monkeypatch=monkeypatch) == 2
    assert capsys.readouterr().err == "tabulate: no password on standard input (it is empty or closed)\n"


def test_a_short_typed_password_is_refused_before_it_is_typed_again(db, monkeypatch, capsys):
    asked = []
    monkeypatch.setattr("getpass.getpass", lambda prompt: asked.append(prompt) or "short")
    assert _add(db, "erin", "--role", "admin", stdin=NeverRead(), monkeypatch=monkeypatch) == 2
    assert len(asked) == 1 and "at least 10 characters" in capsys.readouterr().err


def test_a_board_of_fewer_than_three_accounts_is_warned(db, monkeypatch, capsys):
    """31 KAR 4:220 §9(12)(a): each adjudicated ballot is decided "by majority vote of the county board"."""
    for n, name in enumerate(("bea", "bo", "bee"), start=1):
        assert (
            _add(
                db,
                name,
                "--role",
                "board",
                "--party",
                "DEM",
                "--password-stdin",
                stdin=io.StringIO("a long enough password\n"),
                monkeypatch=monkeypatch,
            )
            == 0
        )
        err = capsys.readouterr().err
        assert (f"the board has {n} account(s)" in err) == (n < 3)
