"""How long the parent waits for a sheet's reading before it calls the reader hung (``reader_timed_out``).

The pipeline, a restarted pool's sheet read alone and the cluster's readers all wait through one
`Patience`: real time by default (``--sheet-timeout``-style seconds). A test gives its own, which decides
by an event instead of the clock (the fake reader says it has started the sheet that never returns), so a
slow machine cannot turn a sheet that was merely slow to start into one set aside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: A sheet not read within this long (seconds) is set aside as ``reader_timed_out``.
SHEET_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Patience:
    """Wait ``seconds`` of real time for a reading (a `concurrent.futures.Future` or the cluster's)."""

    seconds: float = SHEET_TIMEOUT_S

    def result(self, future: Any) -> Any:
        """The reading; `concurrent.futures.TimeoutError` when it takes longer than `seconds`."""
        return future.result(timeout=self.seconds)


def as_patience(timeout: float | Patience) -> Patience:
    """``timeout`` seconds as a `Patience`, or the one given."""
    return timeout if isinstance(timeout, Patience) else Patience(float(timeout))
