"""Ctrl-C stops a station that stays up, even when Python drops the ``KeyboardInterrupt`` (tabulate.central.ctrl_c).

Python raises a signal handler's exception "after any bytecode instruction"
of the main thread; inside a finalizer (``__del__``, a weak reference's
callback) it is printed as "Exception ignored" and dropped. `Dropped` below
is such a finalizer: it calls SIGINT's handler exactly as CPython does when
the signal comes while the finalizer runs, at a point the test chooses (no
real signal, no timing). The station then must stop at its next poll, say
so in its summary, and lose or repeat no sheet. The last test sends a real
SIGINT to the command's station while it waits for its next tub.
"""

from __future__ import annotations

import signal
import sys

from test_scan_station import InlineReaders, Scanner, counted, station
from test_scan_support import ELECTION_PATH, e, make_batch, store  # noqa: F401 (fixtures)

from tabulate.central import ctrl_c
from tabulate.central.station import StationSummary
from tabulate.central.tubs import TubFolders
from tabulate.cli import main
from tabulate.commands.scan_station import format_station


class Dropped:
    """An object whose finalizer is running when Ctrl-C comes: CPython calls the handler there."""

    def __del__(self):
        signal.getsignal(signal.SIGINT)(signal.SIGINT, None)


class Unraisable:
    """Collects what Python drops (`sys.unraisablehook`) while a block runs."""

    def __enter__(self):
        self.dropped, self._hook = [], sys.unraisablehook
        sys.unraisablehook = lambda u: self.dropped.append(u.exc_type)
        return self

    def __exit__(self, *exc):
        sys.unraisablehook = self._hook


def press_inside_a_finalizer():
    Dropped()  # freed at once: its __del__ runs here


def test_a_ctrl_c_dropped_in_a_finalizer_stops_an_idle_station_at_its_next_poll(tmp_path, store, e):
    """The symptom seen: a station waiting for its next tub, Ctrl-C, and it went on waiting."""
    root = tmp_path / "station"
    make_batch(root / "tub-01", e, 2)
    (root / "tub-01" / "batch.done").write_text("")
    pressed_at = []

    def press_once_the_tub_is_recorded():
        if not pressed_at and any(b.ended_at is not None for b in store.batches()):
            pressed_at.append(scanner.now)
            press_inside_a_finalizer()

    scanner = Scanner([press_once_the_tub_is_recorded] * 200)
    with Unraisable() as python:
        summary, shown = station(store, e, root, scanner, InlineReaders(e), until_idle=60.0)
    # Stopped right after that sleep, not one poll later (the old code went on until idle, 60 s on).
    assert scanner.now == pressed_at[0]
    assert python.dropped == [KeyboardInterrupt]  # Python did drop the interrupt
    assert summary.interrupted and summary.stopped_in is None
    assert [s.batch.name for s in shown] == ["tub-01"] and counted(store) == {"tub-01": 2}
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is given back


def test_a_ctrl_c_dropped_in_the_middle_of_a_tub_leaves_its_batch_open_and_a_restart_finishes_it(tmp_path, store, e):
    root = tmp_path / "station"
    tub = root / "tub-01"
    make_batch(tub, e, 2)
    # The marker is written while a third sheet's back is still being written: the hot folder waits for it.
    (tub / "batch.done").write_text("")
    _front, back = make_batch(tub, e, 1, start=5)
    back_bytes = back.read_bytes()

    def scanner_writes():  # the back grows at every look, so it never settles
        with open(back, "ab") as f:
            f.write(b"x")

    def scanner_writes_and_clerk_presses():
        scanner_writes()
        press_inside_a_finalizer()

    scanner = Scanner([scanner_writes] * 3 + [scanner_writes_and_clerk_presses])
    with Unraisable() as python:  # (the old code went on: the page set aside once stale, the station idle)
        summary, shown = station(store, e, root, scanner, InlineReaders(e), until_idle=30.0)
    assert shown == []  # stopped in the middle of the tub (the old code waited, then read its last sheet)
    assert python.dropped == [KeyboardInterrupt]
    assert summary.interrupted and summary.stopped_in == "tub-01"
    assert counted(store) == {"tub-01": 2}  # the two complete sheets read before the stop are committed
    assert [b.ended_at for b in store.batches()] == [None]  # the batch stays open
    text = format_station(summary)
    assert text.startswith("Station: 0 tub(s) read (0 sheets); stopped by Ctrl-C")
    assert "STOPPED (Ctrl-C) in the middle of tub-01" in text

    back.write_bytes(back_bytes)  # the scanner finishes; the station is started again
    readers = InlineReaders(e)
    summary, shown = station(store, e, root, Scanner(), readers)
    assert not summary.interrupted
    assert [(s.batch.name, s.sheets_read, s.already, s.counted) for s in shown] == [("tub-01", 3, 2, 1)]
    assert counted(store) == {"tub-01": 3} and readers.read == 1
    assert [b.ended_at is not None for b in store.batches()] == [True]


def test_the_handler_is_installed_only_over_pythons_default():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with ctrl_c.noted() as c:
        assert signal.getsignal(signal.SIGINT) == c.handler
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a job started in the background ignores Ctrl-C
    try:
        with ctrl_c.noted() as c:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            c.check()  # never pressed: nothing raised
    finally:
        signal.signal(signal.SIGINT, previous)


def test_format_station_says_where_ctrl_c_stopped():
    text = format_station(StationSummary(interrupted=True, stopped_in="tub-07"))
    assert text.splitlines() == [
        "Station: 0 tub(s) read (0 sheets); stopped by Ctrl-C",
        "  STOPPED (Ctrl-C) in the middle of tub-07: the sheets read so far are recorded, its batch stays open; "
        "run the same command again to finish it",
    ]


def test_sigint_to_a_station_on_the_command_line_prints_its_summary_and_exits_130(tmp_path, e, capsys, monkeypatch):
    """A real SIGINT, sent to this process while the station waits for its next tub (after tub-01's summary)."""
    root = tmp_path / "station"
    make_batch(root / "tub-01", e, 1)
    (root / "tub-01" / "batch.done").write_text("")

    def wait_then_ctrl_c(self):
        signal.raise_signal(signal.SIGINT)  # delivered now, to this thread: the handler runs on return

    monkeypatch.setattr(TubFolders, "wait", wait_then_ctrl_c)
    args = ["scan", "--watch", str(root), "--batch-per-folder", "--election", str(ELECTION_PATH)]
    args += ["--db", str(tmp_path / "s.db"), "--vote-type", "election_day", "--workers", "1", "--no-progress"]
    assert main([*args, "--settle", "0"]) == 130
    out, err = capsys.readouterr()
    assert "Batch 'tub-01'" in out
    assert "Station: 1 tub(s) read (1 sheets); stopped by Ctrl-C" in out  # the old code printed no summary
    assert "tabulate: interrupted; the sheets read so far are recorded" in err
