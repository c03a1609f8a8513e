"""`UsageError`: a mistake the user can fix, raised by the commands and printed by `tabulate.cli` as one line."""

from __future__ import annotations

from ..core.errors import TabulateError


class UsageError(TabulateError):
    """A mistake the user can fix (a bad argument, a missing file); printed as one line, exit status 2."""

    code = "usage"
