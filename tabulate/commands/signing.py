"""``tabulate keys make|register`` and ``tabulate verify-export``: the county's and stations' keys, checking an export.

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
    make.add_argument(
        "--station",
        metavar="NAME",
        help="make a station's key instead (NAME.key, NAME.pub): it signs the journal entries this scanner "
        "or review server writes; register NAME.pub with `tabulate keys register`",
    )
    make.set_defaults(func=_make)
    reg = ksub.add_parser(
        "register",
        help="register a station's public key in the store's journal, signed by the county key",
        description="Write a station_registered entry naming the station and its public key, signed by the "
        "county key. From the first registration on, every journal entry must be signed by a registered "
        "station, and `tabulate verify` names any that is not. Creates the store if it does not exist.",
    )
    reg.add_argument("--db", required=True, metavar="FILE", help="the store (a SQLite file or postgresql:// URL)")
    reg.add_argument("--station", type=Path, required=True, metavar="NAME.pub", help="the station's public key")
    reg.add_argument("--name", help="the station's name (default: the file name without .pub)")
    reg.add_argument("--key", type=Path, required=True, metavar="FILE", help="the county's private key (county.key)")
    reg.add_argument("--actor", default="county", help="who registers it, for the journal (default county)")
    reg.set_defaults(func=_register)
    k.set_defaults(
        func=lambda args: (_ for _ in ()).throw(UsageError("say `tabulate keys make --out DIR` or `keys register`"))
    )

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
        private, public = make_keys(args.out, args.station or args.name)
    except ManifestError as e:
        raise UsageError(str(e)) from None
    if args.station:
        print(f"wrote {private} (private: this station's alone; keep it on the station, out of the store's folder)")
        print(f"wrote {public} (public: register it with `tabulate keys register --db STORE --station {public}`)")
        return 0
    print(f"wrote {private} (private: keep it off the store's machine, never commit it)")
    print(f"wrote {public} (public: publish it)")
    return 0


def _register(args: argparse.Namespace) -> int:
    from .station_keys import run_register

    return run_register(args)


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
