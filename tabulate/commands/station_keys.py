"""Station keys: which key this process signs its journal entries with, and registering a station.

Every command that writes the journal signs its entries with the station's
key when the store registers stations (`tabulate.store.journal_signing`).
The key is found, in order:

1. ``--station-key FILE`` (``scan``, ``review serve``);
2. ``$TABULATE_STATION_KEY``;
3. ``keys/station.key`` beside a SQLite store (where ``tabulate demo`` makes
   its own, so the README's commands run unchanged on its store);
4. for an export, the county key given with ``--key`` (the county key may
   sign any entry: it is the key that registers the stations).

``tabulate keys register --db F --station NAME.pub --key county.key`` writes
the ``station_registered`` entry, signed by the county key.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import UsageError

#: The environment variable naming this station's key file.
ENV = "TABULATE_STATION_KEY"
#: Where a station key is looked for beside a SQLite store (``<store folder>/keys/station.key``).
BESIDE = Path("keys") / "station.key"


def add_station_key_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--station-key",
        type=Path,
        metavar="FILE",
        help=f"this station's private key (tabulate keys make --station NAME), to sign its journal entries "
        f"(default: ${ENV}, else {BESIDE} beside the store)",
    )


def station_key_path(args: argparse.Namespace) -> Path | None:
    """The station key file this command signs with (see the module docstring), or None."""
    given = getattr(args, "station_key", None)
    if given:
        return Path(given)
    env = os.environ.get(ENV, "").strip()
    if env:
        return Path(env)
    db = str(getattr(args, "db", None) or "")
    if db and "://" not in db:
        beside = Path(db).parent / BESIDE
        if beside.is_file():
            return beside
    return None


def process_signer(args: argparse.Namespace):
    """The `Signer` for this command: a station key, else an export's county key, else None."""
    from ..store.journal_signing import Signer

    path = station_key_path(args)
    if path is not None:
        return Signer.from_file(path)
    county = getattr(args, "key", None)
    if isinstance(county, Path) and county.is_file():
        return Signer.from_file(county, owner_only=False)
    return None


@contextmanager
def signing_for(args: argparse.Namespace) -> Iterator[None]:
    """Run a command with its station key as the process's journal signer."""
    from ..store.journal_signing import signing_as

    with signing_as(process_signer(args)):
        yield


def station_problem(store) -> str | None:
    """Why this process could not write ``store``'s journal with its key, or None; warns (stderr) when a key
    is given for a store that registers none (its entries stay unsigned)."""
    from ..store.journal_signing import current_signer

    signer = current_signer()
    problem = store.signing_problem(signer)
    if problem is None and signer is not None and not store.journal_registry().stations:
        print(
            f"tabulate: warning: {store.path} registers no station, so its journal entries are not signed "
            f"(tabulate keys register --db {store.path} --station NAME.pub --key county.key)",
            file=sys.stderr,
        )
    return problem


def run_register(args: argparse.Namespace) -> int:
    """``tabulate keys register``: the county key registers a station's public key in the store's journal."""
    from ..core.keys import KeyFileError, load_public_key
    from ..store import StoreError, open_store
    from ..store.journal_signing import Signer, SigningError

    try:
        county = Signer.from_file(args.key, owner_only=False)
        public = load_public_key(args.station)
    except KeyFileError as e:
        raise UsageError(str(e)) from None
    name = (args.name or args.station.stem).strip()
    if not name:
        raise UsageError("the station needs a name (--name)")
    try:
        store = open_store(args.db)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        known = store.journal_registry()
        if known.stations.get(public) == name:
            print(f"station {name} ({public[:16]}...) is already registered in {args.db}")
            return 0
        try:
            entry = store.register_station(name, public, county=county, actor=args.actor)
        except SigningError as e:
            raise UsageError(str(e)) from None
    finally:
        store.close()
    print(
        f"registered station {name} ({public[:16]}...) in {args.db}: journal entry {entry.seq}, signed by the county key"
    )
    return 0
