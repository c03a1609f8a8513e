"""A station's folder of tubs: each sub-folder is one batch, read once the scanner says the tub is finished.

``tabulate scan --watch DIR --batch-per-folder`` (docs/scale.md, "A station
that stays up") follows ``DIR``, into which the scanner (or the clerk) puts
one sub-folder per tub:

* The sub-folder's name is the batch's name (``tub-07``).
* The tub is finished when the folder holds the **done marker**
  (`DONE_MARKER`, ``batch.done``), the file scanner software writes at the
  end of a batch (or the clerk creates). Nothing else closes a tub: a scanner
  that jams for ten minutes in the middle of a tub must not split it into two
  batches, so no idle time is ever taken for the end. The marker must be
  written after the tub's last page; the tub's pages are then taken by the hot
  folder's rules (`tabulate.central.hotfolder`: each page complete, unchanged
  for the settle time) and the marker must have stayed unchanged as long.
* The batch's settings are the command's (``--vote-type``, ``--precinct``,
  ``--operator``) unless the folder holds ``batch.json`` (`SETTINGS_FILE`)
  with any of ``vote_type``, ``precinct``, ``operator``: it is read when the
  tub is finished, so the clerk may write it any time before the marker.

Folders are taken in the order their markers appear (by name within one
listing). A folder whose entries change after its tub was recorded (a page
dropped in late) is offered again: its batch is resumed, the sheets already
recorded are skipped by their fingerprints and the new ones recorded.

The clock, the sleep between polls and the listings are injectable, as for
the hot folder, so tests drive a scanner without real waiting.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from ..core.errors import TabulateError
from .hotfolder import list_folder
from .sources import IMAGE_SUFFIXES, natural_key

#: The file that says a tub is finished (scanner software writes it after the last page).
DONE_MARKER = "batch.done"
#: The optional per-tub settings file.
SETTINGS_FILE = "batch.json"
#: Seconds between looks at the station's folder: a finished tub waits at most this long to be noticed.
#: A look lists the folder's names and stats each open tub's folder; an open tub's files are listed again
#: only when the folder's mtime changed (a file added, removed or renamed: the marker) or every
#: `RELIST_SECONDS` (a file system with coarse mtimes; pages still growing, for ``until_idle``).
#: Listing 800 page files is ~4 ms of CPU; a look without it a fraction of a millisecond.
POLL_SECONDS = 0.1
RELIST_SECONDS = 1.0
_SETTINGS_KEYS = frozenset({"vote_type", "precinct", "operator"})


class TubSettingsError(TabulateError, ValueError):
    """A tub's ``batch.json`` that cannot be used (the tub is not read; the station goes on)."""

    code = "tub_settings"


@dataclass(frozen=True)
class TubSettings:
    """What a tub's batch is opened with."""

    vote_type: str
    precinct: str | None = None
    operator: str | None = None


def tub_settings(folder: str | Path, defaults: TubSettings) -> TubSettings:
    """``defaults`` with what the folder's ``batch.json`` says, if it has one.

    Raises
    ------
    TubSettingsError
        The file is not a JSON object of strings with known keys.
    """
    path = Path(folder) / SETTINGS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return defaults
    except OSError as e:
        raise TubSettingsError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise TubSettingsError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
    if not isinstance(data, dict):
        raise TubSettingsError(f'{path}: must be a JSON object such as {{"vote_type": "mail_in_absentee"}}')
    unknown = sorted(set(data) - _SETTINGS_KEYS)
    if unknown:
        raise TubSettingsError(
            f"{path}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_SETTINGS_KEYS))}"
        )
    bad = sorted(k for k, v in data.items() if not isinstance(v, str) or not v.strip())
    if bad:
        raise TubSettingsError(f"{path}: {', '.join(bad)} must be non-empty text")
    return replace(defaults, **data)


def list_subfolders(root: str) -> list[tuple[str, int]]:
    """``(name, mtime_ns)`` of every visible sub-folder of ``root`` (the default lister)."""
    out = []
    with os.scandir(root) as it:
        for entry in it:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    out.append((entry.name, entry.stat().st_mtime_ns))
            except OSError:  # removed between the listing and the stat
                continue
    return out


class TubFolders:
    """The finished tubs under a station's folder, yielded as their markers appear.

    Iterate it to get each finished tub's folder (a full path); it yields
    ``None`` when no tub is finished (the station then calls `wait`), and
    ends once nothing under the folder has changed for ``until_idle``
    seconds (never, when None). `open` lists the folders still waiting for
    their marker.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        marker: str = DONE_MARKER,
        poll: float = POLL_SECONDS,
        until_idle: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        subfolders: Callable[[str], list[tuple[str, int]]] = list_subfolders,
        lister: Callable[[str], list[tuple[str, int, int]]] = list_folder,
    ):
        self.root = os.path.abspath(root)
        if not os.path.isdir(self.root):
            raise NotADirectoryError(f"cannot watch {self.root}: not a folder")
        self.marker, self.poll, self.until_idle = marker, poll, until_idle
        self._clock, self._sleep, self._subfolders, self._lister = clock, sleep, subfolders, lister
        self._done: dict[str, int] = {}  # tub name -> its folder's mtime when it was handed out
        # tub name -> (its folder's mtime, what its listing looked like: for idleness) when last listed
        self._open: dict[str, tuple[int, tuple]] = {}
        self._last_relist = -RELIST_SECONDS
        self._last_poll: float | None = None
        self._last_change = clock()

    @property
    def loose(self) -> list[str]:
        """Page files directly under the station's folder, in no tub's folder: never read (full paths)."""
        return [
            os.path.join(self.root, name)
            for name, _size, _mtime in sorted(self._lister(self.root), key=lambda x: natural_key(x[0]))
            if os.path.splitext(name)[1].lower() in IMAGE_SUFFIXES
        ]

    @property
    def open(self) -> list[str]:
        """Folders seen without their done marker at the last listing (full paths, by name)."""
        return [os.path.join(self.root, n) for n in sorted(self._open, key=natural_key)]

    def wait(self) -> None:
        """Sleep until the next listing is due."""
        due = self.poll if self._last_poll is None else self._last_poll + self.poll - self._clock()
        if due > 0:
            self._sleep(due)

    def __iter__(self) -> Iterator[str | None]:
        while True:
            # A microsecond's slack: with a poll such as 0.1 s, clock + (due - clock) can fall short of due by a
            # rounding error, and the loop would then neither poll nor sleep.
            due = self._last_poll is None or self._clock() - self._last_poll >= self.poll - 1e-6
            ready = self._poll() if due else []
            yield from ready
            if ready:
                continue
            if self.until_idle is not None and self._clock() - self._last_change >= self.until_idle:
                return
            yield None

    def _poll(self) -> list[str]:
        now = self._last_poll = self._clock()
        relist = now - self._last_relist >= RELIST_SECONDS
        if relist:
            self._last_relist = now
        ready, still_open = [], {}
        for name, mtime_ns in sorted(self._subfolders(self.root), key=lambda x: natural_key(x[0])):
            if self._done.get(name, mtime_ns) != mtime_ns:
                # Entries added to a recorded tub's folder: offer it again (its batch resumes, once per sheet).
                del self._done[name]
            if name in self._done:
                continue
            seen = self._open.get(name)
            if seen is not None and seen[0] == mtime_ns and not relist:
                # No entry added, removed or renamed since it was listed (a new marker changes the folder's
                # mtime): a stat, not a listing, between full listings.
                still_open[name] = seen
                continue
            try:
                listing = self._lister(os.path.join(self.root, name))
            except OSError:  # removed or renamed since the root was listed: seen again at the next listing
                continue
            if any(entry[0] == self.marker for entry in listing):
                self._done[name] = mtime_ns
                ready.append(os.path.join(self.root, name))
                self._last_change = now
                continue
            look = (len(listing), max((entry[2] for entry in listing), default=0), sum(e[1] for e in listing))
            if seen is None or seen[1] != look:  # a new folder, or pages still arriving: not idle
                self._last_change = now
            still_open[name] = (mtime_ns, look)
        self._open = still_open
        return ready
