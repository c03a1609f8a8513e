"""How the scan's reader processes start: a forkserver that preloads the reader, started as early as possible.

Workers fork from a clean server that imported the reader, loaded the
kernels' compiled code and built every page's sample points
(`tabulate.central.preload`), never from the parent (which holds an open
SQLite connection and threads). That preload is most of a scan's start-up
(~1.8 CPU s: numba alone ~0.45 s to import and ~0.5 s for its first call;
docs/perf.md, start-up), and it runs on one core. The pool would start the
server at the first sheet, after the parent has loaded the election, opened
and checked the store and listed the batch (~0.3-0.6 CPU s); `start_early`
starts it as soon as the election is loaded, so the two overlap on two cores,
and `start_before_parsing` before the CLI has even parsed the command line.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.forkserver
from pathlib import Path

from .layouts_warm import offer_election, withdraw_election

#: Elections offered to a forkserver started early, by election hash, until a pool takes the offer.
_EARLY: dict[str, Path | None] = {}
#: Whether the server was started before any election was known (`start_before_parsing`).
_BARE: list[bool] = [False]
#: Options after which ``tabulate scan`` starts no local readers, or starts them its own way.
_NOT_EARLY = frozenset({"-h", "--help", "--cluster", "--templates"})


def reader_context():
    """The multiprocessing context the readers start in: forkserver with the preload where there is one."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["tabulate.central.preload"])
        return ctx
    return multiprocessing.get_context("spawn")


def start_early(election=None) -> bool:
    """Start the readers' forkserver now, its preload warming ``election``'s layouts; True if started here.

    With no election (`start_before_parsing`) the workers load the layouts
    from the signed on-disk cache instead (`tabulate.central.layouts_cache`).
    Safe to call when the scan then fails before reading (the server exits
    with this process, and the offered file is removed at exit at the latest).
    """
    if reader_context().get_start_method() != "forkserver" or _BARE[0]:
        return False
    if election is None:
        _BARE[0] = True
    else:
        if election.hash in _EARLY:
            return False
        offered = offer_election(election)
        _EARLY[election.hash] = offered
        atexit.register(withdraw_election, offered)
    multiprocessing.forkserver.ensure_running()
    return True


def start_before_parsing(argv: list[str]) -> bool:
    """``tabulate scan``'s readers' forkserver started before the CLI imports its commands and parses ``argv``.

    The preload (numba, OpenCV, the kernels' compiled code: ~1.1-1.3 CPU s)
    is what a cold scan's first sheet waits for; started here it runs on the
    other core while this process imports the commands, parses the arguments,
    loads the election, lists the batch and opens the store (~0.4-0.6 CPU s).
    Only for a command line that names the election and the store (argparse
    refuses anything else before any sheet is read, and the server then exits
    with this process), and not for --help, --cluster or --templates.
    """
    if not argv or argv[0] != "scan":
        return False
    words = {a.split("=", 1)[0] for a in argv[1:]}
    if words & _NOT_EARLY or not {"--election", "--db"} <= words:
        return False
    return start_early(None)


def take_offer(election) -> tuple[bool, Path | None]:
    """(whether a server was started early for ``election``, the file it was offered in) — once."""
    if election.hash in _EARLY:
        return True, _EARLY.pop(election.hash)
    return _BARE[0], None
