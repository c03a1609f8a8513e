"""The ``tabulate`` command: one sub-command module per job, under `tabulate.commands`.

Errors a user can fix (a bad election file, a missing image, a bad argument)
are printed as one line and exit with status 2; a traceback is a bug.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__

#: Sub-command modules, in the order ``tabulate --help`` lists them. Each has
#: ``register(subparsers)``, which adds its parsers and sets ``func`` on them.
COMMAND_MODULES = (
    "demo",
    "ballots",
    "samples",
    "read",
    "votes",
    "scan",
    "reports",
    "store_reports",
    "explain",
    "review",
)


class UsageError(Exception):
    """A mistake the user can fix; printed as one line."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabulate",
        description="Read scanned Kentucky paper ballots, apply 31 KAR 6:030, count and explain every vote.",
    )
    parser.add_argument("--version", action="version", version=f"tabulate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"tabulate.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"tabulate.commands.{name}":
                continue  # not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .election import ElectionError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ElectionError as e:
        print(f"tabulate: {e}", file=sys.stderr)
        return 2
    except (UsageError, FileNotFoundError, PermissionError, IsADirectoryError) as e:
        print(f"tabulate: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tabulate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    # `python -m tabulate.cli` runs this file as __main__, a second copy of the
    # module whose UsageError the commands (importing tabulate.cli) never raise:
    # run the imported module's main so errors are caught as one line.
    from tabulate.cli import main as _main

    sys.exit(_main())
