"""Signed export manifests: which files an export wrote, from which store head, signed by the county.

An export's manifest (``<file>.manifest.json``) lists each file's name,
size and SHA-256, the store's journal head (entry number and hash, as
`tabulate status` publishes it), whether the store verified, and the
software version. It is signed with the county's Ed25519 key (``tabulate
keys make``, the `cryptography` package): the signature covers the canonical
JSON of every other field, so changing a file, the head or the flag breaks
it. Ed25519 signatures are deterministic, and the manifest holds no clock
time, so the same export signs to the same bytes.

`verify_manifest` checks the signature (against the county's published
public key when given) and every file's digest.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..core.canonical import canonical_json
from ..core.errors import TabulateError

FORMAT = "tabulate-export-manifest/1"
SUFFIX = ".manifest.json"


class ManifestError(TabulateError, ValueError):
    """A manifest or key that cannot be used or does not check out (the message names what)."""

    code = "manifest"


@dataclass(frozen=True)
class ManifestCheck:
    ok: bool
    problem: str = ""
    files: int = 0
    signed_by: str = ""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _public_hex(public_key) -> str:
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def make_keys(folder: Path, name: str = "county") -> tuple[Path, Path]:
    """Create ``<name>.key`` (private, PKCS#8 PEM, mode 0600) and ``<name>.pub`` in ``folder``; never overwrite."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    folder = Path(folder)
    if not folder.is_dir():
        raise ManifestError(f"folder {folder} does not exist")
    private_path, public_path = folder / f"{name}.key", folder / f"{name}.pub"
    for p in (private_path, public_path):
        if p.exists():
            raise ManifestError(f"{p} already exists; a county key is made once (move it away to make another)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public_path.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return private_path, public_path


def load_private_key(path: Path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as e:
        raise ManifestError(f"cannot read the signing key {path}: {e}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ManifestError(f"{path} is not an Ed25519 private key (make one with `tabulate keys make`)")
    return key


def load_public_key(path: Path) -> str:
    """A public key file (PEM) as the hex the manifests carry."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (OSError, ValueError) as e:
        raise ManifestError(f"cannot read the public key {path}: {e}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ManifestError(f"{path} is not an Ed25519 public key")
    return _public_hex(key)


def manifest_path(out: Path) -> Path:
    return out.with_name(out.name + SUFFIX)


def write_manifest(
    files: Sequence[Path], *, report: str, head: tuple[int, str], verified: bool, software: str, key_path: Path | None
) -> Path:
    """Write (and sign, given a key) the manifest of the export whose first file is ``files[0]``."""
    body: dict[str, Any] = {
        "format": FORMAT,
        "report": report,
        "software": software,
        "verified": verified,
        "store_head": {"entry": head[0], "hash": head[1]},
        "files": [{"name": p.name, "bytes": p.stat().st_size, "sha256": _sha256(p)} for p in files],
    }
    if key_path is not None:
        key = load_private_key(key_path)
        body["public_key"] = _public_hex(key.public_key())
        body["signature"] = key.sign(canonical_json(body)).hex()
    else:
        body["public_key"] = None
        body["signature"] = None
    path = manifest_path(files[0])
    path.write_text(json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def verify_manifest(path: Path, *, public_key_hex: str | None = None) -> ManifestCheck:
    """Check a manifest's signature and each listed file (next to the manifest)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    path = Path(path)
    if not path.name.endswith(SUFFIX) and manifest_path(path).is_file():
        path = manifest_path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ManifestError(f"cannot read the manifest {path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return ManifestCheck(False, f"{path} is not a tabulate export manifest")
    signature, signer = doc.get("signature"), doc.get("public_key")
    if not signature or not signer:
        return ManifestCheck(False, f"{path.name} is not signed (the export was made without --key)")
    if public_key_hex is not None and signer != public_key_hex:
        return ManifestCheck(False, f"{path.name} is signed by another key ({signer[:16]}...) than the one given")
    body = {k: v for k, v in doc.items() if k != "signature"}
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(signer)).verify(bytes.fromhex(signature), canonical_json(body))
    except (InvalidSignature, ValueError):
        return ManifestCheck(False, f"{path.name}: the signature does not match its contents (altered)")
    for f in doc.get("files", []):
        target = path.parent / f["name"]
        if not target.is_file():
            return ManifestCheck(False, f"{f['name']} is listed in {path.name} but missing")
        if _sha256(target) != f["sha256"]:
            return ManifestCheck(False, f"{f['name']}: its SHA-256 differs from the signed manifest (altered)")
    return ManifestCheck(True, files=len(doc.get("files", [])), signed_by=signer)
