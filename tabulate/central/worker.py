"""What a worker process does with one sheet: load, fingerprint, interpret.

Workers never touch the store; they return a `SheetOutcome` and the parent
alone writes. Nothing a sheet contains can stop the batch: every failure
becomes a rejection with a reason.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import traceback
from collections.abc import Collection
from dataclasses import dataclass

from ..election import PAPER_SIZES_IN, Election
from ..store.base import PageImage, SheetOutcome, SheetReason, sheet_identity
from .interpret import Interpretation, Interpreter
from .pages import PageLoadError, load_page, unreadable_digest
from .sources import MISSING_BACK, SheetSource

READER_FAILED = "reader_failed"

_MISSING_TEXT = {
    MISSING_BACK: "the sheet's other side was not found (an odd page count, or a front without its back)",
    "missing_front_page": "a back page without its front",
}

_state: dict = {}
_HAVE_PROC = os.path.exists("/proc/self/stat")


def fingerprint(
    sheet: SheetSource, election: Election
) -> tuple[list[bytes | None], tuple[PageImage, ...], str, PageLoadError | None]:
    """Load a sheet's pages: their bytes, `PageImage`s, the sheet identity, and the first load error."""
    data: list[bytes | None] = []
    images = []
    error = None
    paper_in = PAPER_SIZES_IN[election.paper_size]
    for page in sheet.pages:
        try:
            content, digest = load_page(page, paper_in)
        except PageLoadError as e:
            content, digest, error = None, unreadable_digest(page), error or e
        data.append(content)
        images.append(PageImage(page.label, digest))
    return data, tuple(images), sheet_identity(p.sha256 for p in images), error


@dataclass(frozen=True)
class Fingerprinted:
    """A sheet of a resumed batch loaded and hashed but not read: its identity is one the batch holds.

    The parent decides from it, in feed order, whether the batch holds this
    very sheet (same identity, same occurrence) or the sheet must be read.
    """

    position: int
    identity: str
    pages: tuple[PageImage, ...]


def read_sheet_source(election: Election, interpreter: Interpreter, sheet: SheetSource) -> SheetOutcome:
    """Load, fingerprint and interpret one sheet; never raises for anything the sheet holds."""
    return _interpret(election, interpreter, sheet, fingerprint(sheet, election))


def read_unless_recorded(
    election: Election, interpreter: Interpreter, sheet: SheetSource, recorded: Collection[str]
) -> SheetOutcome | Fingerprinted:
    """`read_sheet_source`, except for a sheet whose pages make an identity in ``recorded``.

    ``recorded``: identities a resumed batch already holds for a sheet of
    these files. Such a sheet is not read: a `Fingerprinted` goes back, and
    the parent decides. Its pages are thus read and hashed once, here (the
    parent no longer hashes every file of a resumed batch first), and a file
    changed since its sheet was recorded makes another identity and is read.
    """
    loaded = fingerprint(sheet, election)
    if loaded[2] in recorded:
        return Fingerprinted(sheet.position, loaded[2], loaded[1])
    return _interpret(election, interpreter, sheet, loaded)


def _interpret(
    election: Election,
    interpreter: Interpreter,
    sheet: SheetSource,
    loaded: tuple[list[bytes | None], tuple[PageImage, ...], str, PageLoadError | None],
) -> SheetOutcome:
    data, images, identity, error = loaded
    if error is not None:
        result = Interpretation("rejected", (SheetReason(error.code, error.detail),))
    elif sheet.missing is not None:
        last = sheet.pages[-1].label
        result = Interpretation("rejected", (SheetReason(sheet.missing, f"{last}: {_MISSING_TEXT[sheet.missing]}"),))
    else:
        try:
            result = interpreter(election, data)
        except Exception as e:  # a reader bug: set the sheet aside, keep the batch going
            where = traceback.extract_tb(e.__traceback__)[-1]
            result = Interpretation(
                "rejected",
                (
                    SheetReason(
                        READER_FAILED,
                        f"the reader failed: {type(e).__name__}: {e} "
                        f"({os.path.basename(where.filename)}:{where.lineno})",
                    ),
                ),
            )
    return SheetOutcome(
        position=sheet.position,
        identity=identity,
        pages=images,
        status=result.status,
        reasons=result.reasons,
        style_id=result.style_id,
        precinct_id=result.precinct_id,
        evidence=result.evidence,
        marks=result.marks,
        votes=result.votes,
    )


def _process_token(pid: int) -> str | None:
    """Something that changes when process ``pid`` ends: its start time (Linux), or just its existence.

    None once the process is gone (or a zombie), so a recycled pid is not
    mistaken for the parent.
    """
    if _HAVE_PROC:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return None if fields[0] in ("Z", "X") else fields[19]
    if os.name != "posix":  # on Windows os.kill(pid, 0) would *terminate* the process: no watch
        return "alive"
    try:  # no /proc (macOS): ask the kernel whether the pid exists
        os.kill(pid, 0)
        return "alive"
    except ProcessLookupError:
        return None
    except PermissionError:
        return "alive"


def _exit_when_orphaned(scan_pid: int) -> None:
    # A scan killed with SIGKILL cannot tell its pool to stop, and a worker's
    # parent is the forkserver (which outlives the scan while its workers run):
    # without this the workers would wait on their task queue for ever.
    token = _process_token(scan_pid)
    while token is not None:
        time.sleep(0.5)
        if _process_token(scan_pid) != token:
            break
    os._exit(0)


def one_thread_per_worker() -> None:
    """Make the libraries a worker calls run single-threaded: the pool already runs one reader per core.

    OpenCV's own thread pool made each of the reader's small-window calls
    (a corner's connected components, ~110 x 110 px) hand work to a second
    thread and wait: registration took 0.7 ms more CPU per G4 sheet with it
    (docs/perf.md). The results are the same either way.
    """
    import cv2

    cv2.setNumThreads(1)


#: glibc's ``mallopt`` parameters, and the values a reader process takes (`keep_page_buffers`).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD_BYTES = 32 << 20  # glibc's most on 64-bit: a 200 DPI page (3.7 MB grey) stays on the heap
TRIM_THRESHOLD_BYTES = 64 << 20


@functools.cache  # once a process: the settings are the process's
def keep_page_buffers() -> bool:
    """Make glibc keep a freed page's memory for the next page instead of handing it back to the kernel.

    A decoded 200 DPI page is 3.7 MB. glibc gives a block that large its own
    mapping (``mmap``) unless its adaptive threshold has risen past it, and
    returns the top of its heap to the kernel once more than twice that
    threshold is free; a page then costs ~950 page faults (the kernel zeroing
    each 4 kB) every time it is allocated. Whether the threshold had risen
    depended on how the reader processes were started: forked from a server
    that had built the election's layouts (big arrays, freed), it had; forked
    from one started before the election was known (``tabulate scan`` on the
    command line, a station), it had not, and every G4 sheet took 1,962 page
    faults and 15-19 CPU ms instead of 12 faults and 10 ms (docs/perf.md,
    branch poolgap). Fixed thresholds make it the same either way. False
    where there is no glibc (macOS, musl, Windows): nothing is changed.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))


def init_worker(election: Election, interpreter: Interpreter, scan_pid: int) -> None:
    """Pool initializer: keep the election and the interpreter for every task; exit with the scan."""
    one_thread_per_worker()
    keep_page_buffers()
    _state["election"] = election
    _state["interpreter"] = interpreter
    threading.Thread(target=_exit_when_orphaned, args=(scan_pid,), daemon=True).start()


def ping() -> int:
    """A task that reads nothing: proves a fresh worker can start."""
    return os.getpid()


def read_task(sheet: SheetSource) -> SheetOutcome:
    """The pool's task: one sheet."""
    return read_sheet_source(_state["election"], _state["interpreter"], sheet)


def read_tasks(
    sheets: list[SheetSource], recorded: list[frozenset[str]] | None = None
) -> list[SheetOutcome | Fingerprinted]:
    """The pool's task: a few sheets in feed order, one outcome each (one round trip for all of them).

    ``recorded``: for a resumed batch, each sheet's identities already in the batch (`read_unless_recorded`).
    """
    election, interpreter = _state["election"], _state["interpreter"]
    if recorded is None:
        return [read_sheet_source(election, interpreter, s) for s in sheets]
    return [read_unless_recorded(election, interpreter, s, k) for s, k in zip(sheets, recorded)]
