"""``tabulate review`` (the adjudication web app), ``tabulate users`` (accounts), ``tabulate log`` (the audit log)."""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import sys
from pathlib import Path

from .errors import UsageError
from .station_keys import add_station_key_option

LOOPBACK = "127.0.0.1"


def register(subparsers) -> None:
    review = subparsers.add_parser(
        "review",
        help="the adjudication web app: teams decide the ballots the machine flagged",
        description="Serve the review app over a store, or make a small sample store to try it on.",
    )
    rsub = review.add_subparsers(dest="review_command", metavar="ACTION", required=True)
    serve = rsub.add_parser(
        "serve",
        help="serve the review web app (on 127.0.0.1 unless told otherwise)",
        description="Serve the review web app over a store. Reviewers sign in with accounts "
        "made by `tabulate users add`; see docs/adjudication.md.",
    )
    serve.add_argument(
        "--db",
        required=True,
        metavar="FILE",
        help="the store written by tabulate scan (a SQLite file or postgresql://user@host/dbname)",
    )
    serve.add_argument(
        "--host",
        default=LOOPBACK,
        metavar="ADDRESS",
        help="address to listen on (default 127.0.0.1: this computer only)",
    )
    serve.add_argument("--port", type=int, default=8080, metavar="N", help="port (default 8080)")
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name browsers may use to reach the app (repeatable)",
    )
    serve.add_argument(
        "--secure-cookies", action="store_true", help="mark cookies Secure (when a TLS proxy serves the app over HTTPS)"
    )
    add_station_key_option(serve)
    serve.set_defaults(func=run_serve)

    sample = rsub.add_parser(
        "sample",
        help="make a small store with one ballot of each kind to review",
        description="Write a store holding the sample election and a batch of drawn "
        "ballots that need a person (a light mark, write-ins, an overvote, "
        "a damaged ballot ...), to try the review app without scanning.",
    )
    sample.add_argument("--db", required=True, metavar="FILE", help="the store to create")
    sample.add_argument("--images", metavar="DIR", help="where to write the ballot images (default: next to FILE)")
    sample.add_argument(
        "--election",
        metavar="ELECTION.json",
        help='the sample election or a variant of it, e.g. with "adjudication": {"decided_by": '
        '"board"} (default: samples/general/election.json of the source tree)',
    )
    sample.add_argument(
        "--scripted",
        action="store_true",
        help="write the readings from the script instead of running the reader (faster)",
    )
    sample.set_defaults(func=run_sample)

    users = subparsers.add_parser(
        "users", help="accounts for the review app", description="Create and list the review app's accounts."
    )
    usub = users.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    add = usub.add_parser("add", help="create an account (the password is asked for, or read from stdin)")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--role", required=True, choices=("operator", "reviewer", "board", "admin", "auditor"))
    add.add_argument(
        "--party",
        metavar="P",
        help="one of the election's parties, by id, abbreviation or name "
        "(required for a reviewer or an auditor: two people of differing parties, 31 KAR 4:220 "
        "Section 7(1))",
    )
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    add.add_argument("--db", required=True, metavar="FILE", help="the store")
    add.set_defaults(func=run_users_add)
    lst = usub.add_parser("list", help="list the accounts")
    lst.add_argument("--db", required=True, metavar="FILE", help="the store")
    lst.set_defaults(func=run_users_list)
    unlock = usub.add_parser("unlock", help="lift the sign-in waits after failed logins (accounts are never locked)")
    unlock.add_argument("name", metavar="NAME")
    unlock.add_argument("--db", required=True, metavar="FILE", help="the store")
    unlock.set_defaults(func=run_users_unlock)

    log = subparsers.add_parser(
        "log", help="the adjudication audit log", description="Check the hash chain of the adjudication audit log."
    )
    lsub = log.add_subparsers(dest="log_command", metavar="ACTION", required=True)
    verify = lsub.add_parser("verify", help="check the audit log; name the first altered, removed or reordered entry")
    verify.add_argument("--db", required=True, metavar="FILE", help="the store")
    verify.set_defaults(func=run_log_verify)


def _missing(db: str) -> bool:
    """A store file that is not there (a PostgreSQL URL is checked when connecting)."""
    from ..store import is_postgres_url

    return not is_postgres_url(db) and not Path(db).is_file()


def _connect(db: str, *, must_exist: bool = True):
    from ..adjudicate import schema
    from ..store import StoreError

    if must_exist and _missing(db):
        raise UsageError(f"no store at {db}")
    try:
        conn = schema.connect(db)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        schema.migrate(conn)
    except schema.SchemaError as e:
        conn.close()
        raise UsageError(str(e)) from None
    return conn


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ..adjudicate.web.app import create_app
    from ..store import StoreError, open_store
    from .station_keys import station_problem

    if _missing(args.db):
        raise UsageError(f"no store at {args.db}")
    try:
        store = open_store(args.db, create=False)
        if store.election() is None:
            raise UsageError(f"{args.db} holds no election yet: scan a batch into it first")
        problem = station_problem(store)  # every sign-in and decision is a journal entry this server signs
        store.close()
        if problem is not None:
            raise UsageError(f"{args.db}: {problem}")
    except StoreError as e:
        raise UsageError(str(e)) from None
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number")
    if not _is_loopback(args.host):
        print(
            f"tabulate: listening on {args.host}: other computers can reach the app. Serve it behind HTTPS "
            "(and pass --secure-cookies) on a closed network; name the host browsers use with --allow-host.",
            file=sys.stderr,
        )
    hosts = ["127.0.0.1", "localhost", args.host, *args.allow_host]
    app = create_app(args.db, allowed_hosts=list(dict.fromkeys(hosts)), secure_cookies=args.secure_cookies)
    print(
        f"Review app on http://{args.host if args.host != '0.0.0.0' else '127.0.0.1'}:{args.port}/ "
        f"(store {args.db}); Ctrl-C stops it.",
        file=sys.stderr,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", server_header=False)
    return 0


def run_sample(args: argparse.Namespace) -> int:
    from .review_sample import SAMPLE_ELECTION, build_sample_store

    election = Path(args.election) if args.election else SAMPLE_ELECTION
    if not election.is_file():
        raise UsageError(
            f"no election at {election}: pass --election (the sample election ships with the "
            "source tree, in samples/general/election.json)"
        )
    db = Path(args.db)
    if db.exists():
        raise UsageError(f"{db} already exists; give a new file for the sample store")
    images = Path(args.images) if args.images else db.with_name(db.stem + "-images")
    store = build_sample_store(
        db, images, election_path=election, read=not args.scripted, dpi=100 if args.scripted else 150
    )
    counts = {}
    for s in store.sheets():
        counts[s.status] = counts.get(s.status, 0) + 1
    store.close()
    print(
        f"{db}: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(counts.items())) + f"; images in {images}"
    )
    return 0


def _read_password(args: argparse.Namespace) -> str:
    """The new password: the first line of stdin, or typed twice at a terminal; never a traceback."""
    from ..adjudicate.users import MIN_PASSWORD_CHARS

    if args.password_stdin:
        line = sys.stdin.readline() if sys.stdin is not None else ""
        if not line:
            raise UsageError("no password on standard input (it is empty or closed)")
        return line.rstrip("\r\n")
    if sys.stdin is None or not sys.stdin.isatty():
        raise UsageError("standard input is not a terminal: pipe the password with --password-stdin")
    try:
        first = getpass.getpass(f"Password for {args.name}: ")
        if len(first) < MIN_PASSWORD_CHARS:
            raise UsageError(f"a password needs at least {MIN_PASSWORD_CHARS} characters")
        again = getpass.getpass("Again: ")
    except EOFError:
        raise UsageError("standard input closed before the password was typed") from None
    if first != again:
        raise UsageError("the two passwords differ")
    return first


def _election_parties(db: str):
    """The store's election's parties, to choose an account's party from (None before any scan)."""
    from ..store import StoreError, open_store

    try:
        store = open_store(db, create=False)
    except StoreError:
        return None
    try:
        election = store.election()
    except StoreError:
        return None
    finally:
        store.close()
    return election.parties if election is not None else None


def _check_new_user(conn, args: argparse.Namespace) -> None:
    """What can be checked before anyone types a password (31 KAR 4:220 Section 7(1) for reviewers)."""
    from ..adjudicate.names import NameRefused, election_party, normal_name
    from ..adjudicate.users import find_user

    if args.role == "reviewer" and not (args.party or "").strip():
        raise UsageError(
            "a reviewer needs --party: teams pair reviewers of differing parties (31 KAR 4:220 Section 7(1))"
        )
    try:
        name = normal_name(args.name)
        parties = _election_parties(args.db)
        if args.party and args.party.strip() and parties is not None:
            election_party(args.party, parties)
    except NameRefused as e:
        raise UsageError(str(e)) from None
    if find_user(conn, name) is not None:
        raise UsageError(f"there is already a user named {name!r}")


#: A board decides by majority (31 KAR 4:220 Section 9(12)(a)); fewer than three accounts
#: lets one or two people decide alone.
MIN_BOARD_ACCOUNTS = 3


def run_users_add(args: argparse.Namespace) -> int:
    from ..adjudicate.users import UserError, add_user, list_users

    conn = _connect(args.db, must_exist=False)
    _check_new_user(conn, args)
    password = _read_password(args)
    try:
        user = add_user(
            conn, args.name, args.role, password, party=args.party, actor="cli", parties=_election_parties(args.db)
        )
    except UserError as e:
        raise UsageError(str(e)) from None
    print(f"added {user.role} {user.label}")
    board = sum(1 for u, _ in list_users(conn) if u.role == "board" and not u.disabled)
    if user.role == "board" and board < MIN_BOARD_ACCOUNTS:
        print(
            f"tabulate: warning: the board has {board} account(s); it decides by majority "
            f"(31 KAR 4:220 Section 9(12)(a)), so add at least {MIN_BOARD_ACCOUNTS}",
            file=sys.stderr,
        )
    return 0


def run_users_list(args: argparse.Namespace) -> int:
    from ..adjudicate.users import list_users

    conn = _connect(args.db)
    for user, locked in list_users(conn):
        state = "disabled" if user.disabled else ("locked" if locked else "active")
        print(f"{user.name}\t{user.role}\t{user.party or '-'}\t{state}")
    return 0


def run_users_unlock(args: argparse.Namespace) -> int:
    from ..adjudicate.users import UserError, unlock

    conn = _connect(args.db)
    try:
        user = unlock(conn, args.name, actor="cli")
    except UserError as e:
        raise UsageError(str(e)) from None
    print(f"unlocked {user.name}")
    return 0


def run_log_verify(args: argparse.Namespace) -> int:
    from ..adjudicate import auditlog

    conn = _connect(args.db)
    check = auditlog.verify(conn)
    if check.ok:
        print(f"audit log intact: {check.entries} entries; head entry {check.head_seq} hash {check.head_hash}")
        print("write the head down (with the date) to detect a later removal of the newest entries")
        return 0
    print(
        f"audit log TAMPERED: {check.problem} (first bad entry: {check.first_bad_seq}; {check.entries} entries read)",
        file=sys.stderr,
    )
    return 1
