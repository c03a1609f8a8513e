"""A scanner's hot folder: sheets yielded as the scanner finishes writing their pages.

``tabulate scan --watch DIR`` follows a folder that a scanner fills while it
scans. A page file is taken once it is *complete*:

* its size and modification time have not changed for ``settle`` seconds
  (a scanner still writing it keeps changing both), it is not empty, and
* a JPEG ends with its end-of-image marker and a PNG with its ``IEND``
  chunk, so a file whose writer stalled half-way is not taken for a page.
  A file that never gets its end marker is taken after ``stale`` seconds
  unchanged: the reader then sets it aside as a damaged image, so it is
  still accounted for.

Pages pair by the same rules as a folder given to ``tabulate scan``
(docs/scanning.md), over the *prefix* of the sorted listing that is complete:
a page never pairs across a file still being written. A sheet whose other side
has not arrived waits; when the watch stops it is left unrecorded (a restart
picks it up) and listed in `HotFolder.waiting`.

A folder that holds one tub (``done_marker``, a station's batch folder,
`tabulate.central.tubs`) is *finished* once the scanner has written the marker
file and the marker and every page file are complete by the rules above: its
last sheets are yielded -- a page still without its other side as a sheet set
aside (``missing_back_page``), exactly as ``tabulate scan DIR`` would -- and
the iteration ends.

The clock, the sleep between polls and the folder listing are injectable, so
tests drive a scanner that writes slowly and half-way without real waiting.
Nothing here touches the store: the pipeline (`run_batch`) records what is
yielded exactly once, and a restart skips what an earlier run recorded.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .sources import _TIFF_SUFFIXES, IMAGE_SUFFIXES, SheetSource, _TiffGroup, natural_key, page_groups

#: Seconds a file must stay unchanged before it is taken (a scanner writes a page in well under a second).
SETTLE_SECONDS = 2.0
#: Seconds between listings of the folder.
POLL_SECONDS = 0.5
#: Seconds unchanged after which a file without its end marker is taken anyway (and set aside by the reader).
STALE_SECONDS = 60.0

_JPEG_START, _JPEG_END = b"\xff\xd8", b"\xff\xd9"
_PNG_START, _PNG_END = b"\x89PNG\r\n\x1a\n", b"IEND\xaeB`\x82"


@dataclass(frozen=True)
class FileSeen:
    """A page file as last listed: its size and mtime, and since when (clock) they have not changed."""

    size: int
    mtime_ns: int
    since: float


def _nothing() -> None:
    pass


def list_folder(folder: str) -> list[tuple[str, int, int]]:
    """``(name, size, mtime_ns)`` of every visible regular file in ``folder`` (the default lister)."""
    out = []
    with os.scandir(folder) as it:
        for entry in it:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_file():
                    st = entry.stat()
                    out.append((entry.name, st.st_size, st.st_mtime_ns))
            except OSError:  # removed between the listing and the stat
                continue
    return out


def has_end_marker(path: str) -> bool:
    """False for a JPEG, PNG or PDF whose end marker is not written yet; True for anything else."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 16))
            tail = f.read()
    except OSError:
        return False
    if head.startswith(_JPEG_START):
        # Some writers pad after EOI; the marker must be among the last bytes.
        return _JPEG_END in tail
    if head.startswith(_PNG_START):
        return tail.endswith(_PNG_END)
    if head.startswith(b"%PDF-"):  # a PDF of scans ends with its end-of-file marker
        return b"%%EOF" in tail
    return True


class HotFolder:
    """The sheets a scanner's output folder holds, yielded as each one's pages are complete.

    Iterate it to get `SheetSource`s in the order their pages complete; it
    yields ``None`` when nothing new is ready (the pipeline then calls
    `wait`), and ends once nothing in the folder has changed for
    ``until_idle`` seconds (never, when None: stop with Ctrl-C).

    Parameters
    ----------
    folder
        The folder the scanner writes into (sub-folders are not entered).
    simplex
        Each page is a sheet of its own.
    settle, stale, poll, until_idle
        Seconds; see the module docstring.
    clock, sleep, lister
        ``time.monotonic``, ``time.sleep`` and `list_folder` unless a test injects its own.
    done_marker
        The name of the file the scanner writes when the folder's tub is
        finished: the iteration then ends once every page is taken (see the
        module docstring). None: the folder is never finished.
    not_pages
        Names of the station's own files (the marker, ``batch.json``): not listed as ignored.
    """

    def __init__(
        self,
        folder: str | Path,
        *,
        simplex: bool = False,
        settle: float = SETTLE_SECONDS,
        stale: float = STALE_SECONDS,
        poll: float = POLL_SECONDS,
        until_idle: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        lister: Callable[[str], list[tuple[str, int, int]]] = list_folder,
        done_marker: str | None = None,
        not_pages: frozenset[str] = frozenset(),
    ):
        self.folder = os.path.abspath(folder)
        if not os.path.isdir(self.folder):
            raise NotADirectoryError(f"cannot watch {self.folder}: not a folder")
        self.simplex = simplex
        self.settle, self.stale, self.poll, self.until_idle = settle, stale, poll, until_idle
        self._clock, self._sleep, self._lister = clock, sleep, lister
        self._seen: dict[str, FileSeen] = {}
        self._taken: set[str] = set()
        self._ignored: set[str] = set()
        self._last_poll: float | None = None
        self._last_change = clock()
        self.done_marker = done_marker
        self._not_pages = not_pages | ({done_marker} if done_marker else set())
        self._marker: FileSeen | None = None
        #: True once the folder is finished (``done_marker``) and every sheet has been yielded.
        self.finished = False
        #: Pages complete but waiting for their other side (full paths), as of the last poll.
        self.waiting: list[str] = []
        #: Called after each `wait` (a station's `CtrlC.check`: a Ctrl-C whose exception was lost stops the
        #: watch at the next poll instead of leaving it waiting for a tub's marker).
        self.after_wait: Callable[[], None] = _nothing

    @property
    def ignored(self) -> list[str]:
        """Files in the folder that are not page images (``truth.json``, a scanner's log)."""
        return [os.path.join(self.folder, n) for n in sorted(self._ignored, key=natural_key)]

    @property
    def backlog(self) -> int:
        """Page files present that are not yet part of a sheet handed to the readers."""
        return len(self._seen)

    def wait(self) -> None:
        """Sleep until the next listing is due."""
        due = self.poll if self._last_poll is None else self._last_poll + self.poll - self._clock()
        if due > 0:
            self._sleep(due)
        self.after_wait()

    def __iter__(self) -> Iterator[SheetSource | None]:
        position = 0
        while True:
            ready = self._poll() if self._due() else []
            for pages, missing in ready:
                position += 1
                yield SheetSource(position, pages, missing)
            if ready:
                continue
            if self.finished:
                return
            if self.until_idle is not None and self._clock() - self._last_change >= self.until_idle:
                return
            yield None

    # -- one listing -------------------------------------------------------------------
    def _due(self) -> bool:
        return self._last_poll is None or self._clock() - self._last_poll >= self.poll

    def _poll(self) -> list[tuple[tuple, str | None]]:
        now = self._clock()
        self._last_poll = now
        pages = self._update(now)
        # The complete prefix of the sorted listing: a page never pairs across a file still being written.
        prefix = []
        for name in sorted(pages, key=natural_key):
            if not self._complete(name, now):
                break
            prefix.append(name)
        # The tub is finished only when its marker has settled too and no page file is still being written.
        last = self._marker_settled(now) and len(prefix) == len(pages)
        ready, self.waiting = [], []
        for group in page_groups(self.folder, prefix, simplex=self.simplex):
            whole_file = isinstance(group, _TiffGroup)  # a multi-page TIFF is complete as a file
            for sheet_pages, missing in group:
                if missing is not None and not whole_file and not last:
                    self.waiting += [p.path for p in sheet_pages]
                    continue
                ready.append((sheet_pages, missing))
                for p in sheet_pages:
                    name = os.path.basename(p.path)
                    self._taken.add(name)
                    self._seen.pop(name, None)
        self.finished = last
        return ready

    def _marker_settled(self, now: float) -> bool:
        return self._marker is not None and now - self._marker.since >= self.settle

    def _update(self, now: float) -> list[str]:
        """Refresh what is known of each page file not yet taken; return their names."""
        names = []
        marker = None
        for name, size, mtime_ns in self._lister(self.folder):
            if name in self._taken:
                continue
            if name in self._not_pages:
                if name == self.done_marker:
                    old = self._marker
                    keep = old is not None and (old.size, old.mtime_ns) == (size, mtime_ns)
                    marker = old if keep else FileSeen(size, mtime_ns, now)
                continue
            if os.path.splitext(name)[1].lower() not in IMAGE_SUFFIXES:
                if name not in self._ignored:
                    self._ignored.add(name)
                    self._last_change = now
                continue
            old = self._seen.get(name)
            if old is None or (old.size, old.mtime_ns) != (size, mtime_ns):
                self._seen[name] = FileSeen(size, mtime_ns, now)
                self._last_change = now
            names.append(name)
        for gone in set(self._seen) - set(names):  # deleted or renamed before it was complete
            del self._seen[gone]
        if marker is not self._marker:
            self._last_change = now
        self._marker = marker
        return names

    def _complete(self, name: str, now: float) -> bool:
        seen = self._seen[name]
        unchanged = now - seen.since
        if seen.size == 0:
            # An empty file in a finished tub is taken once stale (the reader sets it aside as empty):
            # otherwise a scanner that created a page and never wrote it would hold the tub open forever.
            return self._marker_settled(now) and unchanged >= self.stale
        if unchanged < self.settle:
            return False
        if os.path.splitext(name)[1].lower() in _TIFF_SUFFIXES:
            return True
        return unchanged >= self.stale or has_end_marker(os.path.join(self.folder, name))
