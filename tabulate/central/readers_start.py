"""How the scan's reader processes start: a forkserver that preloads the reader, started as early as possible.

Workers fork from a clean server that imported the reader, loaded the
kernels' compiled code and built every page's sample points
(`tabulate.central.preload`), never from the parent (which holds an open
SQLite connection and threads). That preload is most of a scan's start-up
(~1.8 CPU s: numba alone ~0.45 s to import and ~0.5 s for its first call;
docs/perf.md, start-up), and it runs on one core. The pool would start the
server at the first sheet, after the parent has loaded the election, opened
and checked the store and listed the batch (~0.3-0.6 CPU s); `start_early`
starts it as soon as the election is loaded, so the two overlap on two cores.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.forkserver
from pathlib import Path

from .layouts_warm import offer_election, withdraw_election

#: Elections offered to a forkserver started early, by election hash, until a pool takes the offer.
_EARLY: dict[str, Path | None] = {}


def reader_context():
    """The multiprocessing context the readers start in: forkserver with the preload where there is one."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["tabulate.central.preload"])
        return ctx
    return multiprocessing.get_context("spawn")


def start_early(election) -> bool:
    """Start the readers' forkserver now, its preload warming ``election``'s layouts; True if started here.

    Safe to call when the scan then fails before reading (the server exits
    with this process, and the offered file is removed at exit at the latest).
    """
    if reader_context().get_start_method() != "forkserver" or election.hash in _EARLY:
        return False
    offered = offer_election(election)
    _EARLY[election.hash] = offered
    atexit.register(withdraw_election, offered)
    multiprocessing.forkserver.ensure_running()
    return True


def take_offer(election) -> tuple[bool, Path | None]:
    """(whether a server was started early for ``election``, the file it was offered in) — once."""
    if election.hash in _EARLY:
        return True, _EARLY.pop(election.hash)
    return False, None
