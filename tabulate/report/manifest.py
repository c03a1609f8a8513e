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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..core import keys
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
    return keys.public_hex(public_key)


def make_keys(folder: Path, name: str = "county") -> tuple[Path, Path]:
    """Create ``<name>.key`` (private, PKCS#8 PEM, mode 0600) and ``<name>.pub`` in ``folder``; never overwrite."""
    try:
        return keys.make_key_pair(folder, name)
    except keys.KeyFileError as e:
        raise ManifestError(str(e)) from None


def load_private_key(path: Path):
    try:
        return keys.load_private_key(path)
    except keys.KeyFileError as e:
        raise ManifestError(str(e)) from None


def load_public_key(path: Path) -> str:
    """A public key file (PEM) as the hex the manifests carry."""
    try:
        return keys.load_public_key(path)
    except keys.KeyFileError as e:
        raise ManifestError(str(e)) from None


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
        # The journal numbers its entries 1..N without a gap (verify checks it): the head's number is the count.
        # `tabulate verify --against` this manifest shows a store whose journal holds fewer (truncated, older copy).
        "store_entries": head[0],
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


def read_manifest(path: Path, *, public_key_hex: str | None = None) -> tuple[ManifestCheck, dict[str, Any]]:
    """Read a manifest and check its signature (not its files): the check, and the manifest's fields.

    ``path`` is the manifest or the exported file beside it.
    """
    path = Path(path)
    if not path.name.endswith(SUFFIX) and manifest_path(path).is_file():
        path = manifest_path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ManifestError(f"cannot read the manifest {path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return ManifestCheck(False, f"{path} is not a tabulate export manifest"), {}
    signature, signer = doc.get("signature"), doc.get("public_key")
    if not signature or not signer:
        return ManifestCheck(False, f"{path.name} is not signed (the export was made without --key)"), doc
    if public_key_hex is not None and signer != public_key_hex:
        return ManifestCheck(False, f"{path.name} is signed by another key ({signer[:16]}...) than the one given"), doc
    body = {k: v for k, v in doc.items() if k != "signature"}
    if not keys.signature_valid(signer, canonical_json(body), signature):
        return ManifestCheck(False, f"{path.name}: the signature does not match its contents (altered)"), doc
    return ManifestCheck(True, files=len(doc.get("files", [])), signed_by=signer), doc


def signed_head(doc: dict[str, Any]) -> tuple[int, str]:
    """The store's journal head a manifest names: ``(entry number, hash)``."""
    head = doc.get("store_head") or {}
    entry, digest = head.get("entry"), head.get("hash")
    if not isinstance(entry, int) or not isinstance(digest, str):
        raise ManifestError("the manifest names no store head (store_head.entry, store_head.hash)")
    return entry, digest


def verify_manifest(path: Path, *, public_key_hex: str | None = None) -> ManifestCheck:
    """Check a manifest's signature and each listed file (next to the manifest)."""
    path = Path(path)
    if not path.name.endswith(SUFFIX) and manifest_path(path).is_file():
        path = manifest_path(path)
    check, doc = read_manifest(path, public_key_hex=public_key_hex)
    if not check.ok:
        return check
    for f in doc.get("files", []):
        target = path.parent / f["name"]
        if not target.is_file():
            return ManifestCheck(False, f"{f['name']} is listed in {path.name} but missing")
        if _sha256(target) != f["sha256"]:
            return ManifestCheck(False, f"{f['name']}: its SHA-256 differs from the signed manifest (altered)")
    return check
