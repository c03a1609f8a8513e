"""A central-count station that stays up all evening: one batch per tub folder, the readers started once.

A county scans tub after tub; starting the readers costs ~1.8 CPU s (numba,
OpenCV, the kernels' compiled code, every page's sample points: docs/perf.md,
start-up), which is most of a 400-sheet tub's reading time. `run_station`
starts the readers once and hands them every finished tub under the
station's folder (`tabulate.central.tubs`), each as a batch of its own, read
by `run_batch` exactly as ``tabulate scan`` reads one: each sheet recorded
once, the batch opened, resumed and closed in the journal, its own summary.

A restart of the station offers every finished tub again: a tub whose batch
is closed and holds as many sheets as its folder is passed over ("already
recorded"); any other is resumed, its recorded sheets skipped by their
fingerprints. A tub that cannot be read as it is (a bad ``batch.json``, a
batch name already used with other settings, another process scanning it) is
refused with one line and the station goes on with the next.

Ctrl-C stops the station and its summary is still given (`run_station`
returns it, ``interrupted``): the tub being read stops as a ``tabulate scan``
does (the sheets read are committed, its batch stays open, a restart resumes
it), and a press Python dropped is seen at the next poll (`tabulate.central.ctrl_c`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Protocol

from ..core.errors import TabulateError
from ..election import VOTE_TYPES, Election
from ..store.base import Store, StoreError
from . import ctrl_c as _ctrl_c
from .ctrl_c import CtrlC
from .hotfolder import HotFolder
from .pipeline import Readers, RunSummary, run_batch
from .sources import ScanPlan
from .tubs import SETTINGS_FILE, TubFolders, TubSettings, tub_settings


class _Lock(Protocol):
    def acquire(self) -> None: ...

    def release(self) -> None: ...


@dataclass
class StationSummary:
    """What a station's run did, tub by tub."""

    #: One per tub read (or resumed) by this run, in the order they were read.
    batches: list[RunSummary] = field(default_factory=list)
    #: Tubs whose batch was already closed with all their sheets (a restart).
    already: list[str] = field(default_factory=list)
    #: (tub, why) for tubs not read.
    refused: list[tuple[str, str]] = field(default_factory=list)
    #: Folders still without their done marker when the station stopped (nothing of them recorded).
    open: list[str] = field(default_factory=list)
    #: Page files put directly in the station's folder, in no tub's folder (never read).
    loose: list[str] = field(default_factory=list)
    #: Ctrl-C stopped the station.
    interrupted: bool = False
    #: The tub Ctrl-C stopped in the middle of: its batch stays open (its sheets read so far recorded).
    stopped_in: str | None = None


@dataclass(frozen=True)
class Station:
    """How a station reads each tub: the store and readers it keeps, and the settings given once."""

    store: Store
    election: Election
    readers: Readers
    defaults: TubSettings
    #: The batch lock for a tub's name (`tabulate.store.batch_lock`): one scan at a time per batch.
    lock_for: Callable[[str], _Lock]
    #: The hot folder a finished tub's pages are taken from (the settle time, simplex, a test's clock).
    hot_folder: Callable[[str], HotFolder]
    tabulator: str = "1"
    simplex: bool = False
    progress: bool = False


def _recorded_already(station: Station, name: str, folder: str) -> bool:
    """Whether the tub's batch is closed and holds a sheet for every sheet its folder has."""
    batch = next((b for b in station.store.batches() if b.name == name), None)
    if batch is None or batch.ended_at is None:
        return False
    return station.store.sheet_count(batch.id) == len(ScanPlan([folder], simplex=station.simplex))


def _settings(station: Station, folder: str) -> TubSettings:
    settings = tub_settings(folder, station.defaults)
    if settings.vote_type not in VOTE_TYPES:
        raise TabulateError(
            f"vote type {settings.vote_type!r} (--vote-type or {SETTINGS_FILE}) is not one of {', '.join(VOTE_TYPES)}"
        )
    if settings.precinct is not None and settings.precinct not in {p.id for p in station.election.precincts}:
        raise TabulateError(f"no precinct {settings.precinct!r} in the election (--precinct or {SETTINGS_FILE})")
    return settings


def read_tub(
    station: Station, folder: str, summary: StationSummary, *, again: bool = False, ctrl_c: CtrlC | None = None
) -> RunSummary | None:
    """Read one finished tub into its batch; None if it was recorded already or refused (noted in ``summary``).

    ``again``: the tub's folder changed after this run recorded it; it is then
    always resumed (each sheet fingerprinted), never passed over by its count:
    a page file replaced under the same name leaves the count as it was.
    ``ctrl_c``: checked at each poll of the tub's folder (`HotFolder.after_wait`).
    """
    name = os.path.basename(folder)
    try:
        settings = _settings(station, folder)
    except TabulateError as e:
        summary.refused.append((name, str(e)))
        return None
    if not again and _recorded_already(station, name, folder):
        summary.already.append(name)
        return None
    lock = station.lock_for(name)
    try:
        try:
            lock.acquire()  # before the batch is opened: a refused tub changes nothing
            batch = station.store.open_batch(
                name,
                settings.vote_type,
                precinct_id=settings.precinct,
                operator=settings.operator,
                tabulator=station.tabulator,
            )
        except StoreError as e:  # another process scans it, or the name was used with other settings
            summary.refused.append((name, str(e)))
            return None
        plan = station.hot_folder(folder)
        if ctrl_c is not None:
            plan.after_wait = ctrl_c.check
        # A store that fails while recording stops the station (as it stops `tabulate scan`): not refused.
        try:
            result = run_batch(
                station.store, station.election, batch, plan, readers=station.readers, progress=station.progress
            )
        except KeyboardInterrupt:
            summary.stopped_in = name
            raise
    finally:
        lock.release()
    summary.batches.append(result)
    return result


def run_station(
    station: Station, tubs: TubFolders, on_tub: Callable[[RunSummary], None] = lambda s: None
) -> StationSummary:
    """Read every tub as it is finished until ``tubs`` ends (idle) or Ctrl-C; ``on_tub`` sees each batch's summary.

    Ctrl-C: the summary is returned, ``interrupted``, once the sheets of the
    tub being read are committed (as for `run_batch`); a restart carries on.
    A Ctrl-C whose ``KeyboardInterrupt`` Python dropped (raised inside a
    finalizer) stops it at the next poll (`tabulate.central.ctrl_c`).
    """
    summary = StationSummary()
    offered: set[str] = set()
    with _ctrl_c.noted() as ctrl_c:
        try:
            for folder in tubs:
                ctrl_c.check()
                if folder is None:
                    tubs.wait()
                    ctrl_c.check()
                    continue
                result = read_tub(station, folder, summary, again=folder in offered, ctrl_c=ctrl_c)
                offered.add(folder)
                if result is not None:
                    on_tub(result)
        except KeyboardInterrupt:
            summary.interrupted = True
        finally:
            summary.open = tubs.open
            summary.loose = tubs.loose
    return summary
