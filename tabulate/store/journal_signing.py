"""Signed journal entries: who may extend the journal, and checking that only they did.

Extending a hash chain needs no secret, so someone who can write the
database alone (a shared PostgreSQL account, a copied SQLite file) could
append entries -- a whole decision with a consistent reviewers' entry -- that
chain perfectly. Here each station (a scanning machine, a review app server)
signs every entry it writes with its own Ed25519 key, held in a file outside
the store (`tabulate.core.keys`); the database never holds a private key.

Who is a station is itself in the journal: a ``station_registered`` entry
names a station and its public key and is signed by the county's key (the
one that signs exports, brought to the machine for the moment, like a seal).
Its signature covers the entry's hash, hence the previous entry's hash: a
registration cannot be copied into another store, and it vouches for every
entry before it as the county saw them. The county key is the key that
signed the first registration; every later registration must be signed by
the same key, and ``verify --county-key``/``--against`` check it against the
county's published key.

From the first registration on, every entry must be signed by a registered
station (or the county key); `SignatureWalk` names the first that is not. A
store with no registration at all (made before this, or never set up) is
*unsigned*: it still verifies, and ``verify`` says so in one line.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..core import keys
from ..core.errors import TabulateError

#: The entry kind that registers a station's public key (signed by the county key).
REGISTER = "station_registered"


class SigningError(TabulateError, RuntimeError):
    """A journal write that would break the store's signatures (no key, or a key the store does not know)."""

    code = "station_key"


@dataclass(frozen=True)
class Signer:
    """A private key this process signs its journal entries with, and where it came from (for messages)."""

    key: Any  # Ed25519PrivateKey
    public_key: str
    origin: str

    @classmethod
    def from_file(cls, path: Path, *, owner_only: bool = True) -> Signer:
        key = keys.load_private_key(path, owner_only=owner_only)
        return cls(key, keys.public_hex(key.public_key()), str(path))

    def sign(self, entry_hash: str) -> str:
        return keys.sign_entry(self.key, entry_hash)


#: The signer of this process: one process is one station (`signing_as` sets it for a command).
_current: Signer | None = None


@contextmanager
def signing_as(signer: Signer | None) -> Iterator[Signer | None]:
    """Sign the journal entries this process writes with ``signer`` inside the block (None: unsigned)."""
    global _current
    before, _current = _current, signer
    try:
        yield signer
    finally:
        _current = before


def current_signer() -> Signer | None:
    return _current


@dataclass
class Registry:
    """The stations a journal registers: the county key that registered them, and each key's station name."""

    county_key: str | None = None
    first_seq: int | None = None
    stations: dict[str, str] = field(default_factory=dict)

    def name(self, public_key: str) -> str | None:
        """The station's name, ``county key`` for the county's, None for a key the journal does not register."""
        if public_key == self.county_key:
            return "county key"
        return self.stations.get(public_key)


def registry(conn) -> Registry:
    """The registrations in a connection's journal, as written (their signatures are checked by `verify`)."""
    reg = Registry()
    rows = conn.execute("SELECT seq, signer, data FROM journal WHERE kind = ? ORDER BY seq", (REGISTER,)).fetchall()
    for seq, signer, data in rows:
        if reg.county_key is None:
            reg.county_key, reg.first_seq = signer, seq
        doc = json.loads(data)
        reg.stations[str(doc.get("public_key"))] = str(doc.get("station"))
    return reg


def _unknown_key(signer: Signer) -> str:
    return (
        f"the station key {signer.origin} ({signer.public_key[:16]}...) is not registered in this store; "
        "register it with `tabulate keys register --db STORE --station NAME.pub --key county.key`"
    )


def signer_for(conn, kind: str, signer: Signer | None) -> Signer | None:
    """The key to sign a new entry of ``kind`` with, or None for an unsigned store; refuse a write that would
    leave an entry `verify` names (see the module docstring)."""
    reg = registry(conn)
    if kind == REGISTER:
        if signer is None:
            raise SigningError("a station is registered with the county key (--key county.key)")
        if reg.county_key is not None and signer.public_key != reg.county_key:
            raise SigningError(
                f"{signer.origin} is not the county key that registered this store's first station "
                f"({reg.county_key[:16]}...)"
            )
        return signer
    if reg.county_key is None:
        return None  # an unsigned store stays unsigned until the county registers a station
    if signer is None:
        raise SigningError(
            "this store's journal is signed (its stations are registered), and no station key was given: "
            "--station-key FILE, $TABULATE_STATION_KEY, or keys/station.key beside the store"
        )
    if reg.name(signer.public_key) is None:
        raise SigningError(_unknown_key(signer))
    return signer


def check_registered(conn, signer: Signer | None) -> str | None:
    """Before a station starts writing: why its entries could not be written or would not verify (None: fine)."""
    try:
        signer_for(conn, "check", signer)
    except SigningError as e:
        return str(e)
    return None


@dataclass
class SignatureWalk:
    """Checks each entry's signature in turn, as the chain is walked (`tabulate.store.journal.check_chain`).

    ``county_key`` (hex), when given, is the county's published key: the
    registrations must be signed by it, and a store that registers no station
    is then refused rather than merely unsigned.
    """

    county_key: str | None = None
    registry: Registry = field(default_factory=Registry)
    unsigned_before: int = 0

    def problem(self, entry: Mapping[str, Any]) -> str | None:
        """Why this (chain-valid) entry's signature does not hold, in one line; None when it does."""
        seq, kind, signer, signature = entry["seq"], entry["kind"], entry["signer"], entry["signature"]
        what = f"journal entry {seq} ({kind}" + (f" by {entry['actor']})" if entry.get("actor") else ")")
        if signer is not None and not keys.entry_signature_valid(signer, entry["hash"], signature or ""):
            return f"{what}: its signature does not match the entry (altered, or a signature copied from another)"
        reg = self.registry
        if kind == REGISTER:
            return self._registration(entry, what)
        if reg.county_key is None:
            self.unsigned_before += 1  # before the first registration: vouched for by its county signature
            return None
        if signer is None:
            return (
                f"{what} is unsigned, but every entry after the first station was registered (entry "
                f"{reg.first_seq}) is signed by its station: written without a station key (forged?)"
            )
        if reg.name(signer) is None:
            return f"{what} is signed by a key no station registration names ({signer[:16]}...): forged?"
        return None

    def _registration(self, entry: Mapping[str, Any], what: str) -> str | None:
        reg, signer = self.registry, entry["signer"]
        if signer is None:
            return f"{what} registers a station but is not signed by the county key (forged?)"
        expected = reg.county_key or self.county_key
        if expected is not None and signer != expected:
            whose = "the county key given" if reg.county_key is None else f"the county key of entry {reg.first_seq}"
            return f"{what} is signed by {signer[:16]}..., not by {whose} ({expected[:16]}...): forged?"
        if reg.county_key is None:
            reg.county_key, reg.first_seq = signer, entry["seq"]
        data = entry["data"]
        reg.stations[str(data.get("public_key"))] = str(data.get("station"))
        return None

    def finish(self) -> str | None:
        """After the last entry: a county key was given but the journal registers no station."""
        if self.county_key is not None and self.registry.county_key is None:
            return (
                "the journal registers no station, so none of its entries is signed, but a county key was "
                "given: this is not the signed store the county set up (rewritten unsigned?)"
            )
        return None
