"""One base for every error a user or an operator can meet: `TabulateError`, with a stable code.

The command line prints any `TabulateError` as one line (``tabulate: <message>``)
and exits with status 2; a traceback is a bug. ``code`` is a stable machine
name (``election``, ``store``, ``read``, ...) that scripts and the web app may
match on; the message is a sentence for people and may change.
"""

from __future__ import annotations


class TabulateError(Exception):
    """Base of every error of ours that a person can act on.

    Subclasses set ``code``; an instance may override it (``ReadError`` carries
    the reason code of the page it could not read).
    """

    code: str = "tabulate"

    def __init__(self, message: str = "", *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        """The one-line message (the first line of ``str(self)``)."""
        text = str(self)
        return text.splitlines()[0] if text else self.code


class ReportError(TabulateError, ValueError):
    """Records that cannot be reported as they are (a bug upstream, or records of another election)."""

    code = "report"
