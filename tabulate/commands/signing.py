"""``tabulate keys make`` and ``tabulate verify-export``: the county's signing key and checking an export.

The private key is a file the county keeps off the counting machine's store
(on removable media, like a seal); exports name it with ``--key``. Only the
public key (``county.pub``) is published, and ``verify-export`` checks a
manifest against it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .errors import UsageError


def register(subparsers) -> None:
    k = subparsers.add_parser("keys", help="the county's Ed25519 signing key for exports")
    ksub = k.add_subparsers(dest="keys_command", metavar="ACTION")
    make = ksub.add_parser(
        "make",
        help="create a key pair: NAME.key (private, mode 0600) and NAME.pub",
        description="Create the county's Ed25519 key pair. Keep NAME.key off the store's "
        "machine and out of any repository; publish NAME.pub.",
    )
    make.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder to write the two files in")
    make.add_argument("--name", default="county", help="file name stem (default county)")
    make.set_defaults(func=_make)
    k.set_defaults(func=lambda args: (_ for _ in ()).throw(UsageError("say `tabulate keys make --out DIR`")))

    v = subparsers.add_parser(
        "verify-export",
        help="check an export's signed manifest and its files",
        description="Check the signature of an export's manifest and the SHA-256 of every "
        "file it lists. PATH is the manifest or the exported file.",
    )
    v.add_argument("path", type=Path, metavar="PATH")
    v.add_argument(
        "--public-key",
        type=Path,
        metavar="FILE",
        help="the county's published public key; without it the manifest's own key is only "
        "checked for consistency, which proves integrity but not who signed",
    )
    v.set_defaults(func=_verify_export)


def _make(args: argparse.Namespace) -> int:
    from ..report.manifest import ManifestError, make_keys

    try:
        private, public = make_keys(args.out, args.name)
    except ManifestError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {private} (private: keep it off the store's machine, never commit it)")
    print(f"wrote {public} (public: publish it)")
    return 0


def _verify_export(args: argparse.Namespace) -> int:
    import sys

    from ..report.manifest import ManifestError, load_public_key, verify_manifest

    try:
        expected = load_public_key(args.public_key) if args.public_key else None
        check = verify_manifest(args.path, public_key_hex=expected)
    except ManifestError as e:
        raise UsageError(str(e)) from None
    if not check.ok:
        print(f"tabulate: verify-export failed: {check.problem}", file=sys.stderr)
        return 1
    who = "the county key given" if expected else f"the key in the manifest ({check.signed_by[:16]}...)"
    print(f"verified: {check.files} file(s), signature by {who}")
    return 0
