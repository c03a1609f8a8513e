"""The ``tabulate`` command: one sub-command module per job, under `tabulate.commands`.

Errors a user can fix (a bad election file, a missing image, a bad argument)
are printed as one line and exit with status 2; a traceback is a bug.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .central.readers_start import start_before_parsing
from .commands import UsageError
from .commands.station_keys import signing_for
from .core.errors import TabulateError

__all__ = ["COMMAND_MODULES", "UsageError", "build_parser", "main"]

#: Sub-command modules, in the order ``tabulate --help`` lists them. Each has
#: ``register(subparsers)``, which adds its parsers and sets ``func`` on them.
COMMAND_MODULES = (
    "demo",
    "ballots",
    "samples",
    "templates",
    "read",
    "votes",
    "scan",
    "reports",
    "store_reports",
    "explain",
    "scores",
    "review",
    "verify",
    "signing",
    "testdeck",
    "recanvass",
    "recount",
    "audit",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabulate",
        description="Read scanned Kentucky paper ballots, apply 31 KAR 6:030, count and explain every vote.",
    )
    parser.add_argument("--version", action="version", version=f"tabulate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"tabulate.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # Before the commands are imported and the arguments parsed: a scan's readers start loading on the other core.
    start_before_parsing(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        with signing_for(args):  # the station key this command signs its journal entries with
            return int(args.func(args) or 0)
    except (TabulateError, FileNotFoundError, PermissionError, IsADirectoryError) as e:
        print(f"tabulate: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tabulate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
