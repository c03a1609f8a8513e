"""A throw-away PostgreSQL server for the tests: Debian's binaries, initdb + pg_ctl in a temporary folder.

Holds no tests. `pg_url` (a pytest fixture, import it into a test module)
gives each test a new empty database on one server per test process,
listening on a Unix socket in its own folder only (no TCP port, no
password: ``trust`` on that socket). As root (CI, this workplace) the server
runs as the ``postgres`` user, since PostgreSQL refuses to run as root.
When no server can start (no binaries, no such user), the PostgreSQL tests
are skipped with the reason; CI installs Debian's ``postgresql`` package
(.ci/run) so that they run there.
"""

from __future__ import annotations

import atexit
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

_server: dict = {}
_names = itertools.count(1)


def _binaries() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return os.path.dirname(found[-1])
    on_path = shutil.which("pg_ctl")
    return os.path.dirname(on_path) if on_path else None


def _as_server_user(args: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return args
    return ["runuser", "-u", "postgres", "--", *args]


def _start() -> str:
    """Start the server once per process; return the socket folder, or raise RuntimeError saying why not."""
    bindir = _binaries()
    if bindir is None:
        raise RuntimeError("no PostgreSQL server binaries (install Debian's postgresql package)")
    if os.geteuid() == 0:
        try:
            import pwd

            user = pwd.getpwnam("postgres")
        except KeyError:
            raise RuntimeError("running as root and there is no 'postgres' user to run the server") from None
    root = tempfile.mkdtemp(prefix="tabulate-pg-")
    data, sock = os.path.join(root, "data"), os.path.join(root, "sock")
    os.mkdir(sock)
    if os.geteuid() == 0:
        for path in (root, sock):
            os.chown(path, user.pw_uid, user.pw_gid)
    run = dict(capture_output=True, text=True, timeout=120)
    init = subprocess.run(
        _as_server_user(
            [f"{bindir}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]
        ),
        **run,
    )
    if init.returncode != 0:
        raise RuntimeError(f"initdb failed: {init.stderr.strip()[-300:]}")
    options = f"-c listen_addresses='' -k {sock} -c fsync=off -c synchronous_commit=off -c max_connections=50"
    start = subprocess.run(
        _as_server_user(
            [f"{bindir}/pg_ctl", "-D", data, "-o", options, "-l", os.path.join(root, "log"), "-w", "-t", "60", "start"]
        ),
        **run,
    )
    if start.returncode != 0:
        log_file = Path(root, "log")
        log = log_file.read_text() if log_file.exists() else ""
        raise RuntimeError(f"pg_ctl start failed: {(start.stderr + log).strip()[-300:]}")

    def stop():
        subprocess.run(
            _as_server_user([f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"]),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)

    atexit.register(stop)
    return sock


def server_socket() -> str:
    """The running server's socket folder (started on first use); skips the calling test if none can start."""
    if "error" in _server:
        pytest.skip(f"PostgreSQL tests skipped: no server could start ({_server['error']})")
    if "sock" not in _server:
        try:
            _server["sock"] = _start()
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            _server["error"] = str(e)
            pytest.skip(f"PostgreSQL tests skipped: no server could start ({e})")
    return _server["sock"]


def new_database() -> str:
    """A new, empty database on the test server; its URL."""
    import psycopg

    sock = server_socket()
    name = f"t{os.getpid()}_{next(_names)}"
    with psycopg.connect(f"postgresql://postgres@/postgres?host={sock}", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql://postgres@/{name}?host={sock}"


@pytest.fixture
def pg_url() -> str:
    """A new empty PostgreSQL database (URL) for one test."""
    return new_database()
