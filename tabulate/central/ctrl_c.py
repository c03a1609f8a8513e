"""Ctrl-C for a station that stays up: the interrupt is noted as well as raised, so it cannot be lost.

Python runs a signal's handler, and so raises Ctrl-C's ``KeyboardInterrupt``,
"after any bytecode instruction" of the main thread (the ``signal`` module's
documentation, "Note on Signal Handlers and Exceptions"). When that
instruction belongs to a finalizer -- a ``__del__`` method or a weak
reference's callback, run when an object is freed or by the garbage collector
-- the exception cannot reach the code that called it: Python prints
"Exception ignored in ..." and drops it. A one-shot ``tabulate scan`` then
finishes its batch and exits anyway; a station kept polling its folder for the
next tub, and the clerk's Ctrl-C at the end of the night did nothing. (A
benchmark that stopped its station with SIGINT right after a tub's summary,
when that tub's objects are freed, waited 120 s for it twice on a machine at
load 15-28; this is the one way found, reading the code, that a SIGINT to an
idle station is lost. It did not recur, so it is not proved to be that one.)

`noted` installs `CtrlC.handler` for SIGINT while the station runs: it notes
the press, then raises ``KeyboardInterrupt`` as the default handler does (the
tub in flight stops as `run_batch` stops: the sheets read are committed, the
batch stays open and a restart resumes it). The station calls `CtrlC.check`
at each poll of its folder and of the tub it reads (`HotFolder.after_wait`)
and between tubs, so a press whose exception was dropped stops it there.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


class CtrlC:
    """Whether Ctrl-C was pressed while the station ran; `check` raises ``KeyboardInterrupt`` if it was."""

    def __init__(self) -> None:
        self.pressed = False

    def handler(self, signum: int, frame: object) -> None:
        """The SIGINT handler: note the press, then interrupt as Python's default handler does."""
        self.pressed = True
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed (its first exception may have been dropped)."""
        if self.pressed:
            raise KeyboardInterrupt


@contextmanager
def noted() -> Iterator[CtrlC]:
    """`CtrlC.handler` as SIGINT's handler for the block, the previous one restored after it.

    Only from the main thread (the only one Python lets set a handler) and
    only over Python's default handler: SIGINT ignored (a job started in the
    background) or handled by someone else stays as it is, and `CtrlC.check`
    then never raises.
    """
    ctrl_c = CtrlC()
    if threading.current_thread() is not threading.main_thread():
        yield ctrl_c
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield ctrl_c
        return
    previous = signal.signal(signal.SIGINT, ctrl_c.handler)
    try:
        yield ctrl_c
    finally:
        signal.signal(signal.SIGINT, previous)
