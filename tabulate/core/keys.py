"""Ed25519 key files and the two things tabulate signs with them: export manifests and journal entries.

One module for every key (the `cryptography` package): the county's key
(``tabulate keys make --out DIR``), which signs exports and registers
stations, and each station's key (``tabulate keys make --station NAME``),
which signs the journal entries that station writes. A private key is a
PKCS#8 PEM file written with mode 0600; a public key is a PEM file, carried
inside manifests and journal entries as 64 hex characters.

A journal entry's signature covers its hash (which covers the previous
entry's hash, so a signature vouches for the whole chain up to it) behind a
prefix of its own, so a signature made for one purpose is never valid for the
other (a manifest's signed bytes are canonical JSON and start with ``{``).
Ed25519 signatures are deterministic: the same key and bytes always give the
same signature, so signed outputs stay byte-identical run to run.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import TabulateError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

#: What a journal entry's signature signs, before the entry's hash (domain separation).
ENTRY_SIGNATURE_PREFIX = b"tabulate journal entry/1 "


class KeyFileError(TabulateError, ValueError):
    """A key file that cannot be made or used (the message names the file and what to do)."""

    code = "key"


def public_hex(public_key: Ed25519PublicKey) -> str:
    """The raw 32-byte public key as 64 hex characters (how manifests and the journal name a key)."""
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def make_key_pair(folder: Path, name: str) -> tuple[Path, Path]:
    """Create ``<name>.key`` (private, PKCS#8 PEM, mode 0600) and ``<name>.pub`` in ``folder``; never overwrite."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    folder = Path(folder)
    if not folder.is_dir():
        raise KeyFileError(f"folder {folder} does not exist")
    private_path, public_path = folder / f"{name}.key", folder / f"{name}.pub"
    for p in (private_path, public_path):
        if p.exists():
            raise KeyFileError(f"{p} already exists; a key is made once (move it away to make another)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    # O_EXCL: never follow a file someone put there first; 0600 from the start, not chmod after.
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public_path.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return private_path, public_path


def load_private_key(path: Path, *, owner_only: bool = False) -> Ed25519PrivateKey:
    """Read an Ed25519 private key file.

    ``owner_only`` refuses a file others may read (a station key lives on the
    station's disk; the county key may sit on removable media, whose file
    system often has no modes).
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = Path(path)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as e:
        raise KeyFileError(f"cannot read the signing key {path}: {getattr(e, 'strerror', None) or e}") from None
    if owner_only and os.name == "posix" and mode & 0o077:
        raise KeyFileError(f"the key {path} may be read by others (mode {mode:04o}); chmod 600 {path}")
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path} is not an Ed25519 private key (make one with `tabulate keys make`)")
    return key


def load_public_key(path: Path) -> str:
    """A public key file (PEM) as the 64 hex characters manifests and the journal carry."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (OSError, ValueError) as e:
        raise KeyFileError(f"cannot read the public key {path}: {getattr(e, 'strerror', None) or e}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{path} is not an Ed25519 public key")
    return public_hex(key)


def sign_entry(key: Ed25519PrivateKey, entry_hash: str) -> str:
    """The signature (128 hex characters) of a journal entry whose hash is ``entry_hash``."""
    return key.sign(ENTRY_SIGNATURE_PREFIX + entry_hash.encode("ascii")).hex()


def signature_valid(public_key: str, message: bytes, signature: str) -> bool:
    """Whether ``signature`` (hex) is the key's (hex) Ed25519 signature of ``message``; False for malformed input."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key)).verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def entry_signature_valid(public_key: str, entry_hash: str, signature: str) -> bool:
    """Whether ``signature`` is ``public_key``'s signature of the journal entry whose hash is ``entry_hash``."""
    return signature_valid(public_key, ENTRY_SIGNATURE_PREFIX + entry_hash.encode("ascii"), signature)
